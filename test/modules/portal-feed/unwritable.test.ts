// The listings the writer cannot write, kept per database from the change log (unwritable.ts):
// after any mix of writes, the kept answer is what a full pass over the database finds.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { listingOfProjection } from "../../../src/agency/rows.ts";
import { PROPERTY_FIELDS } from "../../../src/catalog/properties.ts";
import { projection } from "../../../src/catalog/sql.ts";
import { TenantRegistry } from "../../../src/db/tenants.ts";
import { unwritableReason } from "../../../src/formats/vrsync/writer.ts";
import { ReadSnapshot } from "../../../src/modules/portal-feed/snapshot.ts";
import { UnwritableListings } from "../../../src/modules/portal-feed/unwritable.ts";
import { tempDir } from "../../agency/helpers.ts";
import { FakeClock, seededDatabase } from "../../helpers/app.ts";

const dir = tempDir();
let path: string;
let tenants: TenantRegistry;
beforeAll(() => {
  path = seededDatabase(dir.path(""), 200, 10);
  tenants = new TenantRegistry(new FakeClock());
});
afterAll(() => {
  tenants.closeAll();
  dir.cleanup();
});

/** What the writer refuses, listing by listing, read straight from the file. */
function bruteForce(): Set<string> {
  const db = new Database(path, { readonly: true });
  const rows = db
    .query<{ id: string; json: string }, []>(
      `SELECT p.id AS id, ${projection(PROPERTY_FIELDS, "stored")} AS json FROM properties p WHERE p.is_published = 1`,
    )
    .all();
  db.close();
  return new Set(
    rows
      .filter(({ id, json }) => {
        const { listing } = listingOfProjection(json);
        return unwritableReason({ ...listing, code: listing.code ?? id }) !== null;
      })
      .map((row) => row.id),
  );
}

async function answer(kept: UnwritableListings): Promise<Set<string>> {
  const snapshot = ReadSnapshot.open(path, tenants);
  try {
    return new Set(await kept.at(snapshot.db, snapshot.head));
  } finally {
    snapshot.release();
  }
}

function write(sql: string, ...params: string[]): void {
  const db = new Database(path);
  db.run(sql, params);
  db.close();
}

const ids = (where: string, limit: number) => {
  const db = new Database(path, { readonly: true });
  const found = db
    .query<{ id: string }, []>(`SELECT id FROM properties WHERE ${where} ORDER BY id LIMIT ${limit}`)
    .all()
    .map((r) => r.id);
  db.close();
  return found;
};

describe("which listings cannot be written", () => {
  test("a first pass finds exactly the listings the writer refuses", async () => {
    const [a, b, c] = ids("is_published = 1", 3);
    write("UPDATE properties SET title = '' WHERE id = ?", a!);
    write("UPDATE properties SET city = 'São\x07Paulo' WHERE id = ?", b!);
    write("UPDATE photos SET url = url || char(27) WHERE property_id = ?", c!);
    const kept = new UnwritableListings();
    const found = await answer(kept);
    expect(found).toEqual(new Set([a!, b!, c!]));
    expect(found).toEqual(bruteForce());
  });

  test("kept up to date from the change log through breaks, fixes, unpublishing, deletion and publishing", async () => {
    const kept = new UnwritableListings();
    await answer(kept);
    const published = ids("is_published = 1", 12);
    const [hidden] = ids("is_published = 0", 1);
    write("UPDATE properties SET code = ? WHERE id = ?", "X".repeat(101), published[5]!);
    write("UPDATE properties SET description = 'tab\tok, bell\x07 not' WHERE id = ?", published[6]!);
    write("UPDATE properties SET amenities = '[\"Piscina\", 3]' WHERE id = ?", published[7]!);
    write("UPDATE properties SET title = 'Título de novo' WHERE title = ''");
    write("UPDATE properties SET is_published = 0 WHERE id = ?", published[8]!);
    write("DELETE FROM properties WHERE id = ?", published[9]!);
    write("UPDATE properties SET title = '  ' WHERE id = ?", hidden!); // not published: not in any feed
    expect(await answer(kept)).toEqual(bruteForce());
    write("UPDATE properties SET is_published = 1 WHERE id = ?", hidden!);
    write("UPDATE photos SET alt = 'ok' WHERE property_id = ?", published[2]!);
    const now = await answer(kept);
    expect(now).toEqual(bruteForce());
    expect(now.has(hidden!)).toBe(true);
    expect(now.has(published[5]!)).toBe(true);
    expect(now.has(published[0]!)).toBe(false); // its title was fixed above
  });

  test("a snapshot older than the kept answer gets its own answer and does not take the kept one back", async () => {
    const kept = new UnwritableListings();
    const old = ReadSnapshot.open(path, tenants);
    const [victim] = ids("is_published = 1 AND title <> ''", 1);
    write("UPDATE properties SET title = '' WHERE id = ?", victim!);
    const newer = await answer(kept);
    expect(newer.has(victim!)).toBe(true);
    const older = new Set(await kept.at(old.db, old.head));
    old.release();
    expect(older.has(victim!)).toBe(false);
    expect(await answer(kept)).toEqual(newer);
  });
});
