// The portal feed over HTTP as portals meet it: a HEAD answers the GET's headers without a
// length the GET does not have (through a listening server, where Bun writes the framing), and
// only a few bodies stream at once per process: the next ones wait their turn, and past the
// queue, or after waiting too long, the answer is 503 with Retry-After.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { createApp } from "../../../src/app.ts";
import { silentLogger } from "../../../src/logging.ts";
import { client, createTestApp, DEFAULT_PEER, PEER_HEADER } from "../../helpers/app.ts";
import { basic, FEED } from "./helpers.ts";

const portal = client("portal");
const t = createTestApp({ environment: "sandbox", clients: [portal.entry], properties: 300, leads: 10 });
const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => t.app.handle(request) });
afterAll(() => {
  server.stop(true);
  t.close();
});

/** One raw HTTP/1.1 request: the status and the header lines exactly as written on the wire. */
function raw(
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Map<string, string> }> {
  return new Promise((resolve, reject) => {
    const lines = Object.entries({ host: "feeds.imobiliaria.com.br", ...headers, connection: "close" }).map(
      ([k, v]) => `${k}: ${v}\r\n`,
    );
    const socket = connect(server.port!, "127.0.0.1", () =>
      socket.write(`${method} ${path} HTTP/1.1\r\n${lines.join("")}\r\n`),
    );
    let text = "";
    socket.on("data", (chunk) => (text += chunk.toString("latin1")));
    socket.on("end", () => {
      const head = text.slice(0, text.indexOf("\r\n\r\n")).split("\r\n");
      const parsed = new Map(
        head
          .slice(1)
          .map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]),
      );
      resolve({ status: Number(head[0]!.split(" ")[1]), headers: parsed });
    });
    socket.on("error", reject);
  });
}

/** What must be the same on a HEAD and its GET (request ids, dates and rate-limit counts differ by nature). */
const comparable = (headers: Map<string, string>) =>
  Object.fromEntries(
    [...headers].filter(([name]) => !["date", "x-request-id", "x-ratelimit-remaining", "ratelimit"].includes(name)),
  );

describe("HEAD answers the GET's headers, with no length the GET does not have", () => {
  // Last-Modified is left out within the second of the last change (the database was just
  // made): a GET inside that second and its HEAD just after it would differ by that alone.
  beforeAll(async () => {
    const headers = { authorization: basic(portal), [PEER_HEADER]: DEFAULT_PEER };
    for (let i = 0; i < 100 && !(await raw("HEAD", FEED, headers)).headers.has("last-modified"); i++)
      await Bun.sleep(50);
  });

  for (const encoding of ["identity", "gzip"]) {
    test(`Accept-Encoding: ${encoding}: the same headers, chunked, no Content-Length`, async () => {
      const headers = { authorization: basic(portal), "accept-encoding": encoding, [PEER_HEADER]: DEFAULT_PEER };
      const get = await raw("GET", FEED, headers);
      const head = await raw("HEAD", FEED, headers);
      expect(get.status).toBe(200);
      expect(head.status).toBe(200);
      expect(get.headers.get("transfer-encoding")).toBe("chunked");
      expect(get.headers.has("content-length")).toBe(false);
      expect(comparable(head.headers)).toEqual(comparable(get.headers));
    });
  }
});

describe("only a few feed bodies stream at once per process", () => {
  /** A second app on the same runtime, with small limits; bodies left unread hold their turn. */
  function appWith(limits: { streaming: number; waiting: number; waitMs: number }) {
    const app = createApp({
      runtime: t.runtime,
      logger: silentLogger(),
      peerAddress: (r) => r.headers.get(PEER_HEADER),
      portalFeedBodies: limits,
    });
    return (init: { signal?: AbortSignal; method?: string } = {}) =>
      app.handle(
        new Request(`http://localhost${FEED}`, {
          headers: { authorization: basic(portal), [PEER_HEADER]: DEFAULT_PEER },
          ...init,
        }),
      );
  }

  test("the next ones wait their turn; past the queue: 503 with Retry-After; a body that ends hands its turn on", async () => {
    const fetchFeed = appWith({ streaming: 2, waiting: 2, waitMs: 600_000 });
    const streaming = [await fetchFeed(), await fetchFeed()];
    expect(streaming.map((r) => r.status)).toEqual([200, 200]);
    const answered: number[] = [];
    const waiting = [fetchFeed(), fetchFeed()].map((p, i) => p.then((r) => (answered.push(i), r)));
    const refused = await fetchFeed();
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(await refused.json()).toMatchObject({ code: "SERVICE_UNAVAILABLE" });
    // A HEAD streams nothing: answered while every place is taken.
    expect((await fetchFeed({ method: "HEAD" })).status).toBe(200);
    expect(answered).toEqual([]);
    // The first body read whole: its turn goes to the first in line.
    expect(await streaming[0]!.text()).toContain("</ListingDataFeed>");
    const third = await waiting[0]!;
    expect(third.status).toBe(200);
    expect(answered).toEqual([0]);
    // The second one hung up: its turn goes on too.
    await streaming[1]!.body!.cancel();
    expect((await waiting[1]!).status).toBe(200);
    for (const response of [third, await waiting[1]!]) expect(await response.text()).toContain("</ListingDataFeed>");
  });

  test("a request that waited too long is answered 503 with Retry-After; one whose client left the queue frees its place", async () => {
    const fetchFeed = appWith({ streaming: 1, waiting: 1, waitMs: 50 });
    const holder = await fetchFeed();
    expect(holder.status).toBe(200);
    const late = await fetchFeed();
    expect(late.status).toBe(503);
    expect(late.headers.get("retry-after")).toBe("60");
    const gone = new AbortController();
    const leaving = fetchFeed({ signal: gone.signal });
    gone.abort();
    await leaving.catch(() => null);
    // Its place in the queue is free again: the next one waits (and runs out) rather than being refused at once.
    const next = fetchFeed();
    await holder.body!.cancel();
    expect((await next).status).toBe(200);
    await (await next).body!.cancel();
  });
});
