// Personal data under the LGPD on the compiled binary (docs/operators/personal-data.md): a
// person's leads created by two partners and pushed by a portal, delivered by webhooks to a real
// receiver, retried and replayed, one with an Idempotency-Key; found by e-mail in another case and
// by phone in three spellings; exported with every recipient and delivery; anonymized. Then the
// database file, its WAL and the control database are searched byte by byte for the person's
// e-mail, phone and name, and every client that was sent or may read a lead holds a signed
// `lead.anonymized`.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { totpCode } from "../../src/modules/admin/totp.ts";
import { GRUPOZAP_EXAMPLE } from "../../src/modules/inbound/model.ts";
import { hashSecret } from "../../src/security/secrets.ts";
import { binaryInNewFolder, type RunningBinary, startBinary } from "../helpers/binary.ts";
import { previousPeriodCode } from "../helpers/totp.ts";

setDefaultTimeout(120_000);

const NAME = "Maria Privacidade Souza";
const EMAIL = "Maria.Privacidade@Example.com";
const ZAP = { user: "vivareal", password: "secret-chosen-in-canal-pro-privacy" };
const PASSWORD = "a long pass phrase for the privacy test 9";

let dir: string;
let binary: string;
let db: string;
let config: string;
let server: RunningBinary;

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}
const received: Received[] = [];
let failFirstOf: string | null = "/portal-a";
const receiver = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    const path = new URL(request.url).pathname;
    received.push({ path, headers: Object.fromEntries(request.headers), body: await request.text() });
    // The first delivery to portal-a fails: it is retried.
    if (path === failFirstOf) {
      failFirstOf = null;
      return new Response("try later", { status: 500 });
    }
    return new Response("ok");
  },
});
const hook = (name: string) => `http://127.0.0.1:${receiver.port}/${name}`;

const client = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  apiKey: `pk_live_${id}_privacy`,
  secretHash: hashSecret(`sk_live_${id}_privacy`),
  database: "agency",
  rateLimitPerMinute: 100_000,
  ...extra,
});

beforeAll(async () => {
  ({ dir, binary } = binaryInNewFolder("pa-privacy-"));
  db = join(dir, "agency.sqlite");
  const seeded = Bun.spawnSync([binary, "seed", "--out", db, "--properties", "30", "--leads", "30"], { cwd: dir });
  if (seeded.exitCode !== 0) throw new Error(seeded.stderr.toString());
  config = join(dir, "config.json");
  writeFileSync(
    config,
    JSON.stringify({
      environment: "production",
      jwtSecret: "a-jwt-secret-long-enough-for-the-privacy-e2e-test",
      databases: { agency: db },
      webhooks: { allowHttp: true, allowPrivateTargets: true },
      clients: [
        client("portal-a"),
        client("portal-b"),
        client("crm", { scopes: ["leads:read", "leads:update", "webhooks"] }),
        client("zap", { inbound: { format: "grupozap", username: ZAP.user, passwordHash: hashSecret(ZAP.password) } }),
        // Reads only its own leads and created none of the person's: it is told nothing.
        client("other"),
        // Creates leads but reads none: it is told of the one it sent, with no record and no number.
        client("maker", { scopes: ["leads:create", "properties:read", "webhooks"] }),
      ],
    }),
  );
  server = await startBinary(binary, ["serve", "--config", config, "--host", "127.0.0.1"], dir);
}, 180_000);

