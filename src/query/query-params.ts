// A request's query parameters as the read routes' parsers see them (docs/reference/behaviour.md
// §8): each parser asks for the names it takes, and whatever the caller sent that no parser asked
// for is refused as an unknown parameter, with the closest name the route takes as a suggestion.
// The parser is the one source of a route's parameters: nothing lists them a second time.
import type { FieldProblem } from "../errors.ts";

/** How many unknown parameters an answer names one by one. */
export const MAX_NAMED_UNKNOWN = 20;

export class QueryParams {
  /** The names the route's parsers asked for, in the order they asked. */
  private readonly taken: string[] = [];

  constructor(private readonly params: URLSearchParams) {}

  /** Every value of `name`; the route takes `name`. */
  all(name: string): string[] {
    this.take(name);
    return this.params.getAll(name);
  }

  /** The one value of `name` (null when absent); a repeat is a problem. */
  one(name: string, problems: FieldProblem[]): string | null {
    const values = this.all(name);
    if (values.length > 1) problems.push({ field: name, message: "must be given once" });
    return values[0] ?? null;
  }

  /** Says the route takes `name` though this parser does not read it (its caller did). */
  take(name: string): void {
    if (!this.taken.includes(name)) this.taken.push(name);
  }

  /**
   * One problem per name sent that the route does not take, in the order sent; past
   * MAX_NAMED_UNKNOWN of them, one more problem counts the rest (a query of junk gets a short
   * answer, cheaply). A parameter with an empty name (`?=x`, a stray `&`) names nothing and is
   * passed over.
   */
  refuseUnknown(problems: FieldProblem[]): void {
    const unknown = new Set<string>();
    for (const name of this.params.keys()) {
      if (name !== "" && !this.taken.includes(name)) unknown.add(name);
    }
    let named = 0;
    for (const name of unknown) {
      if (named === MAX_NAMED_UNKNOWN) {
        problems.push({ field: "query", message: `${unknown.size - named} more unknown parameters` });
        return;
      }
      named++;
      const near = closest(name, this.taken);
      problems.push({
        field: name,
        message: near === null ? "unknown parameter" : `unknown parameter; did you mean ${near}?`,
      });
    }
  }
}

/**
 * The name `name` was most likely meant to be, or null when none is close. Close, compared
 * without case: the same name (`LIMIT`), at most two edits away (Damerau-Levenshtein: `feilds`,
 * `pgae`, `minPirce`), or, for four letters or more, a part of the name (`bedrooms` in
 * `minBedrooms`, `price` in `minPrice`). The nearest wins, then the first the route reads.
 */
export function closest(name: string, names: readonly string[]): string | null {
  const wanted = name.toLowerCase();
  let best: string | null = null;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const candidate of names) {
    const known = candidate.toLowerCase();
    const distance = editDistance(wanted, known);
    const score = distance <= 2 ? distance : wanted.length >= 4 && known.includes(wanted) ? 3 : null;
    if (score !== null && score < bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  return best;
}

/** Damerau-Levenshtein distance (optimal string alignment): insertions, deletions, substitutions, adjacent swaps. */
export function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3; // only "at most two" matters here
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
