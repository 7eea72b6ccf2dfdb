// The bounded download of a feed, against a real local HTTP server: conditional requests and
// 304, HTTP errors, bodies cut short, stalls and slow servers, size limits (announced, counted,
// inflated), and the redirect rules (how many, which schemes, where the configured headers go).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type FetchLimits, fetchFeed, MAX_REDIRECTS } from "../../src/formats/fetch.ts";
import { FeedError } from "../../src/formats/listing.ts";
import { openFeedSource } from "../../src/formats/source.ts";

const XML = '<?xml version="1.0" encoding="UTF-8"?>\n<ListingDataFeed><Listings/></ListingDataFeed>\n';
const LIMITS: FetchLimits = { timeoutMs: 5_000, stallMs: 2_000, maxBytes: 1024 * 1024 };

/** What each request carried, by path. */
const seen: { path: string; headers: Record<string, string> }[] = [];
let server: ReturnType<typeof Bun.serve>;
let other: ReturnType<typeof Bun.serve>;
const at = (path: string) => `http://127.0.0.1:${server.port}${path}`;

/** A raw TCP server for what Bun.serve will not send: a body shorter than its Content-Length. */
let raw: { port: number; stop(closeActive?: boolean): void };

function slowBody(chunks: string[], gapMs: number): ReadableStream<Uint8Array> {
  return new ReadableStream({
    async pull(controller) {
      const next = chunks.shift();
      if (next === undefined) return controller.close();
      await Bun.sleep(gapMs);
      controller.enqueue(new TextEncoder().encode(next));
    },
  });
}

beforeAll(() => {
  other = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(request) {
      seen.push({ path: `other${new URL(request.url).pathname}`, headers: Object.fromEntries(request.headers) });
      return new Response(XML);
    },
  });
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 30,
    async fetch(request) {
      const url = new URL(request.url);
      const path = url.pathname;
      seen.push({ path, headers: Object.fromEntries(request.headers) });
      switch (path) {
        case "/feed.xml":
          if (request.headers.get("if-none-match") === '"v1"') return new Response(null, { status: 304 });
          return new Response(XML, { headers: { etag: '"v1"', "last-modified": "Mon, 01 Jun 2026 12:00:00 GMT" } });
        case "/error":
          return new Response("boom", { status: 500, statusText: "Internal Server Error" });
        case "/stall":
          // Headers at once, then one chunk, then nothing.
          return new Response(
            slowBody(["<ListingDataFeed>", ""], 0).pipeThrough(
              new TransformStream({
                async flush() {
                  await Bun.sleep(60_000);
                },
              }),
            ),
          );
        case "/slow-headers":
          await Bun.sleep(5_000);
          return new Response(XML);
        case "/trickle":
          // A byte every 300 ms: never stalled, but over the whole-download limit.
          return new Response(
            slowBody(
              Array.from({ length: 40 }, () => " "),
              300,
            ),
          );
        case "/announced-big":
          return new Response("x".repeat(2 * 1024 * 1024), { headers: { "content-type": "application/xml" } });
        case "/chunked-big":
          return new Response(
            slowBody(
              Array.from({ length: 40 }, () => "x".repeat(64 * 1024)),
              0,
            ),
          );
        case "/bomb.gz":
          return new Response(
            Bun.gzipSync(Buffer.concat([Buffer.from("<ListingDataFeed>"), Buffer.alloc(8 * 1024 * 1024, 0x20)])),
          );
        case "/redirect":
          return Response.redirect(at(url.searchParams.get("to") ?? "/feed.xml"), 302);
        case "/redirect-away":
          return Response.redirect(`http://127.0.0.1:${other.port}/feed.xml`, 301);
        case "/loop":
          return Response.redirect(at("/loop"), 307);
        case "/to-ftp":
          return new Response(null, { status: 302, headers: { location: "ftp://example.com/feed.xml" } });
        default:
          return new Response("not here", { status: 404 });
      }
    },
  });
  raw = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      data(socket) {
        socket.write(
          "HTTP/1.1 200 OK\r\nContent-Length: 5000\r\nContent-Type: application/xml\r\n\r\n<ListingDataFeed><Listings><Listing>",
        );
        socket.end();
      },
    },
  });
});

afterAll(() => {
  server.stop(true);
  other.stop(true);
  raw.stop(true);
});

async function drain(stream: ReadableStream<Uint8Array>): Promise<number> {
  let bytes = 0;
  for await (const chunk of stream) bytes += chunk.length;
  return bytes;
}

/** The FeedError a download ends with, from the request or from reading its body. */
async function failure(url: string, limits = LIMITS, headers?: Record<string, string>): Promise<FeedError> {
  try {
    const fetched = await fetchFeed(url, { limits, headers });
    if (fetched.status === "ok") await drain(fetched.body);
  } catch (error) {
    expect(error).toBeInstanceOf(FeedError);
    return error as FeedError;
  }
  throw new Error(`expected ${url} to fail`);
}

