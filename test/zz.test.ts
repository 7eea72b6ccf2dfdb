import { test, expect } from "bun:test";
import { Database } from "bun:sqlite";
import { client, createTestApp } from "./helpers/app.ts";
import { fetchFeed } from "./modules/portal-feed/helpers.ts";
test("unread body, writes, then close", async () => {
  const portal = client("portal");
  const t = createTestApp({ clients: [portal.entry], properties: 50, leads: 5 });
  const r = await fetchFeed(t, portal);
  expect(r.status).toBe(200);
  const db = new Database(t.runtime.config.databases.get("main")!);
  db.run("UPDATE properties SET title = title || 'x'");
  db.close();
  const r2 = await fetchFeed(t, portal);
  await r2.text();
  const started = performance.now();
  t.close();
  console.log("close took", performance.now() - started);
});
