// What an import tells an agency about values it could not take as written (docs/reference/behaviour-extensions.md §16): the
// listing is imported, the value becomes null (free text stays), and a warning says where.

/** Every kind of warning, counted by kind in the import summary. */
export const WARNING_KINDS = [
  "UNREADABLE_NUMBER", // a price, area, count, floor or coordinate that is not a number
  "OUT_OF_RANGE", // a negative price, area or count; coordinates outside the globe or at 0,0
  "UNKNOWN_UNIT", // an area in a unit we cannot convert to square metres
  "UNKNOWN_PERIOD", // a rent, fee or tax period we cannot convert
  "FOREIGN_CURRENCY", // a price in another currency than BRL
  "INVALID_CEP", // a postal code that is not 8 digits (7 get their leading zero back)
  "UNKNOWN_STATE", // a state that is not one of Brazil's 27
  "STATE_MISMATCH", // state name and abbreviation disagree: the abbreviation wins
  "FOREIGN_COUNTRY", // a country other than Brazil
  "UNKNOWN_TRANSACTION_TYPE", // sale or rent told from the prices instead
  "UNKNOWN_PROPERTY_TYPE", // stored as written
  "UNKNOWN_VALUE", // another vocabulary (PublicationType, pa:Status, displayAddress, a boolean): its default
  "PHOTO_DROPPED", // a media item that is no usable photo URL
  "TEXT_CLEANED", // control characters removed, or an escaped CDATA wrapper unwrapped
  "TEXT_TRUNCATED", // text longer than the API keeps
  "DUPLICATE_LISTING", // another copy of a ListingID: the last importable one wins
  "ENCODING", // bytes that are not valid UTF-8, read as windows-1252
  "HTML_ENTITY", // an HTML named entity the document never declares, read as its character
  "XML_REPAIRED", // what generators leave around the document: read past it
] as const;

export type WarningKind = (typeof WARNING_KINDS)[number];

export interface FeedWarning {
  kind: WarningKind;
  /** The listing's code (ListingID); null for the feed as a whole. */
  code: string | null;
  /** Line of the element in the feed (of the listing for NDJSON); null when not known. */
  line: number | null;
  /** The element, as a path inside its Listing (`Details/ListPrice`), or an attribute (`Location@displayAddress`). */
  element: string | null;
  /** The value as the feed wrote it (cut to 200 characters). */
  value: string | null;
  message: string;
}

/** A value the reading layer could not take as written: why, in the warning's words. */
export interface Problem {
  kind: WarningKind;
  message: string;
}

export const problem = (kind: WarningKind, message: string): Problem => ({ kind, message });

/** A value as read: the value to store (null when unusable) and, when it was not taken as written, why. */
export interface Read<T> {
  value: T;
  problem?: Problem;
}

export const readOk = <T>(value: T): Read<T> => ({ value });
export const readFailed = <T>(value: T, kind: WarningKind, message: string): Read<T> => ({
  value,
  problem: problem(kind, message),
});

const MAX_SHOWN_VALUE = 200;

export function shownValue(value: string | null): string | null {
  return value === null || value.length <= MAX_SHOWN_VALUE ? value : `${value.slice(0, MAX_SHOWN_VALUE)}…`;
}

/** The summary's count of warnings by kind, kinds in the order above. */
export function countByKind(warnings: Iterable<{ kind: WarningKind }>): Partial<Record<WarningKind, number>> {
  const counts = new Map<WarningKind, number>();
  for (const { kind } of warnings) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return Object.fromEntries(WARNING_KINDS.filter((kind) => counts.has(kind)).map((kind) => [kind, counts.get(kind)!]));
}
