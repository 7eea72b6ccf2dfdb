// Opening feeds: files and http(s) URLs stream in, gzip is inflated, the format is sniffed, the
// XML declaration's encoding is honoured, and what cannot be read fails as a whole.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FeedError } from "../../src/formats/listing.ts";
import { openFeed } from "../../src/formats/source.ts";

const dir = mkdtempSync(join(tmpdir(), "pa-source-"));
const XML = '<?xml version="1.0" encoding="UTF-8"?>\n<ListingDataFeed><Listings/></ListingDataFeed>\n';
let server: ReturnType<typeof Bun.serve>;

async function text(location: string): Promise<{ format: string; text: string }> {
  const feed = await openFeed(location);
  let all = "";
  for await (const chunk of feed.text) all += chunk;
  return { format: feed.format, text: all };
}

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      const path = new URL(request.url).pathname;
      if (path === "/feed.xml") return new Response(XML, { headers: { "content-type": "application/xml" } });
      if (path === "/feed.xml.gz") return new Response(Bun.gzipSync(Buffer.from(XML)));
      return new Response("not here", { status: 404 });
    },
  });
});

afterAll(() => {
  server.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

describe("feed sources", () => {
  test("a file path is read and recognised as VRSync; a leading BOM is dropped", async () => {
    const path = join(dir, "a.xml");
    writeFileSync(path, "\uFEFF" + XML);
    expect(await text(path)).toEqual({ format: "vrsync", text: XML });
  });

  test("NDJSON is recognised by its first object", async () => {
    const path = join(dir, "a.ndjson");
    writeFileSync(path, '\n{"code":"A"}\n');
    expect((await text(path)).format).toBe("ndjson");
  });

  test("an http URL is streamed, plain or gzipped", async () => {
    expect(await text(`http://127.0.0.1:${server.port}/feed.xml`)).toEqual({ format: "vrsync", text: XML });
    expect(await text(`http://127.0.0.1:${server.port}/feed.xml.gz`)).toEqual({ format: "vrsync", text: XML });
  });

  test("a gzipped file is inflated", async () => {
    const path = join(dir, "a.xml.gz");
    writeFileSync(path, Bun.gzipSync(Buffer.from(XML)));
    expect((await text(path)).text).toBe(XML);
  });

  test("a Latin-1 feed that says so in its declaration is decoded as Latin-1", async () => {
    const path = join(dir, "latin1.xml");
    writeFileSync(
      path,
      Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><ListingDataFeed>São</ListingDataFeed>', "latin1"),
    );
    expect((await text(path)).text).toContain("São");
  });

  test("bytes that are not UTF-8 in an undeclared feed are read as windows-1252, with one warning naming the line", async () => {
    const path = join(dir, "bad-utf8.xml");
    // UTF-8 around Latin-1 bytes (ã = 0xE3, ç = 0xE7) and a windows-1252 en dash (0x96).
    const latin = Buffer.from([0x4a, 0x6f, 0xe3, 0x6f, 0x20, 0x96, 0x20, 0x61, 0xe7, 0xe3, 0x6f, 0x0a]);
    writeFileSync(
      path,
      Buffer.concat([Buffer.from("<ListingDataFeed>\nSão "), latin, Buffer.from("€ ok</ListingDataFeed>")]),
    );
    const feed = await openFeed(path);
    let all = "";
    for await (const chunk of feed.text) all += chunk;
    expect(all).toBe("<ListingDataFeed>\nSão João \u2013 ação\n€ ok</ListingDataFeed>");
    expect(feed.notices).toEqual([expect.objectContaining({ kind: "ENCODING", line: 2, code: null })]);
  });

  test("NDJSON is UTF-8 exactly: other bytes fail the feed", async () => {
    const path = join(dir, "bad-utf8.ndjson");
    writeFileSync(path, Buffer.from('{"code":"São"}\n', "latin1"));
    const error = await text(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FeedError);
    expect((error as Error).message).toContain("not valid UTF-8");
  });
});

describe("feed sources that cannot be read", () => {
  const cases: [string, () => string, RegExp][] = [
    ["a missing file", () => join(dir, "missing.xml"), /feed file not found/],
    ["an HTTP error", () => `http://127.0.0.1:${server.port}/nope`, /HTTP 404/],
    ["an unreachable host", () => "http://127.0.0.1:1/feed.xml", /cannot fetch/],
    ["another scheme", () => "ftp://example.com/feed.xml", /unsupported feed address/],
    ["an empty file", () => (writeFileSync(join(dir, "empty.xml"), "  \n"), join(dir, "empty.xml")), /empty/],
    [
      "neither XML nor NDJSON",
      () => (writeFileSync(join(dir, "csv.txt"), "a,b,c\n"), join(dir, "csv.txt")),
      /unrecognised feed/,
    ],
  ];
  for (const [name, location, message] of cases) {
    test(`${name} is a FeedError`, async () => {
      const error = await text(location()).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FeedError);
      expect((error as Error).message).toMatch(message);
    });
  }
});
