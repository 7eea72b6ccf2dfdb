// Numbers as CRMs write them (docs/reference/behaviour-extensions.md §16): Brazilian and international separators, currency
// signs, units and count words around the digits. Each reader says what it could not take.
import { foldText } from "../brazil.ts";
import { type Read, readFailed, readOk } from "../warnings.ts";

/** Larger than any price or area a listing has: the sign of a misread value. */
export const MAX_AMOUNT = 1e12;

const SPACES = /[\s\u00A0\u2007\u202F]+/g;
/** A price in another currency written into the text. */
const FOREIGN_IN_TEXT = /us\$|u\$s|usd|eur\b|€|£/i;
const CURRENCY_WORDS = /r\$|brl|reais|real/gi;
const AREA_WORDS = /m²|m2|metros?quadrados?|sqm/gi;

/**
 * The number in a run of digits and separators (no signs or words left around it), or null.
 * With both `.` and `,` the last one is the decimal mark. A lone `,` followed by one or two
 * digits at the end is decimal, else grouping; a lone `.` in `d{1,3}(.ddd)+` form is grouping,
 * else decimal. Coordinates take a single `.` or `,` as the decimal mark.
 */
export function parseDecimal(text: string, coordinate = false): number | null {
  const match = /^([+-]?)([\d.,]+)$/.exec(text);
  if (match === null || !/\d/.test(match[2]!)) return null;
  const sign = match[1] === "-" ? -1 : 1;
  const body = match[2]!;
  const dot = body.lastIndexOf(".");
  const comma = body.lastIndexOf(",");
  const count = (mark: string) => body.split(mark).length - 1;
  let plain: string;
  if (dot >= 0 && comma >= 0) {
    const at = Math.max(dot, comma);
    const mark = body[at]!;
    const whole = body.slice(0, at);
    if (whole.includes(mark)) return null; // the decimal mark twice
    plain = `${whole.replace(/[.,]/g, "")}.${body.slice(at + 1)}`;
  } else if (comma >= 0) {
    const decimal = count(",") === 1 && (coordinate || /,\d{1,2}$/.test(body));
    plain = decimal ? body.replace(",", ".") : body.replace(/,/g, "");
  } else if (dot >= 0) {
    if (!coordinate && /^\d{1,3}(\.\d{3})+$/.test(body)) plain = body.replace(/\./g, "");
    else if (count(".") === 1) plain = body;
    else return null;
  } else {
    plain = body;
  }
  if (!/^\d*\.?\d*$/.test(plain) || !/\d/.test(plain)) return null;
  return sign * Number(plain);
}

const cents = (value: number) => Math.round(value * 100) / 100;

/**
 * An amount of money: `R$`, `BRL`, `reais` and spaces ignored; a negative amount is null with a
 * warning. A price of `0` is CRMs' "sob consulta" (on request): null, without a warning. A fee or
 * tax of `0` (`priceOnRequest` false) is an exemption and stays 0.
 */
export function readMoney(text: string, priceOnRequest = true): Read<number | null> {
  if (FOREIGN_IN_TEXT.test(text))
    return readFailed(null, "FOREIGN_CURRENCY", "the amount is in another currency than BRL");
  const value = parseDecimal(text.replace(CURRENCY_WORDS, "").replace(SPACES, ""));
  if (value === null) return readFailed(null, "UNREADABLE_NUMBER", "not an amount of money");
  if (value < 0 || value >= MAX_AMOUNT)
    return readFailed(null, "OUT_OF_RANGE", value < 0 ? "a negative amount" : "an implausibly large amount");
  return readOk(value === 0 && priceOnRequest ? null : cents(value));
}

/** An area before its unit is applied: `m²`/`m2` and spaces ignored; 0 (not informed) is null. */
export function readArea(text: string): Read<number | null> {
  const value = parseDecimal(text.replace(AREA_WORDS, "").replace(SPACES, ""));
  if (value === null) return readFailed(null, "UNREADABLE_NUMBER", "not an area");
  if (value < 0 || value >= MAX_AMOUNT)
    return readFailed(null, "OUT_OF_RANGE", value < 0 ? "a negative area" : "an implausibly large area");
  return readOk(value === 0 ? null : value);
}

/** The number that leads a count or floor, and the words after it ("2 vagas", "3+", "5º andar"). */
function leadingNumber(text: string): { value: number | null; rest: string } | null {
  const match = /^([+-]?[\d.,]*\d[\d.,]*)\s*\+?\s*(.*)$/su.exec(text.trim());
  if (match === null) return null;
  return { value: parseDecimal(match[1]!), rest: match[2]! };
}

/** Words that may follow a count: what is counted ("2 vagas", "3 quartos"). */
const COUNT_WORD = /^[\p{L}\s.()]*$/u;

/** A count (rooms, parking spaces, floors of a building): `2.0` → 2, `3+` → 3, words after it ignored. */
export function readCount(text: string): Read<number | null> {
  const lead = leadingNumber(text);
  if (lead === null || lead.value === null || !COUNT_WORD.test(lead.rest))
    return readFailed(null, "UNREADABLE_NUMBER", "not a count");
  if (!Number.isInteger(lead.value)) return readFailed(null, "UNREADABLE_NUMBER", "not a whole number");
  if (lead.value < 0 || lead.value > 100_000) return readFailed(null, "OUT_OF_RANGE", "not a count of 0 or more");
  return readOk(lead.value);
}

const GROUND_FLOOR = new Set(["terreo", "t", "rc", "ground", "ground floor", "pavimento terreo", "andar terreo"]);
const BASEMENT = /^(?:(\d+)\s*[oº°ª]?\s*)?subsolo(?:\s*(\d+))?$/;

/** The floor of a unit: `Térreo`/`T` → 0, `Subsolo` → -1 (`2º subsolo` → -2), `5º`, `5°`, `5o andar` → 5. */
export function readFloor(text: string): Read<number | null> {
  const folded = foldText(text).replace(/\.$/, "");
  if (GROUND_FLOOR.has(folded)) return readOk(0);
  const basement = BASEMENT.exec(folded);
  if (basement !== null) return readOk(-Number(basement[1] ?? basement[2] ?? 1));
  const lead = leadingNumber(folded.replace(/^(\d+)\s*(?:o|º|°|ª|a)(?=\s|$)/, "$1"));
  const words = lead?.rest.replace(/^(?:o|º|°|ª)\s*/, "") ?? "";
  if (lead === null || lead.value === null || !/^(?:andar|pavimento|piso|floor)?$/.test(words.trim())) {
    return readFailed(null, "UNREADABLE_NUMBER", "not a floor number");
  }
  if (!Number.isInteger(lead.value) || Math.abs(lead.value) > 1000)
    return readFailed(null, "UNREADABLE_NUMBER", "not a floor number");
  return readOk(lead.value);
}

/** One coordinate in decimal degrees, `.` or `,` as the decimal mark; its range is checked with the pair. */
export function readCoordinate(text: string): Read<number | null> {
  const value = parseDecimal(text.replace(SPACES, "").replace(/°$/, ""), true);
  return value === null ? readFailed(null, "UNREADABLE_NUMBER", "not a coordinate in decimal degrees") : readOk(value);
}
