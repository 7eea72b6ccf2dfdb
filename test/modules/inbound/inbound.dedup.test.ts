// Never twice: a portal's lead id, for one client, makes one lead at any later time and however
// many posts of it are in flight together (docs/operators/portal-leads.md), checked against our
// own reading of the database file.
import { afterEach, describe, expect, test } from "bun:test";
import { CHAVESNAMAO_EXAMPLE, GRUPOZAP_EXAMPLE } from "../../../src/modules/inbound/model.ts";
import { hashSecret } from "../../../src/security/secrets.ts";
import { client, createTestApp, read, type TestApp } from "../../helpers/app.ts";
import { CNM_AUTH, cnm, DatabaseFile, ZAP_AUTH, ZAP_PASSWORD, zap } from "./helpers.ts";

let t: TestApp;
let file: DatabaseFile;
afterEach(() => {
  file?.close();
  t?.close();
});

function start(clients = [zap.entry, cnm.entry]) {
  t = createTestApp({ clients });
  file = new DatabaseFile(t.runtime.config.databases.get("main")!);
}

const post = (app: TestApp, clientId: string, authorization: string, body: unknown) =>
  app.request(`/v1/inbound/${clientId}`, {
    method: "POST",
    headers: { authorization, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

describe("a repeat of a portal lead id answers 200 with the first lead's id and creates nothing", () => {
  test("an hour, a day and a month later (the clock moved), whatever else the repeat carries", async () => {
    start();
    const first = await read(await post(t, "zap", ZAP_AUTH, GRUPOZAP_EXAMPLE));
    expect(first.status).toBe(201);
    const count = file.count();
    for (const later of [60 * 60 * 1000, 24 * 60 * 60 * 1000, 30 * 24 * 60 * 60 * 1000]) {
      t.clock.advance(later);
      const again = await read(
        await post(t, "zap", ZAP_AUTH, { ...GRUPOZAP_EXAMPLE, message: "Reenviado", temperature: "Baixa" }),
      );
      expect({ later, status: again.status, body: again.body }).toEqual({
        later,
        status: 200,
        body: { data: { id: first.body.data.id } },
      });
    }
    expect(file.count()).toBe(count);
    const stored = file.leadsWithOrigin("zap", GRUPOZAP_EXAMPLE.originLeadId);
    expect(stored.map((l) => [l.id, l.message, l.priority])).toEqual([
      [first.body.data.id, GRUPOZAP_EXAMPLE.message, "HIGH"],
    ]);
  });

  test("for that client only: another client with the same portal lead id gets a lead of its own", async () => {
    const zap2 = client("zap2", {
      scopes: undefined,
      inbound: { format: "grupozap", username: "vivareal", passwordHash: hashSecret(ZAP_PASSWORD) },
    });
    start([zap.entry, zap2.entry, cnm.entry]);
    const a = await read(await post(t, "zap", ZAP_AUTH, GRUPOZAP_EXAMPLE));
    const b = await read(await post(t, "zap2", ZAP_AUTH, GRUPOZAP_EXAMPLE));
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.data.id).not.toBe(b.body.data.id);
    expect(file.lead(b.body.data.id)!.created_by).toBe("zap2");
  });

  test("numeric portal lead ids past 2^53 are kept digit for digit: neighbours are two leads", async () => {
    start();
    const raw = (clientId: string, authorization: string, text: string) =>
      t.request(`/v1/inbound/${clientId}`, {
        method: "POST",
        headers: { authorization, "content-type": "application/json" },
        body: text,
      });
    const cnmPost = (id: string) =>
      raw("cnm", CNM_AUTH, JSON.stringify({ ...CHAVESNAMAO_EXAMPLE, id: "ID" }).replace('"ID"', id));
    const zapPost = (id: string) =>
      raw("zap", ZAP_AUTH, JSON.stringify({ ...GRUPOZAP_EXAMPLE, originLeadId: "ID" }).replace('"ID"', id));
    for (const [post, client] of [
      [cnmPost, "cnm"],
      [zapPost, "zap"],
    ] as const) {
      const high = await read(await post("9007199254740993"));
      const low = await read(await post("9007199254740992"));
      const huge = await read(await post("123456789012345678901234567890"));
      expect({ client, statuses: [high.status, low.status, huge.status] }).toEqual({
        client,
        statuses: [201, 201, 201],
      });
      for (const [id, answer] of [
        ["9007199254740993", high],
        ["9007199254740992", low],
        ["123456789012345678901234567890", huge],
      ] as const) {
        expect({ client, id, stored: file.leadsWithOrigin(client, id).map((l) => l.id) }).toEqual({
          client,
          id,
          stored: [answer.body.data.id],
        });
      }
      const again = await read(await post("9007199254740993"));
      expect({ client, status: again.status, id: again.body.data.id }).toEqual({
        client,
        status: 200,
        id: high.body.data.id,
      });
    }
  });

  test("a refused post keeps nothing: the corrected resend makes the lead", async () => {
    start();
    expect((await post(t, "cnm", CNM_AUTH, { ...CHAVESNAMAO_EXAMPLE, name: null })).status).toBe(400);
    expect((await post(t, "cnm", CNM_AUTH, CHAVESNAMAO_EXAMPLE)).status).toBe(201);
    expect((await post(t, "cnm", CNM_AUTH, CHAVESNAMAO_EXAMPLE)).status).toBe(200);
    expect(file.leadsWithOrigin("cnm", CHAVESNAMAO_EXAMPLE.id)).toHaveLength(1);
  });

  test("a post without a portal lead id cannot be told from a new one: each makes a lead", async () => {
    start();
    const { originLeadId: _, ...anonymous } = GRUPOZAP_EXAMPLE;
    const before = file.count();
    expect((await post(t, "zap", ZAP_AUTH, anonymous)).status).toBe(201);
    expect((await post(t, "zap", ZAP_AUTH, anonymous)).status).toBe(201);
    expect(file.count()).toBe(before + 2);
  });
});

describe("posts in flight together never make two leads", () => {
  test("30 parallel posts of one lead: one 201, every other 200, all with its id, one row", async () => {
    start();
    const responses = await Promise.all(
      Array.from({ length: 30 }, () => post(t, "zap", ZAP_AUTH, GRUPOZAP_EXAMPLE).then(read)),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(29);
    expect(new Set(responses.map((r) => r.body.data.id)).size).toBe(1);
    const stored = file.leadsWithOrigin("zap", GRUPOZAP_EXAMPLE.originLeadId);
    expect(stored.map((l) => l.id)).toEqual([responses.find((r) => r.status === 201)!.body.data.id]);
  });

  test("parallel posts to two processes sharing the database file: one lead", async () => {
    start();
    const sibling = t.sibling();
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        post(i % 2 === 0 ? t : sibling, "cnm", CNM_AUTH, CHAVESNAMAO_EXAMPLE).then(read),
      ),
    );
    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    expect(responses.filter((r) => r.status === 200)).toHaveLength(19);
    expect(new Set(responses.map((r) => r.body.data.id)).size).toBe(1);
    expect(file.leadsWithOrigin("cnm", CHAVESNAMAO_EXAMPLE.id)).toHaveLength(1);
  });

  test("the unique index stands behind the check: a second row with the same client and portal id is refused by SQLite", async () => {
    start();
    const { body } = await read(await post(t, "zap", ZAP_AUTH, GRUPOZAP_EXAMPLE));
    const { Database } = await import("bun:sqlite");
    const db = new Database(t.runtime.config.databases.get("main")!);
    try {
      db.run("PRAGMA busy_timeout = 5000");
      expect(() =>
        db.run(
          "INSERT INTO leads (id, name, email, phone, message, source, status, priority, created_at, updated_at, created_by, origin_lead_id) " +
            "SELECT 'copy', name, email, phone, message, source, status, priority, created_at, updated_at, created_by, origin_lead_id FROM leads WHERE id = ?",
          [body.data.id],
        ),
      ).toThrow(/UNIQUE/);
    } finally {
      db.close();
    }
  });
});
