// NDJSON text (streamed) → feed items: one API-shaped property per line. A bad line is refused
// on its own; the others still count.
import type { FeedItem } from "../listing.ts";
import { listingFromApiShape } from "./api-shape.ts";

/** A line longer than this is refused unread, so one runaway line cannot exhaust memory. */
export const MAX_LINE_CHARS = 4_000_000;

function item(line: string, number: number): FeedItem | null {
  if (line.trim() === "") return null;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    return {
      kind: "rejected",
      code: null,
      line: number,
      reason: `line ${number}: not valid JSON (${(error as Error).message})`,
    };
  }
  const result = listingFromApiShape(value);
  // The API's own shape is read exactly: a listing is taken whole or refused, never warned about.
  if ("listing" in result) return { kind: "listing", listing: result.listing, line: number, warnings: [] };
  return { kind: "rejected", code: result.code, line: number, reason: `line ${number}: ${result.problems.join("; ")}` };
}

export async function* readNdjson(text: AsyncIterable<string>): AsyncGenerator<FeedItem> {
  let pending = "";
  let number = 0;
  let overlong = false;
  for await (const chunk of text) {
    pending += chunk;
    let start = 0;
    let newline: number;
    while ((newline = pending.indexOf("\n", start)) >= 0) {
      const line = pending.slice(start, newline);
      start = newline + 1;
      number++;
      if (overlong || line.length > MAX_LINE_CHARS) {
        overlong = false;
        yield {
          kind: "rejected",
          code: null,
          line: number,
          reason: `line ${number}: longer than ${MAX_LINE_CHARS} characters`,
        };
        continue;
      }
      const next = item(line, number);
      if (next !== null) yield next;
    }
    pending = pending.slice(start);
    if (pending.length > MAX_LINE_CHARS) {
      overlong = true;
      pending = "";
    }
  }
  number++;
  if (overlong)
    yield {
      kind: "rejected",
      code: null,
      line: number,
      reason: `line ${number}: longer than ${MAX_LINE_CHARS} characters`,
    };
  else {
    const last = item(pending, number);
    if (last !== null) yield last;
  }
}
