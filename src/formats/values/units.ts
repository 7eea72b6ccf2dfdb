// Units and periods as CRMs spell them (docs/reference/behaviour-extensions.md §16): what an area or an amount is multiplied by
// to give the API's square metres, monthly rents and fees, and annual IPTU.
import { foldText } from "../brazil.ts";
import { type Read, readFailed, readOk } from "../warnings.ts";

const SQUARE_METRES = new Set([
  "square metres",
  "square meters",
  "square metre",
  "square meter",
  "meter square",
  "metre square",
  "meters square",
  "metres square",
  "sqm",
  "sq m",
  "sq. m",
  "m2",
  "m²",
  "mt2",
  "mts2",
  "metros quadrados",
  "metro quadrado",
]);
const HECTARES = new Set(["hectare", "hectares", "ha"]);

/** Square metres in an alqueire: the paulista is the default; MG, GO and RJ use the mineiro, BA the baiano. */
const ALQUEIRES: Readonly<Record<string, number>> = {
  paulista: 24_200,
  mineiro: 48_400,
  goiano: 48_400,
  baiano: 96_800,
};
const ALQUEIRE_BY_UF: Readonly<Record<string, number>> = { MG: 48_400, GO: 48_400, RJ: 48_400, BA: 96_800 };

/** Square metres per unit of an area; absent is square metres. `uf` names the alqueire of the listing's state. */
export function areaFactor(unit: string | null, uf: string | null): Read<number | null> {
  if (unit === null) return readOk(1);
  const key = foldText(unit).replace(/\.$/, "");
  if (SQUARE_METRES.has(key) || SQUARE_METRES.has(unit.trim().toLowerCase())) return readOk(1);
  if (HECTARES.has(key)) return readOk(10_000);
  const alqueire = /^alqueires?(?:\s+(\w+))?$/.exec(key);
  if (alqueire !== null) {
    const named = alqueire[1];
    if (named === undefined) return readOk((uf !== null ? ALQUEIRE_BY_UF[uf] : undefined) ?? ALQUEIRES.paulista!);
    if (ALQUEIRES[named] !== undefined) return readOk(ALQUEIRES[named]!);
  }
  return readFailed(null, "UNKNOWN_UNIT", "an area unit that cannot be converted to square metres");
}

/** A period attribute → its factor to the API's period; `seasonal` marks rents by the day or week. */
export interface Period {
  factor: number;
  seasonal: boolean;
}

const PERIOD_WORDS: Readonly<Record<string, "day" | "week" | "month" | "quarter" | "year">> = {
  daily: "day",
  day: "day",
  diaria: "day",
  diario: "day",
  "por dia": "day",
  weekly: "week",
  week: "week",
  semanal: "week",
  monthly: "month",
  month: "month",
  mensal: "month",
  mes: "month",
  quarterly: "quarter",
  trimestral: "quarter",
  yearly: "year",
  year: "year",
  annual: "year",
  annually: "year",
  anual: "year",
  ano: "year",
};

const PER_MONTH = { day: 30, week: 30 / 7, month: 1, quarter: 1 / 3, year: 1 / 12 } as const;

function periodOf(
  text: string | null,
  fallback: "month" | "year",
): "day" | "week" | "month" | "quarter" | "year" | null {
  return text === null ? fallback : (PERIOD_WORDS[foldText(text)] ?? null);
}

const unknownPeriod = () => readFailed<Period | null>(null, "UNKNOWN_PERIOD", "a period that cannot be converted");

/** A rent's period → monthly; by the day or week it is a holiday let. Absent is monthly. */
export function rentPeriod(text: string | null): Read<Period | null> {
  const period = periodOf(text, "month");
  return period === null
    ? unknownPeriod()
    : readOk({ factor: PER_MONTH[period], seasonal: period === "day" || period === "week" });
}

/** A condominium fee's period → monthly. Absent is monthly. */
export function feePeriod(text: string | null): Read<Period | null> {
  const period = periodOf(text, "month");
  return period === null || period === "day" || period === "week"
    ? unknownPeriod()
    : readOk({ factor: PER_MONTH[period], seasonal: false });
}

/** IPTU's period → annual. Absent is annual. */
export function taxPeriod(text: string | null): Read<Period | null> {
  const period = periodOf(text, "year");
  return period === null || period === "day" || period === "week"
    ? unknownPeriod()
    : readOk({ factor: 12 * PER_MONTH[period], seasonal: false });
}

/** A converted amount keeps two decimals; an unconverted one stays exactly as read. */
export function scaled(value: number, factor: number): number {
  return factor === 1 ? value : Math.round(value * factor * 100) / 100;
}