afterAll(async () => {
  await server?.stop();
  receiver.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

const json = (method: string, body: unknown, headers: Record<string, string> = {}) => ({
  method,
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

async function call(path: string, init: RequestInit = {}) {
  const response = await fetch(`${server.url}${path}`, init);
  const text = await response.text();
  return { status: response.status, body: text === "" ? null : JSON.parse(text) };
}

async function partner(id: string): Promise<Record<string, string>> {
  const r = await call("/v1/auth/token", {
    method: "POST",
    headers: { "x-api-key": `pk_live_${id}_privacy`, "x-api-secret": `sk_live_${id}_privacy` },
  });
  expect(r.status).toBe(200);
  return { authorization: `Bearer ${r.body.data.token}` };
}

/** `admin new` → set-up → sign-in on the binary, then admin API tokens of each role. */
async function adminTokens(): Promise<{ admin: Record<string, string>; viewer: Record<string, string> }> {
  const made = Bun.spawnSync(
    [binary, "admin", "new", "--config", config, "--email", "owner@agency.example", "--role", "owner"],
    { cwd: dir },
  );
  expect(made.exitCode).toBe(0);
  const token = made.stdout.toString().match(/http\S+\/console\/setup\/(\S+)/)![1]!;
  const setup = await call("/admin/v1/setup", json("POST", { token, password: PASSWORD }));
  expect(setup.status).toBe(200);
  const secret = setup.body.data.totpSecret as string;
  const confirm = await call(
    "/admin/v1/setup/confirm",
    json("POST", { token, code: await previousPeriodCode(secret) }),
  );
  expect(confirm.status).toBe(200);
  const signIn = await fetch(
    `${server.url}/admin/v1/sessions`,
    json("POST", { email: "owner@agency.example", password: PASSWORD, code: await totpCode(secret, Date.now()) }),
  );
  expect(signIn.status).toBe(201);
  const session = {
    cookie: signIn.headers.get("set-cookie")!.split(";")[0]!,
    "x-csrf-token": ((await signIn.json()) as { data: { csrfToken: string } }).data.csrfToken,
  };
  const tokenOf = async (role: string) => {
    const r = await call("/admin/v1/tokens", json("POST", { name: `privacy ${role}`, role }, session));
    expect(r.status).toBe(201);
    return { authorization: `Bearer ${r.body.data.token}` };
  };
  return { admin: await tokenOf("admin"), viewer: await tokenOf("viewer") };
}

async function until<T>(what: string, probe: () => T | null | undefined, withinMs = 30_000): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = probe();
    if (value !== null && value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(100);
  }
}

const events = (path: string, type: string) =>
  received.filter((r) => r.path === path && (JSON.parse(r.body) as { type: string }).type === type);

/** Every place in `bytes` where `needle` (UTF-8, compared case-insensitively for ASCII letters) occurs. */
function hits(bytes: Buffer, needle: string): number {
  const lower = Buffer.from(bytes.toString("latin1").toLowerCase(), "latin1");
  const target = Buffer.from(needle.toLowerCase(), "utf8");
  let n = 0;
  for (let at = lower.indexOf(target); at !== -1; at = lower.indexOf(target, at + 1)) n++;
  return n;
}

describe("a person's leads, from creation to nothing left", () => {
  const secrets = new Map<string, string>();
  const leadIds: string[] = [];
  let tokens: { admin: Record<string, string>; viewer: Record<string, string> };

  test("two partners and a portal create the person's leads; webhooks deliver, retry and replay them", async () => {
    tokens = await adminTokens();
    for (const id of ["portal-a", "portal-b", "crm", "zap", "other"]) {
      const r = await call(
        "/v1/webhooks",
        json("POST", { url: hook(id), events: ["lead.created", "lead.updated"] }, await partner(id)),
      );
      expect(r.status).toBe(201);
      secrets.set(id, r.body.data.secret);
      secrets.set(`${id}:id`, r.body.data.id);
    }
    const lead = { name: NAME, message: "Quero visitar o apartamento.", source: "API" };
    const a = await partner("portal-a");
    const first = await call(
      "/v1/leads",
      json("POST", { ...lead, email: EMAIL, phone: "+55 (11) 98765-4321" }, { ...a, "idempotency-key": "privacy-1" }),
    );
    expect(first.status).toBe(201);
    leadIds.push(first.body.data.id);
    const second = await call(
      "/v1/leads",
      json("POST", { ...lead, email: EMAIL.toLowerCase(), phone: "011 98765 4321" }, await partner("portal-b")),
    );
    expect(second.status).toBe(201);
    leadIds.push(second.body.data.id);
    const zap = await fetch(`${server.url}/v1/inbound/zap`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Basic ${btoa(`${ZAP.user}:${ZAP.password}`)}`,
      },
      body: JSON.stringify({
        ...GRUPOZAP_EXAMPLE,
        originLeadId: "privacy-zap-1",
        name: NAME,
        email: EMAIL.toUpperCase(),
        ddd: "11",
        phone: "987654321",
        phoneNumber: "11987654321",
      }),
    });
    expect(zap.status).toBe(201);
    leadIds.push(((await zap.json()) as { data: { id: string } }).data.id);
    // A client that creates leads and reads none subscribes to what it reads: property events.
    const maker = await partner("maker");
    const makerHook = await call(
      "/v1/webhooks",
      json("POST", { url: hook("maker"), events: ["property.upserted"] }, maker),
    );
    expect(makerHook.status).toBe(201);
    secrets.set("maker", makerHook.body.data.secret);
    const made = await call("/v1/leads", json("POST", { ...lead, email: EMAIL, phone: "11987654321" }, maker));
    expect(made.status).toBe(201);
    leadIds.push(made.body.data.id);

    // crm reads every lead; each creator its own; portal-a's first attempt failed and was retried.
    await until("the deliveries", () => events("/crm", "lead.created").length >= 3);
    await until(
      "portal-b's and zap's",
      () => events("/portal-b", "lead.created").length >= 1 && events("/zap", "lead.created").length >= 1,
    );
    await until("portal-a's retry", () => events("/portal-a", "lead.created").length >= 2, 30_000);
    expect(events("/other", "lead.created")).toHaveLength(0);

    const replay = await call(
      `/v1/webhooks/${secrets.get("portal-a:id")}/replay`,
      json("POST", { after: 0 }, await partner("portal-a")),
    );
    expect(replay.status).toBe(202);
    await until("the replay", () => events("/portal-a", "lead.created").length >= 3);
  });

  test("bad input: no admin, a viewer, a partner token, an unknown database, nobody found", async () => {
    expect((await call("/admin/v1/privacy/people?database=agency&email=x@example.com")).status).toBe(401);
    const asPartner = await call("/admin/v1/privacy/people?database=agency&email=x@example.com", {
      headers: await partner("crm"),
    });
    expect(asPartner.status).toBe(401);
    const asViewer = await call("/admin/v1/privacy/people?database=agency&email=x@example.com", {
      headers: tokens.viewer,
    });
    expect(asViewer.status).toBe(403);
    const unknown = await call("/admin/v1/privacy/people?database=nope&email=x@example.com", { headers: tokens.admin });
    expect(unknown.status).toBe(400);
    expect(unknown.body.code).toBe("VALIDATION_ERROR");
    const nobody = await call("/admin/v1/privacy/people?database=agency&email=nobody@example.com", {
      headers: tokens.admin,
    });
    expect(nobody).toEqual({ status: 200, body: { data: [] } });
    const otherDatabase = await call("/admin/v1/leads/nope/x", json("PATCH", { name: "X" }, tokens.admin));
    expect(otherDatabase.status).toBe(400);
  });

  test("found by e-mail in another case and by phone in three spellings", async () => {
    const byEmail = await call(
      `/admin/v1/privacy/people?database=agency&email=${encodeURIComponent("MARIA.privacidade@EXAMPLE.com")}`,
      { headers: tokens.admin },
    );
    expect(byEmail.status).toBe(200);
    expect((byEmail.body.data as { id: string }[]).map((l) => l.id).sort()).toEqual([...leadIds].sort());
    for (const phone of ["+55 11 98765-4321", "(011) 98765-4321", "11987654321"]) {
      const r = await call(`/admin/v1/privacy/people?database=agency&phone=${encodeURIComponent(phone)}`, {
        headers: tokens.admin,
      });
      expect(r.status).toBe(200);
      expect((r.body.data as { id: string }[]).map((l) => l.id).sort()).toEqual([...leadIds].sort());
    }
  });

  test("the export names every recipient and every delivery", async () => {
    const exportNow = () =>
      call(`/admin/v1/privacy/export?database=agency&email=${encodeURIComponent(EMAIL)}`, { headers: tokens.admin });
    // A receiver has a body before the server has recorded its answer: wait for no delivery pending.
    let r = await exportNow();
    for (let tries = 0; tries < 50 && JSON.stringify(r.body).includes('"outcome":"pending'); tries++) {
      await Bun.sleep(200);
      r = await exportNow();
    }
    expect(r.status).toBe(200);
    const exported = r.body.data.leads as {
      lead: { id: string; email: string; createdBy: string };
      sharedWith: {
        createdBy: string;
        readers: string[];
        deliveries: { clientId: string; event: string; outcome: string }[];
      };
    }[];
    const byId = new Map(exported.map((e) => [e.lead.id, e]));
    const creators = ["portal-a", "portal-b", "zap", "maker"];
    leadIds.forEach((id, i) => {
      const entry = byId.get(id)!;
      expect(entry.sharedWith.createdBy).toBe(creators[i]!);
      // The maker reads no lead, so neither reads nor is sent its own.
      const readers = creators[i] === "maker" ? ["crm"] : ["crm", creators[i]!].sort();
      expect(entry.sharedWith.readers).toEqual(readers);
      const to = new Set(entry.sharedWith.deliveries.map((d) => d.clientId));
      expect(to).toEqual(new Set(readers));
    });
    const a = byId.get(leadIds[0]!)!.sharedWith.deliveries.filter((d) => d.clientId === "portal-a");
    // The delivery retried after a 500, and the replay's.
    expect(a.length).toBeGreaterThanOrEqual(2);
    expect(a.every((d) => d.outcome.startsWith("succeeded"))).toBe(true);
  });

  test("a request in the register keeps the identifier while open, a digest once completed", async () => {
    const made = await call(
      "/admin/v1/privacy/requests",
      json("POST", { kind: "anonymization", database: "agency", email: EMAIL }, tokens.admin),
    );
    expect(made.status).toBe(201);
    expect(made.body.data.email).toBe(EMAIL.toLowerCase());
    const due = Date.parse(made.body.data.dueAt) - Date.parse(made.body.data.receivedAt);
    expect(due).toBe(15 * 24 * 3600_000);
    const anonymized = await call(
      "/admin/v1/privacy/anonymize",
      json("POST", { database: "agency", email: EMAIL.toUpperCase() }, tokens.admin),
    );
    expect(anonymized).toEqual({ status: 200, body: { data: { anonymized: leadIds.length } } });
    const done = await call(
      `/admin/v1/privacy/requests/${made.body.data.id}`,
      json("PATCH", { status: "completed" }, tokens.admin),
    );
    expect(done.status).toBe(200);
    expect(done.body.data).toMatchObject({ status: "completed", email: null, phone: null });
    expect(done.body.data.handledBy).toStartWith("token:");
  });

  test("every client that was sent or may read a lead gets lead.anonymized, signed", async () => {
    const expected: [string, string[]][] = [
      ["portal-a", [leadIds[0]!]],
      ["portal-b", [leadIds[1]!]],
      ["zap", [leadIds[2]!]],
      ["crm", leadIds],
    ];
    for (const [id, leads] of expected) {
      const got = await until(`${id}'s lead.anonymized`, () => {
        const list = events(`/${id}`, "lead.anonymized");
        return list.length >= leads.length ? list : null;
      });
      const wh = new Webhook(secrets.get(id)!);
      const ids = got.map((delivery) => {
        const payload = wh.verify(delivery.body, delivery.headers) as { data: { id: string; record: any } };
        expect(payload.data.record).toMatchObject({ name: "Titular anonimizado", email: "", phone: "", message: "" });
        return payload.data.id;
      });
      expect(ids.sort()).toEqual([...leads].sort());
    }
    // The maker reads no lead: it learns the id of the one it sent, no record and no number of
    // a stream it does not read (0).
    const makers = await until("maker's lead.anonymized", () => {
      const list = events("/maker", "lead.anonymized");
      return list.length >= 1 ? list : null;
    });
    expect(makers).toHaveLength(1);
    const told = new Webhook(secrets.get("maker")!).verify(makers[0]!.body, makers[0]!.headers) as {
      data: { sequence: number; id: string; record: unknown };
    };
    expect(told.data).toEqual({ sequence: 0, id: leadIds[3]!, record: null });
    await Bun.sleep(1000);
    expect(events("/other", "lead.anonymized")).toHaveLength(0);
    // The anonymization is told as lead.anonymized only, never as a lead.updated too.
    for (const id of ["portal-a", "portal-b", "crm", "zap"]) expect(events(`/${id}`, "lead.updated")).toHaveLength(0);
  });

  test("the lead reads anonymized, the change feed shows it, the idempotent replay answers it", async () => {
    const crm = await partner("crm");
    const read = await call(`/v1/leads/${leadIds[0]}?fields=id,name,email,phone,message`, { headers: crm });
    expect(read.body.data).toMatchObject({ name: "Titular anonimizado", email: "", phone: "", message: "" });
    const feed = await call("/v1/changes?entity=leads&limit=1000", { headers: crm });
    const last = new Map<string, number>();
    for (const entry of feed.body.data as { id: string; sequence: number }[]) last.set(entry.id, entry.sequence);
    for (const id of leadIds) expect(last.get(id)).toBeGreaterThan(0);
    const again = await call(
      "/v1/leads",
      json(
        "POST",
        {
          name: NAME,
          message: "Quero visitar o apartamento.",
          source: "API",
          email: EMAIL,
          phone: "+55 (11) 98765-4321",
        },
        { ...(await partner("portal-a")), "idempotency-key": "privacy-1" },
      ),
    );
    expect(again.body.data).toMatchObject({ id: leadIds[0], name: "Titular anonimizado", email: "" });
  });

  test("no byte of the e-mail, the phone or the name is left in the files", async () => {
    // The replay above wrote nothing of the person (it answers the stored, anonymized answer).
    const files = [db, `${db}-wal`, join(dir, "control.sqlite"), join(dir, "control.sqlite-wal")].filter(existsSync);
    expect(files.length).toBeGreaterThanOrEqual(2);
    for (const file of files) {
      const bytes = readFileSync(file);
      for (const needle of ["privacidade@example", "Privacidade Souza", "987654321", "98765-4321", "98765 4321"])
        expect({ file, needle, hits: hits(bytes, needle) }).toEqual({ file, needle, hits: 0 });
    }
  });
});

describe("the command line: partner-api privacy find|export|anonymize --db FILE", () => {
  test("finds by phone, exports, anonymizes with nothing left in the file", async () => {
    const file = join(dir, "offline.sqlite");
    const seeded = Bun.spawnSync([binary, "seed", "--out", file, "--properties", "5", "--leads", "5"], { cwd: dir });
    expect(seeded.exitCode).toBe(0);
    const { Database } = await import("bun:sqlite");
    const sqlite = new Database(file);
    for (const [id, phone] of <[string, string][]>[
      ["cli-1", "(21) 99876-5432"],
      ["cli-2", "+55 021 998765432"],
    ])
      sqlite
        .query(
          "INSERT INTO leads (id, name, email, phone, message, source, status, priority, created_at, updated_at, created_by) " +
            "VALUES (?, 'Joana Linha Comando', 'joana.cli@example.com', ?, 'Oi', 'API', 'NEW_LEAD', 'MEDIUM', " +
            "'2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 'portal-a')",
        )
        .run(id, phone);
    sqlite.close();
    const run = (...args: string[]) => {
      const result = Bun.spawnSync([binary, "privacy", ...args], { cwd: dir });
      return { code: result.exitCode, out: result.stdout.toString(), err: result.stderr.toString() };
    };
    const found = run("find", "--db", file, "--phone", "21998765432");
    expect(found.code).toBe(0);
    expect((JSON.parse(found.out).data as { id: string }[]).map((l) => l.id).sort()).toEqual(["cli-1", "cli-2"]);
    const exported = run("export", "--db", file, "--email", "JOANA.CLI@example.com", "--config", config);
    expect(exported.code).toBe(2); // the config serves agency.sqlite, not this file
    const plain = run("export", "--db", file, "--email", "JOANA.CLI@example.com");
    expect(JSON.parse(plain.out).data.leads[0].sharedWith).toEqual({
      createdBy: "portal-a",
      readers: [],
      deliveries: [],
    });
    expect(run("find", "--db", file).code).toBe(2);
    const anonymized = run("anonymize", "--db", file, "--email", "joana.cli@example.com", "--json");
    expect(anonymized.code).toBe(0);
    expect(JSON.parse(anonymized.out)).toEqual({ anonymized: 2, walCleared: true });
    for (const path of [file, `${file}-wal`].filter(existsSync)) {
      const bytes = readFileSync(path);
      for (const needle of ["joana.cli", "Linha Comando", "99876-5432", "998765432"])
        expect(hits(bytes, needle)).toBe(0);
    }
  });
});
