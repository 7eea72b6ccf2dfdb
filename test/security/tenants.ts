// Two agencies on one server for the OWASP tests: "portal" and its sibling "crm" share the main
// database, "rival" has its own (seeded differently, so no id is shared by accident).
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { client, createTestApp, seededDatabase, type TestApp } from "../helpers/app.ts";

export const portal = client("portal", { rateLimitPerMinute: 100_000 });
export const crm = client("crm", { rateLimitPerMinute: 100_000 });
export const rival = client("rival", { database: "rival", rateLimitPerMinute: 100_000 });

export interface Tenants {
  t: TestApp;
  tokens: { portal: string; crm: string; rival: string };
  mainPath: string;
  rivalPath: string;
  /** Every id of a table in a database, read through its own connection. */
  ids(path: string, sql: string): Set<string>;
  close(): void;
}

export async function twoTenants(): Promise<Tenants> {
  const dataDir = mkdtempSync(join(tmpdir(), "pa-sec-"));
  const mainPath = seededDatabase(dataDir, 80, 120, 42);
  const rivalPath = seededDatabase(dataDir, 40, 60, 99);
  const t = createTestApp({
    clients: [portal.entry, crm.entry, rival.entry],
    databases: { main: mainPath, rival: rivalPath },
  });
  const tokens = { portal: await t.token(portal), crm: await t.token(crm), rival: await t.token(rival) };
  return {
    t,
    tokens,
    mainPath,
    rivalPath,
    ids(path, sql) {
      const db = new Database(path, { readonly: true });
      const ids = new Set(
        db
          .query(sql)
          .values()
          .map((row) => String(row[0])),
      );
      db.close();
      return ids;
    },
    close() {
      t.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export const LEAD = {
  name: "Ana Souza",
  email: "ana@example.com",
  phone: "+55 11 90000-0000",
  message: "Quero visitar",
};

/** POST /v1/leads; a string body is sent as it is (to carry keys like "__proto__"). */
export function postLead(
  t: TestApp,
  token: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return t.request("/v1/leads", {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}
