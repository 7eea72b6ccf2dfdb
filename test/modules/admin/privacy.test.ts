// Personal data in process (docs/operators/personal-data.md), with an injected clock: retention
// at start and daily, a correction, the folding of e-mails and phones, and the routes' refusals.
import { Database } from "bun:sqlite";
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { parseRetention, retentionCutoff } from "../../../src/config/retention.ts";
import { silentLogger } from "../../../src/logging.ts";
import { foldEmail, foldPhone } from "../../../src/modules/admin/privacy/identifiers.ts";
import { RetentionScheduler } from "../../../src/modules/admin/privacy/retention.ts";
import { type ConsoleApp, consoleApp, jsonInit, type Session } from "./helpers.ts";

setDefaultTimeout(30_000);

let t: ConsoleApp | null = null;
afterEach(() => {
  t?.close();
  t = null;
});

const DAY = 86_400_000;

function dbOf(app: ConsoleApp): Database {
  return new Database(app.runtime.config.databases.get("main")!);
}

/** A lead written as an import would, last updated at `updatedAt`. */
function insertLead(db: Database, id: string, updatedAt: number, email = `${id}@example.com`): void {
  const at = new Date(updatedAt).toISOString();
  db.query(
    "INSERT INTO leads (id, name, email, phone, message, source, status, priority, created_at, updated_at) " +
      "VALUES (?, ?, ?, '+55 11 91234-5678', 'Olá', 'API', 'NEW_LEAD', 'MEDIUM', ?, ?)",
  ).run(id, `Pessoa ${id}`, email, at, at);
}

const leadRow = (db: Database, id: string) =>
  db
    .query<{ name: string; email: string; phone: string; message: string }, [string]>(
      "SELECT name, email, phone, message FROM leads WHERE id = ?",
    )
    .get(id)!;

const ANONYMIZED = { name: "Titular anonimizado", email: "", phone: "", message: "" };

async function owner(app: ConsoleApp): Promise<Session> {
  const { email, secret } = await app.admin("owner@agency.example", "owner");
  return app.signIn(email, secret);
}

describe("identifiers", () => {
  test("a phone folds to its national digits in every common spelling", () => {
    for (const phone of [
      "+55 (11) 98765-4321",
      "011 98765 4321",
      "11987654321",
      "0055 11 98765-4321",
      "(011) 98765-4321",
    ])
      expect({ phone, folded: foldPhone(phone) }).toEqual({ phone, folded: "11987654321" });
    // A number that happens to start with 55 but is no country code keeps it.
    expect(foldPhone("55 3333-4444")).toBe("5533334444");
    expect(foldEmail("  João.Silva@Exemplo.COM ")).toBe("joão.silva@exemplo.com");
  });

  test("months are calendar months", () => {
    const period = parseRetention("24 months")!;
    expect(new Date(retentionCutoff(period, Date.parse("2027-03-31T10:00:00Z"))).toISOString()).toBe(
      "2025-03-31T10:00:00.000Z",
    );
    expect(
      new Date(retentionCutoff(parseRetention("1 month")!, Date.parse("2026-03-31T00:00:00Z"))).toISOString(),
    ).toBe("2026-02-28T00:00:00.000Z");
    expect(parseRetention("24 weeks")).toBeNull();
  });
});

