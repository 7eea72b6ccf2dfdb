// OWASP API10:2023 Unsafe Consumption of APIs. The server consumes one third-party input: portal
// and CRM listing feeds (VRSync XML) brought in by `partner-api import`. A feed is untrusted:
// DTDs, external entities and entity bombs must neither read files nor blow up, and a hostile
// feed ends in an error or in listings that carry none of what the tricks tried to pull in.
import { describe, expect, test } from "bun:test";
import { readVrsync } from "../../src/formats/vrsync/reader.ts";

async function consume(xml: string): Promise<{ items: string; error: string | null; ms: number }> {
  const started = performance.now();
  const items: unknown[] = [];
  let error: string | null = null;
  try {
    for await (const item of readVrsync(
      (async function* () {
        yield xml;
      })(),
    ))
      items.push(item);
  } catch (e) {
    error = (e as Error).message;
  }
  return { items: JSON.stringify(items), error, ms: performance.now() - started };
}

const listing = (title: string) =>
  `<Listings><Listing><ListingID>A-1</ListingID><Title>${title}</Title></Listing></Listings>`;
const feed = (doctype: string, title: string) =>
  `<?xml version="1.0"?>${doctype}<ListingDataFeed>${listing(title)}</ListingDataFeed>`;

describe("API10 unsafe consumption of APIs", () => {
  test("an external entity (XXE) never reads a local file", async () => {
    const { items } = await consume(feed('<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>', "&xxe;"));
    expect(items).not.toContain("root:");
  });

  test("a parameter entity pointing at the network is not followed", async () => {
    let hits = 0;
    const listener = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () => (hits++, new Response("<!ENTITY x 'pwned'>")),
    });
    try {
      const { items } = await consume(
        feed(`<!DOCTYPE x [<!ENTITY % remote SYSTEM "http://127.0.0.1:${listener.port}/e.dtd"> %remote;]>`, "t"),
      );
      await Bun.sleep(20);
      expect(hits).toBe(0);
      expect(items).not.toContain("pwned");
    } finally {
      listener.stop(true);
    }
  });

  test("an entity bomb (billion laughs) neither expands nor hangs", async () => {
    const levels = Array.from({ length: 9 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`).join("");
    const { items, ms } = await consume(feed(`<!DOCTYPE x [<!ENTITY l0 "lol">${levels}]>`, "&l9;"));
    expect(items.length).toBeLessThan(100_000);
    expect(ms).toBeLessThan(2_000);
  });
});
