// The shape of a field catalogue entry: one entry drives selection, SQL, /v1/fields and OpenAPI.
import type { TSchema } from "@sinclair/typebox";
import type { LeadAccess } from "../security/scopes.ts";

export interface SubField {
  description: string;
  schema: TSchema;
}

/**
 * Whose view of a record: the stored values (the agency's own tools, clients with
 * `fullAddress`), or a partner's, without what the listing's address visibility hides.
 */
export type RecordView = "stored" | "partner";

/** Who reads, as the read routes need it: which view of an address, and which leads. */
export interface Reader {
  view: RecordView;
  leads: LeadAccess;
}

export interface FieldSpec {
  name: string;
  description: string;
  /** SQL expression (over the entity's table alias) giving the field's JSON value. */
  sql: string;
  /** The value a partner sees, when it differs from the stored one (address privacy). */
  partnerSql?: string;
  /** TypeBox schema of the value as it appears in responses. */
  schema: TSchema;
  /** Present for grouped fields: the sub-fields returned together, never selectable alone. */
  fields?: Record<string, SubField>;
}

/** An equality filter of a list endpoint: query parameter → column. */
export interface FilterSpec {
  param: string;
  column: string;
  description: string;
  /** Allowed values; absent for free text. */
  values?: readonly string[];
  /** Column of the counters table that holds this dimension, when totals can come from it. */
  countColumn?: string;
  /** `dim` of the per-day counters that count by this filter's value, when they do. */
  dayDimension?: string;
  /**
   * Its index leads, holds the entity's other equality filters and both dates, and is in the
   * order of this date: given with others, it picks the index, and the others are tested in its
   * entries (their own indexes left aside); a page in the other date's order is sorted from
   * those entries before any row is read.
   */
  drives?: "created" | "updated";
  /**
   * No index leads with it, and the entries of both date indexes hold it: a list of one value
   * walks the index of its order and tests it entry by entry. With per-day counters
   * (`dayDimension`), the walk starts where they place the page (query/list-repo.ts), never a
   * day of rows of other values before it.
   */
  inDateIndexes?: true;
  /** A value for the documentation's example request, where the sandbox's records hold none. */
  example?: string;
}

/** A field of GET /v1/values/{entity}/{field}. */
export interface ValuesSpec {
  field: string;
  /** A fixed enumeration, or the column whose distinct published values are listed. */
  values?: readonly string[];
  column?: string;
  /** A place or amenity, listed once per folded spelling (query/facets.ts). */
  search?: "city" | "neighborhood" | "uf" | "amenities";
}

export interface EntityCatalog {
  entity: "properties" | "leads";
  table: string;
  alias: string;
  /** Condition every row leaving the server must meet (published properties only). */
  visible: string;
  /** Whether lists take the search filters and sorts (docs/reference/behaviour-partners.md §20). */
  searchable?: true;
  fields: readonly FieldSpec[];
  filters: readonly FilterSpec[];
  values: readonly ValuesSpec[];
  /** Counters table kept by triggers, with its filterable columns. */
  countsTable: string;
  /** Per-day counters kept by triggers (schema 2): rows per created/updated day. */
  daysTable: string;
  /** Rows per day of one date and third of a month of the other, kept by triggers (schema 3). */
  pairsTable: string;
}
