// Parsing and validating the query parameters of the read routes (docs/reference/behaviour.md §8). Every problem
// is collected, so one 400 names them all.
import type { EntityCatalog, FieldSpec, FilterSpec } from "../catalog/index.ts";
import { fieldByName } from "../catalog/index.ts";
import { ApiError, type FieldProblem } from "../errors.ts";
import { emptySearch, parseSearch, type Search } from "./filters.ts";
import { QueryParams } from "./query-params.ts";

export const MAX_LIMIT = 100;
export const DEFAULT_LIMIT = 20;
/** Far past any real dataset; keeps OFFSET arithmetic exact. */
export const MAX_PAGE = 1_000_000_000;

export const SORTS = ["createdAt", "-createdAt", "updatedAt", "-updatedAt"] as const;
/** The orders of a searchable entity's list: the dates', then the deal's price and the area. */
export const SEARCH_SORTS = [...SORTS, "price", "-price", "area", "-area"] as const;
export type Sort = (typeof SEARCH_SORTS)[number];

/** Whether a sort is by a date (the counters and date-order paths know only those). */
export const isDateSort = (sort: Sort): boolean => (SORTS as readonly string[]).includes(sort);

export const DATE_FILTERS = [
  { param: "createdAfter", column: "created_at", op: ">" },
  { param: "createdBefore", column: "created_at", op: "<" },
  { param: "updatedAfter", column: "updated_at", op: ">" },
  { param: "updatedBefore", column: "updated_at", op: "<" },
] as const;
export type DateFilter = (typeof DATE_FILTERS)[number];

export interface ListQuery {
  fields: FieldSpec[];
  page: number;
  limit: number;
  filters: { spec: FilterSpec; value: string }[];
  dates: { spec: DateFilter; value: string }[];
  /** The search filters (empty for an entity that has none). */
  search: Search;
  sort: Sort;
}

/** What restricts a list: every filter of ListQuery (the facets take them too). */
export type ListFilters = Pick<ListQuery, "filters" | "dates" | "search">;

const MESSAGES = {
  required: "is required",
  page: "must be an integer greater than or equal to 1",
  limit: `must be an integer between 1 and ${MAX_LIMIT}`,
  date: "must be an ISO 8601 date-time, e.g. 2025-01-31T12:00:00Z",
  text: "must be between 1 and 200 characters",
};

const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})$/i;

/**
 * A date-time with a zone as an instant: its whole milliseconds (what Date keeps: JavaScript
 * cuts finer digits off) and whether digits finer than a millisecond were given and not all 0.
 */
function parseInstant(text: string): { ms: number; finer: boolean } | null {
  const match = ISO_DATE_TIME.exec(text);
  if (!match) return null;
  const [, y, mo, d, h, mi, s = "00", fraction = ""] = match;
  // Date would roll 2025-02-30 over to March; check each part against the calendar.
  const day = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (day.getUTCMonth() !== Number(mo) - 1 || day.getUTCDate() !== Number(d)) return null;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null;
  const ms = new Date(text.replace(/([+-]\d{2})(\d{2})$/, "$1:$2")).getTime();
  return Number.isNaN(ms) ? null : { ms, finer: /[1-9]/.test(fraction.slice(3)) };
}

/** A date-time with a zone, normalised to the stored form (UTC, milliseconds, finer digits cut); null if invalid. */
export function parseDateTime(text: string): string | null {
  const instant = parseInstant(text);
  return instant === null ? null : new Date(instant.ms).toISOString();
}