describe("conditional requests", () => {
  test("the validators of an answer are returned, and sent back they get a 304: nothing to read", async () => {
    const first = await fetchFeed(at("/feed.xml"), { limits: LIMITS });
    expect(first.status).toBe("ok");
    if (first.status !== "ok") return;
    expect(first.validators).toEqual({ etag: '"v1"', lastModified: "Mon, 01 Jun 2026 12:00:00 GMT" });
    expect(await drain(first.body)).toBe(XML.length);
    const again = await fetchFeed(at("/feed.xml"), { limits: LIMITS, validators: first.validators });
    expect(again).toEqual({ status: "not-modified" });
    const sent = seen.filter((s) => s.path === "/feed.xml").at(-1)!.headers;
    expect(sent["if-none-match"]).toBe('"v1"');
    expect(sent["if-modified-since"]).toBe("Mon, 01 Jun 2026 12:00:00 GMT");
  });

  test("openFeedSource says not-modified too, and reads the feed otherwise", async () => {
    expect(
      await openFeedSource(at("/feed.xml"), { validators: { etag: '"v1"', lastModified: null }, limits: LIMITS }),
    ).toEqual({ status: "not-modified" });
    const opened = await openFeedSource(at("/feed.xml"), {
      validators: { etag: '"old"', lastModified: null },
      limits: LIMITS,
    });
    expect(opened.status === "ok" && opened.format).toBe("vrsync");
  });
});

describe("failures are FeedErrors naming the feed without its secrets", () => {
  test("an HTTP error names the status; a query string is not shown", async () => {
    const error = await failure(at("/error?token=s3cret"));
    expect(error.message).toBe(`cannot fetch http://127.0.0.1:${server.port}/error?…: HTTP 500 Internal Server Error`);
  });

  test("nothing listening", async () => {
    const port = (() => {
      const probe = Bun.serve({ port: 0, fetch: () => new Response() });
      const p = probe.port;
      probe.stop(true);
      return p;
    })();
    expect((await failure(`http://127.0.0.1:${port}/feed.xml`)).message).toStartWith(
      `cannot fetch http://127.0.0.1:${port}/feed.xml: `,
    );
  });

  test("a body shorter than its Content-Length is cut short, not a feed", async () => {
    const error = await failure(`http://127.0.0.1:${raw.port}/feed.xml`);
    expect(error.message).toMatch(/cut short|closed|ECONNRESET|connection/i);
  });

  test("a server that stops sending is a stall, after the stall limit", async () => {
    const error = await failure(at("/stall"), { ...LIMITS, stallMs: 300 });
    expect(error.message).toContain("no data for 0.3 s after 17 bytes: the download stalled");
  });

  test("a server that never answers is a stall too (the headers count)", async () => {
    const error = await failure(at("/slow-headers"), { ...LIMITS, stallMs: 300 });
    expect(error.message).toContain("no data for 0.3 s: the download stalled");
  });

  test("a server that trickles forever hits the whole download's time limit", async () => {
    const error = await failure(at("/trickle"), { ...LIMITS, timeoutMs: 1_000, stallMs: 800 });
    expect(error.message).toMatch(/took longer than its time limit \(1 s\) after \d+ bytes/);
  });

  test("an outer signal stops the download", async () => {
    const controller = new AbortController();
    const fetched = await fetchFeed(at("/trickle"), { limits: LIMITS, signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    expect(fetched.status).toBe("ok");
    const error = await drain((fetched as { body: ReadableStream<Uint8Array> }).body).catch((e: unknown) => e);
    expect((error as Error).message).toContain("the download was stopped");
  });
});

describe("size limits", () => {
  test("an announced length over the limit is refused before reading", async () => {
    expect((await failure(at("/announced-big"))).message).toContain(
      "the feed announces 2 MiB, more than its size limit (1 MiB",
    );
  });

  test("a body without a length is counted and stopped past the limit", async () => {
    expect((await failure(at("/chunked-big"))).message).toContain("the feed is larger than its size limit (1 MiB");
  });

  test("a gzip feed is bounded once inflated too", async () => {
    // Eight MiB of blanks inflate from a few KiB: refused while being read.
    const opened = await openFeedSource(at("/bomb.gz"), { limits: LIMITS });
    expect(seen.at(-1)!.path).toBe("/bomb.gz");
    if (opened.status !== "ok") throw new Error("expected a feed");
    let text = 0;
    const error = await (async () => {
      for await (const chunk of opened.text) text += chunk.length;
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FeedError);
    expect((error as Error).message).toContain("inflates to more than its size limit (1 MiB)");
    expect(text).toBeLessThanOrEqual(LIMITS.maxBytes);
  });
});

describe("redirects", () => {
  test("followed within one origin, with the configured headers", async () => {
    const fetched = await fetchFeed(at("/redirect?to=/feed.xml"), {
      limits: LIMITS,
      headers: { authorization: "Bearer s3cret" },
    });
    expect(fetched.status).toBe("ok");
    const hops = seen.slice(-2);
    expect(hops.map((h) => h.path)).toEqual(["/redirect", "/feed.xml"]);
    expect(hops.map((h) => h.headers.authorization)).toEqual(["Bearer s3cret", "Bearer s3cret"]);
  });

  test("to another origin: followed, without the configured headers", async () => {
    const fetched = await fetchFeed(at("/redirect-away"), {
      limits: LIMITS,
      headers: { authorization: "Bearer s3cret", "x-api-token": "t0k3n" },
    });
    expect(fetched.status).toBe("ok");
    const away = seen.at(-1)!;
    expect(away.path).toBe("other/feed.xml");
    expect(away.headers.authorization).toBeUndefined();
    expect(away.headers["x-api-token"]).toBeUndefined();
  });

  test(`more than ${MAX_REDIRECTS} redirects, or to another scheme, are not followed`, async () => {
    expect((await failure(at("/loop"))).message).toContain(`more than ${MAX_REDIRECTS} redirects`);
    expect((await failure(at("/to-ftp"))).message).toContain("redirected to a ftp URL; only http(s) is followed");
  });
});
