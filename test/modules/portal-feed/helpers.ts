// Shared by the portal feed tests: requests with Basic auth, the feed read back as listings,
// and what the API itself shows a client, to compare the feed with.
import type { FeedItem, FeedListing } from "../../../src/formats/listing.ts";
import { readVrsync } from "../../../src/formats/vrsync/reader.ts";
import type { TestApp, TestClient } from "../../helpers/app.ts";

export const FEED = "/v1/feeds/vrsync.xml";

export function basic(who: Pick<TestClient, "apiKey" | "secret">): string {
  return `Basic ${Buffer.from(`${who.apiKey}:${who.secret}`).toString("base64")}`;
}

/** GET (or HEAD) the feed with Basic auth and any other headers. */
export function fetchFeed(
  t: TestApp,
  who: TestClient,
  headers: Record<string, string> = {},
  init: { method?: string; peer?: string } = {},
): Promise<Response> {
  return t.request(FEED, { headers: { authorization: basic(who), ...headers }, ...init });
}

async function* once(text: string): AsyncGenerator<string> {
  yield text;
}

/** The listings a VRSync reader finds in a feed; a refused one fails the test. */
export async function listingsOf(xml: string): Promise<FeedListing[]> {
  const items: FeedItem[] = [];
  for await (const item of readVrsync(once(xml))) items.push(item);
  return items.map((item) => {
    if (item.kind !== "listing") throw new Error(`the feed carries a listing a reader refuses: ${item.reason}`);
    return item.listing;
  });
}

type ApiRecord = Record<string, unknown> & { id: string; code: string | null };

/** Every published property as GET /v1/properties shows it to `token`'s client, all fields. */
export async function apiProperties(t: TestApp, token: string): Promise<ApiRecord[]> {
  const fields =
    "id,code,title,description,operationType,status,propertyType,highlight,exclusive,address,coordinates,features,amenities,pricing,financing,photos,updatedAt";
  const all: ApiRecord[] = [];
  for (let page = 1; ; page++) {
    const response = await t.get(`/v1/properties?fields=${fields}&limit=100&sort=-updatedAt&page=${page}`, token);
    const body = (await response.json()) as { data: ApiRecord[]; meta: { totalPages: number } };
    all.push(...body.data);
    if (page >= body.meta.totalPages) return all;
  }
}

/** An API record as a feed carries it: its content, named by its code (or its id when it has none). */
export function asListing({ id, updatedAt: _u, ...content }: ApiRecord): FeedListing {
  return { ...content, code: content.code ?? id } as unknown as FeedListing;
}
