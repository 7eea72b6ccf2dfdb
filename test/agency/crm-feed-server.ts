// A real local HTTP server standing in for an agency's CRM: it serves feed documents that the
// test changes, with an ETag and Last-Modified, answers 304 to a matching If-None-Match, and
// can be told to answer 500, a malformed or truncated body, or slowly.
import type { FeedSpec } from "../../src/config/model.ts";
import { closeDatabase, openDatabase } from "../../src/db/open.ts";

export type Behaviour = "ok" | "error" | "malformed" | "truncated" | "slow";

export interface FeedServer {
  url: (path?: string) => string;
  /** Sets the document served at `path` (default /feed.xml). */
  set(listings: string[], path?: string): void;
  behaviour: Behaviour;
  /** The requests received: path and headers. */
  requests: { path: string; headers: Record<string, string> }[];
  stop(): void;
}

export const listing = (code: string, title = `Imóvel ${code}`, extra = "") =>
  `<Listing><ListingID>${code}</ListingID><Title>${title}</Title><TransactionType>For Sale</TransactionType>` +
  `<Details><ListPrice currency="BRL">350000</ListPrice></Details>${extra}</Listing>`;

export const document = (listings: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<ListingDataFeed xmlns="http://www.vivareal.com/schemas/1.0/VRSync"><Listings>\n${listings.join("\n")}\n</Listings></ListingDataFeed>\n`;

export function startFeedServer(): FeedServer {
  const documents = new Map<string, string>();
  const requests: FeedServer["requests"] = [];
  const state = { behaviour: "ok" as Behaviour };
  // A body shorter than its Content-Length, the connection closed half way (Bun.serve will not send one).
  const cutShort = { body: "" };
  const raw = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      data(socket) {
        const bytes = Buffer.from(cutShort.body);
        socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nContent-Length: ${bytes.length}\r\n\r\n`);
        socket.write(bytes.subarray(0, bytes.length >> 1));
        socket.end();
      },
    },
  });
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 60,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      requests.push({ path, headers: Object.fromEntries(request.headers) });
      const body = documents.get(path);
      if (body === undefined) return new Response("not here", { status: 404 });
      switch (state.behaviour) {
        case "error":
          return new Response("the CRM is down", { status: 500 });
        case "malformed":
          return new Response(body.replace("</Title>", "</Titel>"));
        case "truncated":
          cutShort.body = body;
          return Response.redirect(`http://127.0.0.1:${raw.port}${path}`, 302);
        case "slow":
          await Bun.sleep(3_000);
          return new Response(body);
        case "ok": {
          const etag = `"${Bun.hash(body).toString(36)}"`;
          if (request.headers.get("if-none-match") === etag)
            return new Response(null, { status: 304, headers: { etag } });
          return new Response(body, {
            headers: {
              etag,
              "last-modified": new Date(Date.UTC(2026, 5, 1)).toUTCString(),
              "content-type": "application/xml",
            },
          });
        }
      }
    },
  });
  return {
    url: (path = "/feed.xml") => `http://127.0.0.1:${server.port}${path}`,
    set(listings, path = "/feed.xml") {
      documents.set(path, document(listings));
    },
    get behaviour() {
      return state.behaviour;
    },
    set behaviour(value: Behaviour) {
      state.behaviour = value;
    },
    requests,
    stop: () => {
      server.stop(true);
      raw.stop(true);
    },
  };
}

/** A feed spec as the config resolves one, over `databasePath`. */
export function feedSpec(databasePath: string, url: string, extra: Partial<FeedSpec> = {}): FeedSpec {
  return {
    id: "crm",
    database: "agency",
    databasePath,
    url,
    everyMs: 60_000,
    mode: "full",
    headers: { Authorization: "Bearer crm-s3cret" },
    maxUnpublishRatio: 0.5,
    timeoutMs: 10_000,
    maxBytes: 10 * 1024 * 1024,
    ...extra,
  };
}

/** A new, empty partner-api database at `path`. */
export function emptyDatabase(path: string): string {
  closeDatabase(openDatabase(path));
  return path;
}
