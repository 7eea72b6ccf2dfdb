// What a seeded file holds, as one hash per table: every row of every table the schema defines
// (the word index read as its list of terms and the listings holding each), the schema itself and
// the AUTOINCREMENT counters. Page layout, segment boundaries and planner statistics are left out:
// two ways of writing the same rows give the same fingerprint.
import { Database } from "bun:sqlite";

/** Tables whose bytes depend on how they were written, not on what they hold. */
const LAYOUT_TABLES = /^(sqlite_stat\d|property_words_(data|idx|config|docsize|content))$/;

function hash(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex").slice(0, 16);
}

/** `{ table: hash }` for every table of the file, plus `schema` and `words` (the word index's postings). */
export function fingerprint(path: string): Record<string, string> {
  const db = new Database(path, { readonly: true, strict: true });
  try {
    const out: Record<string, string> = {};
    const schema = db
      .query(
        "SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_autoindex%' ORDER BY name",
      )
      .values();
    out.schema = hash(JSON.stringify(schema));
    const tables = (
      db
        .query("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name")
        .values() as [string][]
    ).map(([name]) => name);
    for (const table of tables) {
      if (LAYOUT_TABLES.test(table)) continue;
      // Every column, generated ones too; rows in a fixed order whatever the rowids.
      const rows = db.query(`SELECT * FROM "${table}" ORDER BY ${orderOf(db, table)}`).values();
      out[table] = hash(JSON.stringify(rows));
    }
    // The word index as what it answers: every term with the sorted rowids of the listings
    // holding it. fts5vocab's 'instance' table lists exactly that for a detail=none index.
    db.run("CREATE VIRTUAL TABLE temp.words_vocab USING fts5vocab(main, property_words, 'instance')");
    const postings = db.query("SELECT term, doc FROM temp.words_vocab ORDER BY term, doc").values();
    out.words = hash(JSON.stringify(postings));
    out.word_count = String(postings.length);
    return out;
  } finally {
    db.close();
  }
}

/** Rowid order where the table has rowids, else every column. */
function orderOf(db: Database, table: string): string {
  const columns = db.query(`PRAGMA table_xinfo("${table}")`).all() as { name: string; pk: number }[];
  const withoutRowid = (
    db.query("SELECT sql FROM sqlite_master WHERE name = ?").get(table) as { sql: string }
  ).sql.match(/WITHOUT\s+ROWID/i);
  return withoutRowid ? columns.map((_, i) => String(i + 1)).join(", ") : "rowid";
}
