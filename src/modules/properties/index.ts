// Routes of published properties: the list and single records.
import { Elysia } from "elysia";
import { PROPERTY_CATALOG } from "../../catalog/properties.ts";
import { guard } from "../../plugins/guard.ts";
import { sendJson } from "../../plugins/respond.ts";
import { listOf, rawQueryOf, readerOf } from "../../query/lists.ts";
import { SORTS } from "../../query/params.ts";
import type { Runtime } from "../../runtime.ts";
import { PROPERTY_ROUTES } from "./openapi.ts";

/** What a plain list takes: a page of every published listing in a date order. */
const PLAIN_PARAMS: ReadonlySet<string> = new Set(["fields", "page", "limit", "sort"]);
const DATE_SORTS: ReadonlySet<string> = new Set(SORTS);

/**
 * Whether a list is a plain one, kept on the event loop: every published listing in a date
 * order, bounded by the counters and date indexes at any size, its pages cached and cheap; a
 * hop to a reader thread would cost the hot path more than the read. Anything else (a filter of
 * §8 or §20, a date bound, a price or area sort) is a search, made by the listing index in the
 * reader threads: two equality filters in the other date's order read thousands of rows in SQL.
 * Must agree with ListRepo's plain(): the listing index is never built on the event loop.
 */
export function isPlainList(rawQuery: string): boolean {
  if (rawQuery === "") return true;
  // Encoded names or values are rare: read them as the parser will, the plain ones without decoding.
  if (rawQuery.includes("%") || rawQuery.includes("+")) return isPlainParams(new URLSearchParams(rawQuery));
  for (const pair of rawQuery.split("&")) {
    const eq = pair.indexOf("=");
    const name = eq === -1 ? pair : pair.slice(0, eq);
    if (name !== "" && !PLAIN_PARAMS.has(name)) return false;
    if (name === "sort" && !DATE_SORTS.has(pair.slice(eq + 1))) return false;
  }
  return true;
}

function isPlainParams(params: URLSearchParams): boolean {
  for (const [name, value] of params) {
    if (name !== "" && !PLAIN_PARAMS.has(name)) return false;
    if (name === "sort" && !DATE_SORTS.has(value)) return false;
  }
  return true;
}

export function propertiesModule(runtime: Runtime) {
  return new Elysia({ name: "properties" })
    .use(guard(runtime))
    .get(
      PROPERTY_ROUTES.list.path,
      ({ request, tenant, client, set }) => {
        const rawQuery = rawQueryOf(request.url);
        const reader = readerOf(client);
        const list = listOf(tenant, PROPERTY_CATALOG);
        if (isPlainList(rawQuery)) return sendJson(set, list.page(rawQuery, reader));
        // A search: from the page cache here, else made by page() in a reader thread and kept.
        const found = list.lookup(rawQuery, reader);
        if ("body" in found) return sendJson(set, found.body);
        return runtime.reads.run(client.id, tenant, { kind: "properties", rawQuery, reader }).then((body) => {
          found.keep(body);
          return sendJson(set, body);
        });
      },
      {
        protected: "properties:read",
        detail: PROPERTY_ROUTES.list,
      },
    )
    .get(
      PROPERTY_ROUTES.get.path,
      ({ request, params, tenant, client, set }) =>
        sendJson(set, listOf(tenant, PROPERTY_CATALOG).record(params.id, rawQueryOf(request.url), readerOf(client))),
      { protected: "properties:read", detail: PROPERTY_ROUTES.get },
    );
}
