// GET /v1/changes (docs/reference/behaviour-extensions.md §11): a partner that follows the feed ends with exactly the
// published set, whatever another connection does to the file.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CHANGES_PAGE_SQL } from "../../../src/modules/changes/service.ts";
import { client, createTestApp, read, type TestApp } from "../../helpers/app.ts";

const portal = client("portal");
let t: TestApp;
let token: string;
let path: string;

beforeAll(async () => {
  t = createTestApp({ clients: [portal.entry], properties: 120, leads: 50 });
  token = await t.token(portal);
  path = t.runtime.config.databases.get("main")!;
});
afterAll(() => t.close());

interface Change {
  sequence: number;
  entity: string;
  id: string;
  change: "upsert" | "remove";
  at: string;
}

/** Follows the feed from `after` to its end, applying each change to `copy`. */
async function follow(entity: string, after: number, copy: Set<string>): Promise<number> {
  let cursor = after;
  for (;;) {
    const { status, body } = await read(await t.get(`/v1/changes?entity=${entity}&after=${cursor}&limit=37`, token));
    expect(status).toBe(200);
    let previous = cursor;
    for (const change of body.data as Change[]) {
      expect(change.sequence).toBeGreaterThan(previous);
      previous = change.sequence;
      expect(change.entity).toBe(entity);
      if (change.change === "upsert") copy.add(change.id);
      else copy.delete(change.id);
    }
    cursor = body.meta.nextAfter;
    if (!body.meta.hasMore) return cursor;
  }
}

const publishedIds = (db: Database) =>
  new Set(
    db
      .query("SELECT id FROM properties WHERE is_published = 1")
      .values()
      .map((r) => r[0] as string),
  );

describe("following the feed", () => {
  test("from 0, then through creates, updates, unpublishes and deletes by another connection", async () => {
    const db = new Database(path);
    const copy = new Set<string>();
    let cursor = await follow("properties", 0, copy);
    expect(copy).toEqual(publishedIds(db));

    const [a, b, c] = db
      .query("SELECT id FROM properties WHERE is_published = 1 LIMIT 3")
      .values()
      .map((r) => r[0] as string);
    const hidden = db.query("SELECT id FROM properties WHERE is_published = 0 LIMIT 1").values()[0]![0] as string;
    db.run("UPDATE properties SET title = 'Novo título', updated_at = '2026-02-01T00:00:00.000Z' WHERE id = ?", [a!]);
    db.run("UPDATE properties SET is_published = 0 WHERE id = ?", [b!]);
    db.run("DELETE FROM properties WHERE id = ?", [c!]);
    db.run("UPDATE properties SET is_published = 1 WHERE id = ?", [hidden]);
    db.run(
      "INSERT INTO properties (id, code, title, description, operation_type, status, highlight, exclusive, is_published, created_at, updated_at) " +
        "VALUES ('new-1', 'NEW-1', 'Casa nova', 'd', 'SALE', 'AVAILABLE', 'STANDARD', 0, 1, '2026-02-01T00:00:00.000Z', '2026-02-01T00:00:00.000Z')",
    );

    const { body } = await read(await t.get(`/v1/changes?entity=properties&after=${cursor}`, token));
    const kinds = Object.fromEntries((body.data as Change[]).map((ch) => [ch.id, ch.change]));
    expect(kinds).toEqual({ [a!]: "upsert", [b!]: "remove", [c!]: "remove", [hidden]: "upsert", "new-1": "upsert" });

    cursor = await follow("properties", cursor, copy);
    expect(copy).toEqual(publishedIds(db));
    db.close();
  });

  test("an update that changes nothing readable writes no event", async () => {
    const db = new Database(path);
    const { body: before } = await read(await t.get("/v1/changes?entity=properties&after=0&limit=1", token));
    const id = db.query("SELECT id FROM properties WHERE is_published = 1 LIMIT 1").values()[0]![0] as string;
    db.run("UPDATE properties SET title = title WHERE id = ?", [id]);
    const { body: after } = await read(await t.get("/v1/changes?entity=properties&after=0&limit=1", token));
    expect(after.meta.head).toBe(before.meta.head);
    db.close();
  });

  test("lead changes have their own stream", async () => {
    const copy = new Set<string>();
    await follow("leads", 0, copy);
    const db = new Database(path, { readonly: true });
    expect(copy.size).toBe(db.query("SELECT count(*) FROM leads").values()[0]![0] as number);
    db.close();
  });
});

describe("sequences", () => {
  test("stay strictly increasing across a restart (a new runtime on the same file)", async () => {
    const { body: first } = await read(await t.get("/v1/changes?entity=leads&after=0&limit=1", token));
    const head = first.meta.head as number;
    const restarted = createTestApp({ clients: [portal.entry], databases: { main: path } });
    const response = await restarted.request("/v1/leads", {
      method: "POST",
      headers: { authorization: `Bearer ${await restarted.token(portal)}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "A", email: "a@example.com", phone: "1", message: "m" }),
    });
    expect(response.status).toBe(201);
    const { body } = await read(await t.get(`/v1/changes?entity=leads&after=${head}`, token));
    expect(body.data).toHaveLength(1);
    expect(body.data[0].sequence).toBeGreaterThan(head);
    restarted.runtime.close();
  });

  test("reading after the head is one index range probe", () => {
    const db = new Database(path, { readonly: true });
    const plan = db.query(`EXPLAIN QUERY PLAN ${CHANGES_PAGE_SQL}`).all("properties", 10, 100) as { detail: string }[];
    const details = plan.map((p) => p.detail);
    expect(details).toHaveLength(1); // no temp b-tree for ORDER BY, no other table
    expect(details[0]).toMatch(
      /^SEARCH changes USING (COVERING )?INDEX changes_entity_number \(entity=\? AND number>\?\)$/,
    );
    db.close();
  });
});

describe("validation, like the lists", () => {
  test("entity, after and limit are checked together", async () => {
    const { status, body } = await read(await t.get("/v1/changes?entity=users&after=-1&limit=1001", token));
    expect(status).toBe(400);
    expect(body.error).toBe(
      "entity: must be one of: properties, leads; after: must be an integer greater than or equal to 0; limit: must be an integer between 1 and 1000",
    );
  });

  test("an empty page past the head keeps the cursor", async () => {
    const { body } = await read(await t.get("/v1/changes?entity=properties&after=99999999", token));
    expect(body.data).toEqual([]);
    expect(body.meta).toMatchObject({ after: 99999999, nextAfter: 99999999, hasMore: false });
  });

  test("requires a token", async () => {
    expect((await t.request("/v1/changes?entity=leads")).status).toBe(401);
  });
});