describe("retention", () => {
  test("at start and then daily by the clock: expired leads anonymized, one updated yesterday kept", async () => {
    t = consoleApp();
    const now = t.clock.now();
    const db = dbOf(t);
    const cutoff = retentionCutoff(parseRetention("24 months")!, now);
    insertLead(db, "old", cutoff - DAY);
    insertLead(db, "yesterday", now - DAY);
    // Expires half a day after the next run's cutoff moves one day on.
    insertLead(db, "edge", cutoff + DAY / 2);
    const expiredAtStart = db
      .query<{ n: number }, [string]>("SELECT count(*) AS n FROM leads WHERE updated_at < ?")
      .get(new Date(cutoff).toISOString())!.n;
    expect(expiredAtStart).toBeGreaterThanOrEqual(1);

    t.reload({ retention: { main: { leads: "24 months" } }, metrics: { token: "metrics-token-of-the-privacy-test" } });
    const scheduler = new RetentionScheduler(t.runtime, silentLogger());
    await scheduler.tick();
    expect(leadRow(db, "old")).toEqual(ANONYMIZED);
    expect(leadRow(db, "yesterday").email).toBe("yesterday@example.com");
    expect(leadRow(db, "edge").email).toBe("edge@example.com");
    const audit = t.store.db
      .query<{ target: string; changes: string }, []>(
        "SELECT target, changes FROM audit_log WHERE action = 'privacy.retention'",
      )
      .all();
    expect(audit).toHaveLength(1);
    expect(JSON.parse(audit[0]!.changes).anonymized).toBe(expiredAtStart);

    // Within the same day nothing runs again.
    t.clock.advance(DAY / 4);
    await scheduler.tick();
    expect(leadRow(db, "edge").email).toBe("edge@example.com");

    t.clock.advance(DAY);
    const nextCutoff = new Date(retentionCutoff(parseRetention("24 months")!, t.clock.now())).toISOString();
    const expiredNext = db
      .query<{ n: number }, [string, string]>("SELECT count(*) AS n FROM leads WHERE updated_at < ? AND name <> ?")
      .get(nextCutoff, ANONYMIZED.name)!.n;
    expect(expiredNext).toBeGreaterThanOrEqual(1);
    await scheduler.tick();
    expect(leadRow(db, "edge")).toEqual(ANONYMIZED);
    expect(leadRow(db, "yesterday").email).toBe("yesterday@example.com");
    const scrape = await t.request("/metrics", {
      headers: { authorization: "Bearer metrics-token-of-the-privacy-test" },
    });
    const metrics = await scrape.text();
    expect(metrics).toContain(
      `partner_api_leads_anonymized_total{database="main",reason="retention"} ${expiredAtStart + expiredNext}`,
    );
    db.close();
  });

  test("without a retention period nothing expires", async () => {
    t = consoleApp();
    const db = dbOf(t);
    insertLead(db, "ancient", Date.parse("2001-01-01T00:00:00Z"));
    await new RetentionScheduler(t.runtime, silentLogger()).tick();
    expect(leadRow(db, "ancient").email).toBe("ancient@example.com");
    db.close();
  });

  test("a retention period naming no database is refused with the config's other problems", () => {
    t = consoleApp();
    expect(() => t!.reload({ retention: { nope: { leads: "24 months" } } })).toThrow(/retention\/nope/);
    expect(() => t!.reload({ retention: { main: { leads: "forever" } } })).toThrow();
  });
});

describe("correction", () => {
  test("an admin corrects a lead: the change log has it, the audit names the fields only", async () => {
    t = consoleApp();
    const session = await owner(t);
    const db = dbOf(t);
    insertLead(db, "to-fix", t.clock.now() - DAY, "wrong@example.com");
    const before = db.query<{ n: number }, []>("SELECT max(sequence) AS n FROM changes").get()!.n;
    const r = await session.call("/admin/v1/leads/main/to-fix", jsonInit("PATCH", { email: "right@example.com" }));
    expect(r.status).toBe(200);
    const body = (await r.json()) as { data: { email: string; name: string } };
    expect(body.data).toMatchObject({ email: "right@example.com", name: "Pessoa to-fix" });
    const entries = db
      .query<{ record_id: string; lead_update: number }, [number]>(
        "SELECT record_id, lead_update FROM changes WHERE sequence > ?",
      )
      .all(before);
    expect(entries).toEqual([{ record_id: "to-fix", lead_update: 1 }]);
    const audit = t.store.db
      .query<{ changes: string }, []>("SELECT changes FROM audit_log WHERE action = 'privacy.correct'")
      .get()!;
    expect(JSON.parse(audit.changes)).toEqual({ fields: ["email"] });
    expect(audit.changes).not.toContain("right@example.com");

    const missing = await session.call("/admin/v1/leads/main/no-such-lead", jsonInit("PATCH", { name: "X" }));
    expect(missing.status).toBe(404);
    const bad = await session.call(
      "/admin/v1/leads/main/to-fix",
      jsonInit("PATCH", { email: "not an e-mail", id: "x" }),
    );
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toContain("email:");
    db.close();
  });

  test("a viewer reads no personal data and changes nothing; an admin of another database neither", async () => {
    t = consoleApp();
    await owner(t);
    const viewer = await t.admin("viewer@agency.example", "viewer");
    const v = await t.signIn(viewer.email, viewer.secret);
    expect((await v.call("/admin/v1/privacy/people?database=main&email=a@example.com")).status).toBe(403);
    expect(
      (await v.call("/admin/v1/privacy/anonymize", jsonInit("POST", { database: "main", email: "a@example.com" })))
        .status,
    ).toBe(403);
    const elsewhere = await t.admin("other@agency.example", "admin", ["elsewhere"]);
    const e = await t.signIn(elsewhere.email, elsewhere.secret);
    expect((await e.call("/admin/v1/privacy/people?database=main&email=a@example.com")).status).toBe(403);
    expect((await e.call("/admin/v1/privacy/requests")).status).toBe(200);
  });
});

