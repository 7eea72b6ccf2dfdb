// VRSync XML text (streamed) → feed items, one per <Listing>, as the document is read.
import type { FeedItem } from "../listing.ts";
import { mapListing } from "./mapping.ts";
import { ListingTreeReader } from "./tree.ts";

/** Throws FeedError (with line and column) as soon as the XML turns out malformed. */
export async function* readVrsync(text: AsyncIterable<string>): AsyncGenerator<FeedItem> {
  const reader = new ListingTreeReader();
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
