// VRSync XML text (streamed) → feed items, one per <Listing>, as the document is read.
import type { FeedItem } from "../listing.ts";
import type { FeedWarning } from "../warnings.ts";
import { mapListing } from "./mapping.ts";
import { ListingTreeReader } from "./tree.ts";

/**
 * Throws FeedError (with line and column) as soon as the document turns out unreadable; what it
 * read past (junk around the document, undeclared HTML entities) goes to `notices`.
 */
export async function* readVrsync(text: AsyncIterable<string>, notices: FeedWarning[] = []): AsyncGenerator<FeedItem> {
  const reader = new ListingTreeReader(notices);
  for await (const chunk of text) {
    reader.write(chunk);
    yield* drain(reader);
  }
  reader.close();
  yield* drain(reader);
}

function* drain(reader: ListingTreeReader): Generator<FeedItem> {
  for (const tree of reader.ready.splice(0)) yield mapListing(tree);
}
