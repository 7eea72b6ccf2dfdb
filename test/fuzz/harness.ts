// The fuzz target: the real app over two tenants' SQLite files (fake clock, peer header), and
// `send`, which turns a RequestSpec into a Request for app.handle and checks the contract.
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { client, createTestApp, PEER_HEADER, seededDatabase, type TestApp } from "../helpers/app.ts";
import { echoOf, type Observed, violations } from "./contract.ts";
import { type AuthSpec, bodyInit, canHaveBody, describeSpec, type RequestSpec } from "./spec.ts";

/** Limits no fuzz run reaches, so generated requests explore validation rather than 429s. */
const UNREACHABLE_LIMIT = 1_000_000_000;

export interface Ids {
  property: string;
  unpublishedProperty: string;
  lead: string;
  propertyCode: string;
  /** A code whose property is unpublished: never linked to a lead. */
  unpublishedCode: string;
}

export interface FuzzTarget {
  t: TestApp;
  tokens: { portal: string; other: string };
  own: Ids;
  other: Ids;
  /** Sends a spec; returns what came back and every contract violation found in it. */
  send(spec: RequestSpec): Promise<{ observed: Observed; problems: string[] }>;
  /** Leads in the portal's database, read through a separate connection. */
  leadCount(): number;
  /** The published property of the portal's database with this code, as the oracle sees it. */
  publishedByCode(code: string): { id: string; title: string } | null;
  close(): void;
}

function idsOf(path: string): Ids {
  const db = new Database(path, { readonly: true });
  const one = (sql: string) => (db.query(sql).values()[0]?.[0] as string | undefined) ?? "none";
  const ids = {
    property: one("SELECT id FROM properties WHERE is_published = 1 ORDER BY id LIMIT 1"),
    unpublishedProperty: one("SELECT id FROM properties WHERE is_published = 0 ORDER BY id LIMIT 1"),
    lead: one("SELECT id FROM leads ORDER BY id LIMIT 1"),
    propertyCode: one("SELECT code FROM properties WHERE is_published = 1 AND code IS NOT NULL ORDER BY id LIMIT 1"),
    unpublishedCode: one(
      "SELECT code FROM properties p WHERE is_published = 0 AND code IS NOT NULL " +
        "AND NOT EXISTS (SELECT 1 FROM properties q WHERE q.code = p.code AND q.is_published = 1) ORDER BY id LIMIT 1",
    ),
  };
  db.close();
  return ids;
}

/** Path placeholders a generator may use; they become real ids of either tenant. */
export const PLACEHOLDERS = [
  ":ownProperty",
  ":ownLead",
  ":otherProperty",
  ":otherLead",
  ":unpublished",
  ":ownCode",
] as const;

/** Protected routes (by method and path pattern), for the Cache-Control check. */
function protectedRoute(t: TestApp, method: string, pathname: string): boolean {
  const m = method.toUpperCase() === "HEAD" ? "GET" : method.toUpperCase();
  return t.app.routes.some(
    (r) =>
      r.method === m &&
      r.path.startsWith("/v1/") &&
      r.path !== "/v1/auth/token" &&
      new RegExp(`^${r.path.replace(/:[^/]+/g, "[^/]+")}/?$`).test(pathname),
  );
}

function tamper(token: string, part: 0 | 1 | 2, at: number): string {
  const parts = token.split(".");
  const target = parts[part]!;
  const i = at % target.length;
  const replacement = target[i] === "A" ? "B" : "A";
  parts[part] = target.slice(0, i) + replacement + target.slice(i + 1);
  return parts.join(".");
}

export async function createFuzzTarget(): Promise<FuzzTarget> {
  const dataDir = mkdtempSync(join(tmpdir(), "pa-fuzz-"));
  // Different seeds: the two tenants must not share ids, or a cross-tenant read would look legal.
  const main = seededDatabase(dataDir, 120, 200, 42);
  const otherDb = seededDatabase(dataDir, 60, 80, 7);
  const portal = client("portal", { rateLimitPerMinute: UNREACHABLE_LIMIT });
  const other = client("other", { database: "other", rateLimitPerMinute: UNREACHABLE_LIMIT });
  const t = createTestApp({ clients: [portal.entry, other.entry], databases: { main, other: otherDb } });
  const tokens = { portal: await t.token(portal), other: await t.token(other) };
  const own = idsOf(main);
  const foreign = idsOf(otherDb);
  const counter = new Database(main, { readonly: true });
  const substitutions: Record<(typeof PLACEHOLDERS)[number], string> = {
    ":ownProperty": own.property,
    ":ownLead": own.lead,
    ":otherProperty": foreign.property,
    ":otherLead": foreign.lead,
    ":unpublished": own.unpublishedProperty,
    ":ownCode": own.propertyCode,
  };

  const authorization = (auth: AuthSpec): string | null => {
    switch (auth.kind) {
      case "none":
        return null;
      case "valid":
        return `Bearer ${tokens.portal}`;
      case "otherTenant":
        return `Bearer ${tokens.other}`;
      case "tampered":
        return `Bearer ${tamper(tokens.portal, auth.part, auth.at)}`;
      case "raw":
        return auth.value;
    }
  };

  const send = async (spec: RequestSpec) => {
    let path = spec.path;
    for (const [name, value] of Object.entries(substitutions)) path = path.replaceAll(name, value);
    const headers = new Headers();
    for (const [name, value] of spec.headers) headers.append(name, value);
    const auth = authorization(spec.auth);
    if (auth !== null) headers.set("authorization", auth);
    headers.set(PEER_HEADER, spec.peer ?? "203.0.113.10");
    const body = canHaveBody(spec.method) ? bodyInit(spec.body) : null;
    const request = new Request(`http://localhost${path}`, {
      method: spec.method,
      headers,
      body,
      ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
    } as RequestInit);
    const response = await t.app.handle(request);
    const observed: Observed = {
      method: request.method,
      status: response.status,
      headers: response.headers,
      body: await response.text(),
    };
    const bodyText =
      spec.body.kind === "text" ? spec.body.text : spec.body.kind === "chunked" ? spec.body.chunks.join("") : "";
    const problems = violations(observed, {
      echo: echoOf(request.url, [...headers], bodyText),
      protectedRoute: protectedRoute(t, request.method, new URL(request.url).pathname),
    });
    if (problems.length > 0)
      problems.push(`request: ${describeSpec(spec)}`, `response: ${observed.status} ${observed.body.slice(0, 300)}`);
    return { observed, problems };
  };

  return {
    t,
    tokens,
    own,
    other: foreign,
    send,
    leadCount: () => counter.query("SELECT count(*) FROM leads").values()[0]![0] as number,
    publishedByCode: (code) =>
      counter
        .query<{ id: string; title: string }, [string]>(
          "SELECT id, title FROM properties WHERE code = ? AND is_published = 1",
        )
        .get(code),
    close() {
      counter.close();
      t.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