describe("anonymization through the admin API", () => {
  test("by lead ids: unknown ids count for nothing, a second time changes nothing", async () => {
    t = consoleApp();
    const session = await owner(t);
    const db = dbOf(t);
    insertLead(db, "one", t.clock.now());
    const first = await session.call(
      "/admin/v1/privacy/anonymize",
      jsonInit("POST", { database: "main", leadIds: ["one", "not-a-lead"] }),
    );
    expect(await first.json()).toEqual({ data: { anonymized: 1 } });
    expect(leadRow(db, "one")).toEqual(ANONYMIZED);
    const again = await session.call(
      "/admin/v1/privacy/anonymize",
      jsonInit("POST", { database: "main", leadIds: ["one"] }),
    );
    expect(await again.json()).toEqual({ data: { anonymized: 0 } });
    const both = await session.call(
      "/admin/v1/privacy/anonymize",
      jsonInit("POST", { database: "main", email: "a@example.com", leadIds: ["one"] }),
    );
    expect(both.status).toBe(400);
    const marks = db.query<{ lead_id: string }, []>("SELECT lead_id FROM lead_anonymizations").all();
    expect(marks).toEqual([{ lead_id: "one" }]);
    db.close();
  });

  test("the register: 15 days to answer, overdue ones stand out, closed ones keep a digest only and never reopen", async () => {
    t = consoleApp();
    const { email, secret } = await t.admin("owner@agency.example", "owner");
    let session = await t.signIn(email, secret);
    const made = await session.call(
      "/admin/v1/privacy/requests",
      jsonInit("POST", { kind: "access", database: "main", phone: "+55 11 98765-4321" }),
    );
    expect(made.status).toBe(201);
    const { data } = (await made.json()) as { data: { id: number; overdue: boolean; phone: string } };
    expect(data).toMatchObject({ overdue: false, phone: "+55 11 98765-4321" });
    t.clock.advance(16 * DAY);
    session = await t.signIn(email, secret);
    const list = (await (await session.call("/admin/v1/privacy/requests")).json()) as { data: { overdue: boolean }[] };
    expect(list.data[0]!.overdue).toBe(true);
    const closed = await session.call(
      `/admin/v1/privacy/requests/${data.id}`,
      jsonInit("PATCH", { status: "completed" }),
    );
    expect(((await closed.json()) as { data: unknown }).data).toMatchObject({
      status: "completed",
      phone: null,
      overdue: false,
    });
    const reopen = await session.call(`/admin/v1/privacy/requests/${data.id}`, jsonInit("PATCH", { status: "open" }));
    expect(reopen.status).toBe(409);
    const bad = await session.call(
      "/admin/v1/privacy/requests",
      jsonInit("POST", { kind: "gossip", database: "main" }),
    );
    expect(bad.status).toBe(400);
  });
});

describe("the marks of anonymizations", () => {
  test("are dropped by the daily pass once compaction removed their change-log entry", async () => {
    t = consoleApp();
    const session = await owner(t);
    const db = dbOf(t);
    insertLead(db, "compacted", t.clock.now());
    await session.call("/admin/v1/privacy/anonymize", jsonInit("POST", { database: "main", leadIds: ["compacted"] }));
    const mark = db.query<{ sequence: number }, []>("SELECT sequence FROM lead_anonymizations").get()!;
    // A later change of the lead supersedes the anonymization's entry; compaction deletes it.
    db.query("UPDATE leads SET status = 'IN_SERVICE' WHERE id = 'compacted'").run();
    await new RetentionScheduler(t.runtime, silentLogger()).tick();
    expect(db.query("SELECT count(*) AS n FROM lead_anonymizations").get()).toEqual({ n: 1 });
    db.query("DELETE FROM changes WHERE sequence = ?").run(mark.sequence);
    t.clock.advance(DAY);
    const scheduler = new RetentionScheduler(t.runtime, silentLogger());
    await scheduler.tick();
    expect(db.query("SELECT count(*) AS n FROM lead_anonymizations").get()).toEqual({ n: 0 });
    db.close();
  });
});
