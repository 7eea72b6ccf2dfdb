// Address parts as CRMs write them (docs/reference/behaviour-extensions.md §16): CEPs that lost a zero or carry dots, states
// by name, abbreviation or both (`Sao Paulo - SP`), Brazil in any spelling.
import { isUf, STATES, ufOfState } from "../brazil.ts";
import { type Problem, problem, type Read, readFailed, readOk } from "../warnings.ts";

/** A CEP from its digits: 8 of them, or 7 that lost their leading zero; `00000000` is no CEP. */
export function readCep(text: string): Read<string | null> {
  let digits = text.replace(/\D/g, "");
  if (digits.length === 7) digits = `0${digits}`;
  if (digits.length !== 8 || digits === "00000000") return readFailed(null, "INVALID_CEP", "not a CEP of 8 digits");
  return readOk(`${digits.slice(0, 5)}-${digits.slice(5)}`);
}

export interface StateRead {
  state: string | null;
  uf: string | null;
  problem?: Problem;
}

/** `Sao Paulo - SP`, `São Paulo/SP`, `São Paulo (SP)`: a name with its abbreviation after it. */
const NAME_THEN_UF = /^(.*?)\s*(?:[-–/,]|\()\s*([A-Za-z]{2})\)?$/;

/**
 * The state and UF of a `State` element: its `abbreviation` attribute (any case), a bare UF as
 * text, a name (accents optional), or a name followed by its UF. When name and abbreviation
 * disagree the abbreviation wins and the state is its name. A state that is none of Brazil's
 * 27 keeps its text, without a UF.
 */
export function readState(text: string | null, abbreviation: string | null): StateRead {
  const attribute = abbreviation?.trim().toUpperCase() ?? null;
  const attributeUf = attribute !== null && isUf(attribute) ? attribute : null;
  let name = text?.trim() || null;
  let textUf: string | null = null;
  if (name !== null && isUf(name.toUpperCase())) {
    textUf = name.toUpperCase();
    name = null;
  } else {
    const pair = name === null ? null : NAME_THEN_UF.exec(name);
    if (pair !== null && isUf(pair[2]!.toUpperCase()) && ufOfState(pair[1]!) !== null) {
      textUf = pair[2]!.toUpperCase();
      name = pair[1]!;
    }
  }
  const nameUf = name === null ? null : ufOfState(name);
  const uf = attributeUf ?? textUf ?? nameUf;
  if (uf !== null) {
    const said = [attributeUf, textUf, nameUf].filter((candidate) => candidate !== null);
    if (said.some((candidate) => candidate !== uf)) {
      return {
        state: STATES[uf]!,
        uf,
        problem: problem("STATE_MISMATCH", `the state's name and abbreviation disagree: ${uf} (${STATES[uf]}) is kept`),
      };
    }
    if (attribute !== null && attributeUf === null) {
      return {
        state: STATES[uf]!,
        uf,
        problem: problem("UNKNOWN_STATE", `the abbreviation ${attribute} is not a Brazilian state: ${uf} is kept`),
      };
    }
    return { state: STATES[uf]!, uf };
  }
  if (name === null && attribute === null) return { state: null, uf: null };
  return {
    state: name,
    uf: null,
    problem: problem("UNKNOWN_STATE", "not one of Brazil's 27 states: kept as written, without a UF"),
  };
}
