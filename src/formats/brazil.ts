// Brazil's 27 federative units: abbreviation (UF) and full name, both ways.

export const STATES: Readonly<Record<string, string>> = {
  AC: "Acre",
  AL: "Alagoas",
  AP: "Amapá",
  AM: "Amazonas",
  BA: "Bahia",
  CE: "Ceará",
  DF: "Distrito Federal",
  ES: "Espírito Santo",
  GO: "Goiás",
  MA: "Maranhão",
  MT: "Mato Grosso",
  MS: "Mato Grosso do Sul",
  MG: "Minas Gerais",
  PA: "Pará",
  PB: "Paraíba",
  PR: "Paraná",
  PE: "Pernambuco",
  PI: "Piauí",
  RJ: "Rio de Janeiro",
  RN: "Rio Grande do Norte",
  RS: "Rio Grande do Sul",
  RO: "Rondônia",
  RR: "Roraima",
  SC: "Santa Catarina",
  SP: "São Paulo",
  SE: "Sergipe",
  TO: "Tocantins",
};

/** Folded texts already computed: a feed repeats a few vocabulary values (currencies, units, states) thousands of times. */
const folded = new Map<string, string>();
const MAX_FOLDED = 10_000;

/** Lower case without accents: CRMs write "Sao Paulo" as often as "São Paulo". */
export function foldText(text: string): string {
  let result = folded.get(text);
  if (result === undefined) {
    result = text
      .normalize("NFD")
      .replace(/\p{Diacritic}/gu, "")
      .toLowerCase()
      .replace(/\s+/g, " ")
      .trim();
    if (folded.size >= MAX_FOLDED) folded.clear();
    folded.set(text, result);
  }
  return result;
}

const UF_BY_NAME = new Map(Object.entries(STATES).map(([uf, name]) => [foldText(name), uf]));

export function isUf(text: string): boolean {
  return Object.hasOwn(STATES, text);
}

/** The UF of a state written in full (accents optional), or null. */
export function ufOfState(name: string): string | null {
  return UF_BY_NAME.get(foldText(name)) ?? null;
}

/** A CEP as the API shows it (NNNNN-NNN), from 8 digits with or without the dash; null if it is not one. */
export function normalizeCep(text: string): string | null {
  const digits = /^(\d{5})-?(\d{3})$/.exec(text.replace(/[.\s]/g, ""));
  return digits ? `${digits[1]}-${digits[2]}` : null;
}

/**
 * State and UF completed from each other when only one is known (a bare "SP" in the state is
 * read as the UF), so every import path stores the pair the same way.
 */
export function completeState(state: string | null, uf: string | null): { state: string | null; uf: string | null } {
  let abbreviation = uf?.toUpperCase() ?? null;
  let name = state;
  if (abbreviation === null && name !== null) {
    if (isUf(name.toUpperCase())) [abbreviation, name] = [name.toUpperCase(), null];
    else abbreviation = ufOfState(name);
  }
  if (name === null && abbreviation !== null && isUf(abbreviation)) name = STATES[abbreviation]!;
  return { state: name, uf: abbreviation };
}