/** The last instant the stored form can write (four-digit years). */
const LAST_STORABLE_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * An exclusive bound as the stored form, exact for an instant finer than a millisecond (clients
 * send microseconds: Python's isoformat()). Stored dates are whole milliseconds, so a stored
 * date is after X exactly when it is after X cut to its millisecond, and before X exactly when
 * it is before X rounded up to the next one. Null if invalid.
 */
export function parseDateBound(text: string, side: "after" | "before"): string | null {
  const instant = parseInstant(text);
  if (instant === null) return null;
  const ms = side === "before" && instant.finer ? Math.min(instant.ms + 1, LAST_STORABLE_MS) : instant.ms;
  return new Date(ms).toISOString();
}

function integerIn(text: string, min: number, max: number): number | null {
  if (!/^\d{1,10}$/.test(text)) return null;
  const value = Number(text);
  return value >= min && value <= max ? value : null;
}

/**
 * The requested fields in first-requested order, duplicates collapsed. `null` when absent or
 * empty (a VALIDATION_ERROR); throws INVALID_FIELDS naming every unknown name.
 */
export function parseFields(catalog: EntityCatalog, raw: string | null): FieldSpec[] | null {
  if (raw === null) return null;
  const names = [
    ...new Set(
      raw
        .split(",")
        .map((n) => n.trim())
        .filter((n) => n !== ""),
    ),
  ];
  if (names.length === 0) return null;
  const unknown = names.filter((n) => fieldByName(catalog, n) === undefined);
  if (unknown.length > 0) throw new ApiError("INVALID_FIELDS", `Invalid fields: ${unknown.join(", ")}`);
  return names.map((n) => fieldByName(catalog, n)!);
}

/** The raw `fields` parameter, with a problem recorded when it is absent, empty or repeated. */
function rawFields(query: QueryParams, problems: FieldProblem[]): string | null {
  const raw = query.one("fields", problems);
  const given = raw !== null && raw.split(",").some((n) => n.trim() !== "");
  if (!given) problems.push({ field: "fields", message: MESSAGES.required });
  return raw;
}

/** Validates `fields` alone (single-record routes: no other parameter). */
export function parseRecordQuery(catalog: EntityCatalog, params: URLSearchParams): FieldSpec[] {
  const problems: FieldProblem[] = [];
  const query = new QueryParams(params);
  const raw = rawFields(query, problems);
  query.refuseUnknown(problems);
  if (problems.length > 0) throw ApiError.validation(problems);
  return parseFields(catalog, raw)!;
}

export function parseListQuery(catalog: EntityCatalog, params: URLSearchParams): ListQuery {
  const problems: FieldProblem[] = [];
  const query = new QueryParams(params);
  const fields = rawFields(query, problems);

  const rawPage = query.one("page", problems);
  const page = rawPage === null ? 1 : integerIn(rawPage, 1, MAX_PAGE);
  if (page === null) problems.push({ field: "page", message: MESSAGES.page });

  const rawLimit = query.one("limit", problems);
  const limit = rawLimit === null ? DEFAULT_LIMIT : integerIn(rawLimit, 1, MAX_LIMIT);
  if (limit === null) problems.push({ field: "limit", message: MESSAGES.limit });

  const { filters, dates, search } = readFilters(catalog, query, problems);

  const rawSort = query.one("sort", problems);
  const sort = (rawSort ?? "-createdAt") as Sort;
  const sorts: readonly string[] = catalog.searchable ? SEARCH_SORTS : SORTS;
  if (!sorts.includes(sort)) problems.push({ field: "sort", message: `must be one of: ${sorts.join(", ")}` });
  query.refuseUnknown(problems);

  if (problems.length > 0) throw ApiError.validation(problems);
  return { fields: parseFields(catalog, fields)!, page: page!, limit: limit!, filters, dates, search, sort };
}

/**
 * The parameter GET /v1/facets/properties reads itself (modules/search) before its filters: the
 * one name that route takes beside them.
 */
export const FACETS_PARAM = "facets";

/**
 * The filters of a facets request, each problem added to `problems`, and any parameter that is
 * neither a filter nor FACETS_PARAM refused as unknown.
 */
export function parseFilters(catalog: EntityCatalog, params: URLSearchParams, problems: FieldProblem[]): ListFilters {
  const query = new QueryParams(params);
  query.take(FACETS_PARAM);
  const filters = readFilters(catalog, query, problems);
  query.refuseUnknown(problems);
  return filters;
}

/** The filters of a list or facets request, each problem added to `problems`. */
function readFilters(catalog: EntityCatalog, query: QueryParams, problems: FieldProblem[]): ListFilters {
  const filters: ListQuery["filters"] = [];
  for (const spec of catalog.filters) {
    const value = query.one(spec.param, problems);
    if (value === null) continue;
    if (spec.values ? !spec.values.includes(value) : value.length < 1 || value.length > 200) {
      const message = spec.values ? `must be one of: ${spec.values.join(", ")}` : MESSAGES.text;
      problems.push({ field: spec.param, message });
    } else {
      filters.push({ spec, value });
    }
  }

  const dates: ListQuery["dates"] = [];
  for (const spec of DATE_FILTERS) {
    const raw = query.one(spec.param, problems);
    if (raw === null) continue;
    const value = parseDateBound(raw, spec.op === "<" ? "before" : "after");
    if (value === null) problems.push({ field: spec.param, message: MESSAGES.date });
    else dates.push({ spec, value });
  }

  const search = catalog.searchable ? parseSearch(problems, (name) => query.one(name, problems)) : emptySearch();
  return { filters, dates, search };
}
