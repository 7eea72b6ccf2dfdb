// The agency console's admin API (docs/operators/console.md) on the compiled binary: `admin new`,
// set-up with a TOTP code, sign-in and its cookie, a partner made and used, and a disabled or
// deleted partner refused within one second by every worker of `serve --workers 2` with Redis.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { totpCode } from "../../src/modules/admin/totp.ts";
import { binaryInNewFolder, freePort, waitHealthy } from "../helpers/binary.ts";
import { REDIS_SERVER, startRedis, type TestRedis } from "../helpers/redis.ts";
import { previousPeriodCode } from "../helpers/totp.ts";

setDefaultTimeout(60_000);

let dir: string;
let binary: string;
let redis: TestRedis | null = null;
const started: ReturnType<typeof Bun.spawn>[] = [];
const PASSWORD = "a long pass phrase for the console 7";

beforeAll(async () => {
  ({ dir, binary } = binaryInNewFolder("pa-console-"));
  const seeded = Bun.spawnSync(
    [binary, "seed", "--out", join(dir, "agency.sqlite"), "--properties", "40", "--leads", "40"],
    {
      cwd: dir,
    },
  );
  if (seeded.exitCode !== 0) throw new Error(seeded.stderr.toString());
  if (REDIS_SERVER !== null) redis = await startRedis();
}, 120_000);
afterAll(async () => {
  for (const proc of started) if (proc.exitCode === null) proc.kill("SIGKILL");
  await redis?.close();
  rmSync(dir, { recursive: true, force: true });
});

function writeConfig(name: string, redisUrl: string | null): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      jwtSecret: "a-jwt-secret-long-enough-for-the-console-test-0123",
      databases: { agency: join(dir, "agency.sqlite") },
      clients: [],
      control: `${name}-control.sqlite`,
      ...(redisUrl === null ? {} : { redis: { url: redisUrl, keyPrefix: `${name}:` } }),
    }),
  );
  return path;
}

async function serve(args: string[]): Promise<string> {
  const port = freePort();
  const proc = Bun.spawn([binary, "serve", ...args, "--port", String(port)], {
    cwd: dir,
    stdout: "ignore",
    stderr: "pipe",
  });
  started.push(proc);
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(url);
  return url;
}

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

/** `admin new` → set-up → confirm → sign-in, on the binary; returns the session's headers. */
async function owner(config: string, url: string) {
  const made = Bun.spawnSync(
    [binary, "admin", "new", "--config", config, "--email", "owner@agency.example", "--role", "owner"],
    {
      cwd: dir,
    },
  );
  expect(made.exitCode).toBe(0);
  const link = made.stdout.toString().match(/http\S+\/console\/setup\/(\S+)/);
  expect(link).not.toBeNull();
  const token = link![1]!;
  const setup = await post(`${url}/admin/v1/setup`, { token, password: PASSWORD });
  expect(setup.status).toBe(200);
  const { totpSecret } = ((await setup.json()) as { data: { totpSecret: string } }).data;
  // The code of the previous period: the next sign-in's code is then a later one, as a person's would be.
  const confirm = await post(`${url}/admin/v1/setup/confirm`, {
    token,
    code: await previousPeriodCode(totpSecret),
  });
  expect(confirm.status).toBe(200);
  expect(
    (await post(`${url}/admin/v1/setup/confirm`, { token, code: await totpCode(totpSecret, Date.now()) })).status,
  ).toBe(401);
  const signIn = await post(`${url}/admin/v1/sessions`, {
    email: "owner@agency.example",
    password: PASSWORD,
    code: await totpCode(totpSecret, Date.now()),
  });
  expect(signIn.status).toBe(201);
  const setCookie = signIn.headers.get("set-cookie")!;
  const { csrfToken } = ((await signIn.json()) as { data: { csrfToken: string } }).data;
  return { setCookie, headers: { cookie: setCookie.split(";")[0]!, "x-csrf-token": csrfToken } };
}

async function partnerToken(url: string, apiKey: string, apiSecret: string): Promise<string> {
  const r = await fetch(`${url}/v1/auth/token`, {
    method: "POST",
    headers: { "x-api-key": apiKey, "x-api-secret": apiSecret },
  });
  expect(r.status).toBe(200);
  return ((await r.json()) as { data: { token: string } }).data.token;
}

/** Statuses of `n` requests on new connections (spread over the workers by the kernel). */
async function statuses(url: string, token: string, n = 12): Promise<number[]> {
  return Promise.all(
    Array.from({ length: n }, async () => {
      const r = await fetch(`${url}/v1/properties?fields=id&limit=1`, {
        headers: { authorization: `Bearer ${token}`, connection: "close" },
      });
      await r.arrayBuffer();
      return r.status;
    }),
  );
}

test("a server with no admin answers 404 on the admin API, and admin new prints a set-up link", async () => {
  const config = writeConfig("plain", null);
  const url = await serve(["--config", config]);
  expect((await fetch(`${url}/admin/v1/partners`)).status).toBe(404);
  expect((await fetch(`${url}/admin/openapi.json`)).status).toBe(404);
  const { setCookie, headers } = await owner(config, url);
  expect(setCookie).toMatch(
    /^__Host-partner-api-session=[A-Za-z0-9]+; Path=\/; Max-Age=43200; HttpOnly; Secure; SameSite=Strict$/,
  );
  const doc = (await (await fetch(`${url}/admin/openapi.json`)).json()) as { paths: Record<string, unknown> };
  expect(Object.keys(doc.paths)).toContain("/admin/v1/partners/{id}/rotate-secret");
  const partnersDoc = (await (await fetch(`${url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
  expect(Object.keys(partnersDoc.paths).some((p) => p.startsWith("/admin"))).toBe(false);
  // An admin token on a partner route, a partner's token on the admin API: refused both ways.
  const adminToken = await post(`${url}/admin/v1/tokens`, { name: "ci", role: "admin" }, headers);
  expect(adminToken.status).toBe(201);
  const { token } = ((await adminToken.json()) as { data: { token: string } }).data;
  expect((await fetch(`${url}/v1/properties`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(401);
  const made = await post(
    `${url}/admin/v1/partners`,
    { id: "site", name: "Site", contactEmail: "dev@site.example", useCase: "website", database: "agency" },
    { authorization: `Bearer ${token}` },
  );
  expect(made.status).toBe(201);
  const { apiKey, apiSecret } = ((await made.json()) as { data: { apiKey: string; apiSecret: string } }).data;
  const partner = await partnerToken(url, apiKey, apiSecret);
  expect(await statuses(url, partner, 3)).toEqual([200, 200, 200]);
  expect((await fetch(`${url}/admin/v1/partners`, { headers: { authorization: `Bearer ${partner}` } })).status).toBe(
    401,
  );
  // An unknown database is refused and nothing is made.
  const bad = await post(
    `${url}/admin/v1/partners`,
    { name: "X", contactEmail: "x@x.example", useCase: "website", database: "nowhere" },
    headers,
  );
  expect(bad.status).toBe(400);
});

test.skipIf(REDIS_SERVER === null)(
  "with --workers 2 and Redis, a disabled or deleted partner is refused by every worker within a second",
  async () => {
    const config = writeConfig("workers", redis!.url);
    const url = await serve(["--config", config, "--workers", "2"]);
    const { headers } = await owner(config, url);
    const made = await post(
      `${url}/admin/v1/partners`,
      { id: "portal-w", name: "Portal W", contactEmail: "ti@portal.example", useCase: "portal", database: "agency" },
      headers,
    );
    expect(made.status).toBe(201);
    const { apiKey, apiSecret } = ((await made.json()) as { data: { apiKey: string; apiSecret: string } }).data;
    // Every worker learns of the new partner within a second too.
    await Bun.sleep(1000);
    const token = await partnerToken(url, apiKey, apiSecret);
    expect(new Set(await statuses(url, token))).toEqual(new Set([200]));
    const disabled = await fetch(`${url}/admin/v1/partners/portal-w`, {
      method: "PATCH",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ enabled: false }),
    });
    expect(disabled.status).toBe(200);
    await Bun.sleep(1000);
    expect(new Set(await statuses(url, token))).toEqual(new Set([403]));
    const enabled = await fetch(`${url}/admin/v1/partners/portal-w`, {
      method: "PATCH",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ enabled: true }),
    });
    expect(enabled.status).toBe(200);
    await Bun.sleep(1000);
    expect(new Set(await statuses(url, token))).toEqual(new Set([200]));
    const deleted = await fetch(`${url}/admin/v1/partners/portal-w`, { method: "DELETE", headers });
    expect(deleted.status).toBe(204);
    await Bun.sleep(1000);
    expect(new Set(await statuses(url, token))).toEqual(new Set([401]));
  },
);

test("the sandbox prints its demo owner, who signs in without a code and sees the sandbox's partners", async () => {
  const port = freePort();
  const proc = Bun.spawn([binary, "sandbox", "--db", join(dir, "sandbox", "sandbox.sqlite"), "--port", String(port)], {
    cwd: dir,
    stdout: "ignore",
    stderr: "pipe",
  });
  started.push(proc);
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(url, 60_000);
  const signIn = await post(`${url}/admin/v1/sessions`, { email: "demo@sandbox.invalid", password: "sandbox-demo" });
  expect(signIn.status).toBe(201);
  const wrong = await post(`${url}/admin/v1/sessions`, { email: "demo@sandbox.invalid", password: "sandbox-dem0" });
  expect(wrong.status).toBe(401);
  const cookie = signIn.headers.get("set-cookie")!.split(";")[0]!;
  const partners = (await (await fetch(`${url}/admin/v1/partners`, { headers: { cookie } })).json()) as {
    data: { id: string; source: string }[];
  };
  expect(partners.data.find((p) => p.id === "sandbox")?.source).toBe("config");
  proc.kill("SIGTERM");
  expect(await proc.exited).toBe(0);
  const stderr = await new Response(proc.stderr as ReadableStream).text();
  expect(stderr).toContain("console:    http://localhost:");
  expect(stderr).toContain("demo@sandbox.invalid / sandbox-demo");
}, 120_000);

test("on the binary: wrong parts alike, lockout, CSRF, a viewer, presets, overlap, hostile input, the audit log", async () => {
  const config = writeConfig("rules", null);
  const url = await serve(["--config", config]);
  const { headers } = await owner(config, url);
  const call = (method: string, path: string, body?: unknown, extra: Record<string, string> = {}) =>
    fetch(`${url}/admin/v1${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }), ...extra },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    });

  // Presets, and a secret that works at once.
  const want: Record<string, number> = { portal: 600, website: 300, crm: 1200, "portal-leads": 120 };
  const secrets: string[] = [];
  for (const [useCase, limit] of Object.entries(want)) {
    const r = await call("POST", "/partners", {
      id: `b-${useCase}`,
      name: useCase,
      contactEmail: "a@b.example",
      useCase,
      database: "agency",
    });
    expect(r.status).toBe(201);
    const data = (
      (await r.json()) as { data: { partner: { rateLimitPerMinute: number }; apiKey: string; apiSecret: string } }
    ).data;
    expect(data.partner.rateLimitPerMinute).toBe(limit);
    secrets.push(data.apiSecret);
  }

  // Hostile input: the contract's errors, nothing made.
  const before = ((await (await call("GET", "/partners")).json()) as { data: unknown[] }).data.length;
  const base = { name: "X", contactEmail: "x@x.example", useCase: "website", database: "agency" };
  for (const [body, status] of [
    [{ ...base, useCase: "rocket" }, 400],
    [{ ...base, allowedIps: ["300.1.1.1/8"] }, 400],
    [{ ...base, database: "../etc/passwd" }, 400],
    [{ ...base, name: "n".repeat(500) }, 400],
    [JSON.stringify({ ...base, name: "n".repeat(80_000) }), 413],
    ["{not json", 400],
  ] as const) {
    const r = await call("POST", "/partners", body);
    expect(r.status).toBe(status);
    expect(((await r.json()) as { code: string }).code).toBe(status === 400 ? "VALIDATION_ERROR" : "PAYLOAD_TOO_LARGE");
  }
  expect(((await (await call("GET", "/partners")).json()) as { data: unknown[] }).data.length).toBe(before);

  // CSRF: none, or another session's, changes nothing.
  for (const csrf of ["", "stale-token"]) {
    const r = await call("PATCH", "/partners/b-website", { enabled: false }, { "x-csrf-token": csrf });
    expect(r.status).toBe(403);
  }

  // Rotation with an hour's overlap: both secrets obtain tokens; with none, only the newest.
  const website = (await call("GET", "/partners/b-website").then((r) => r.json())) as { data: { id: string } };
  expect(website.data.id).toBe("b-website");
  const list = ((await (await call("GET", "/partners")).json()) as { data: { id: string }[] }).data;
  expect(list.map((p) => p.id)).toContain("b-website");
  const rotated = (
    (await (await call("POST", "/partners/b-website/rotate-secret", { overlap: "1h" })).json()) as {
      data: { apiSecret: string };
    }
  ).data.apiSecret;
  const keyOf = async (id: string) => {
    const row = new (await import("bun:sqlite")).Database(join(dir, "rules-control.sqlite"), { readonly: true });
    const { api_key } = row.query("SELECT api_key FROM partners WHERE id = ?").get(id) as { api_key: string };
    row.close();
    return api_key;
  };
  const key = await keyOf("b-website");
  const tokenStatus = async (secret: string) =>
    (await fetch(`${url}/v1/auth/token`, { method: "POST", headers: { "x-api-key": key, "x-api-secret": secret } }))
      .status;
  expect(await tokenStatus(secrets[1]!)).toBe(200);
  expect(await tokenStatus(rotated)).toBe(200);
  const latest = (
    (await (await call("POST", "/partners/b-website/rotate-secret", { overlap: "none" })).json()) as {
      data: { apiSecret: string };
    }
  ).data.apiSecret;
  expect(await tokenStatus(secrets[1]!)).toBe(401);
  expect(await tokenStatus(rotated)).toBe(401);
  expect(await tokenStatus(latest)).toBe(200);

  // A viewer, invited by the owner, signs in and changes nothing.
  const invited = await call("POST", "/admins", { email: "viewer@agency.example", role: "viewer" });
  expect(invited.status).toBe(201);
  const link = ((await invited.json()) as { data: { setupUrl: string } }).data.setupUrl;
  const token = link.split("/").pop()!;
  const setup = await post(`${url}/admin/v1/setup`, { token, password: "quiet reader phrase 12345" });
  const { totpSecret } = ((await setup.json()) as { data: { totpSecret: string } }).data;
  await post(`${url}/admin/v1/setup/confirm`, { token, code: await previousPeriodCode(totpSecret) });
  const viewerSignIn = await post(`${url}/admin/v1/sessions`, {
    email: "viewer@agency.example",
    password: "quiet reader phrase 12345",
    code: await totpCode(totpSecret, Date.now()),
  });
  expect(viewerSignIn.status).toBe(201);
  const viewer = {
    cookie: viewerSignIn.headers.get("set-cookie")!.split(";")[0]!,
    "x-csrf-token": ((await viewerSignIn.json()) as { data: { csrfToken: string } }).data.csrfToken,
  };
  for (const [method, path, body] of [
    ["PATCH", "/partners/b-crm", { enabled: false }],
    ["DELETE", "/partners/b-crm", undefined],
    ["POST", "/partners/b-crm/rotate-secret", { overlap: "none" }],
    ["POST", "/tokens", { name: "x", role: "viewer" }],
  ] as const) {
    const r = await fetch(`${url}/admin/v1${path}`, {
      method,
      headers: { ...viewer, "content-type": "application/json" },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(r.status).toBe(403);
  }
  expect((await (await call("GET", "/partners/b-crm")).json()) as object).toMatchObject({ data: { enabled: true } });

  // Each wrong part answers alike; ten failures lock the account even for the right three.
  const answers = new Set<string>();
  for (const attempt of [
    { email: "nobody@agency.example", password: "quiet reader phrase 12345", code: "123456" },
    {
      email: "viewer@agency.example",
      password: "wrong reader phrase 12345",
      code: await totpCode(totpSecret, Date.now()),
    },
    { email: "viewer@agency.example", password: "quiet reader phrase 12345", code: "000000" },
  ]) {
    const r = await post(`${url}/admin/v1/sessions`, attempt);
    answers.add(`${r.status} ${await r.text()}`);
  }
  expect([...answers]).toEqual(['401 {"error":"Invalid e-mail, password or code","code":"INVALID_CREDENTIALS"}']);
  for (let i = 0; i < 8; i++)
    await post(`${url}/admin/v1/sessions`, { email: "viewer@agency.example", password: "x", code: "1" });
  const locked = await post(`${url}/admin/v1/sessions`, {
    email: "viewer@agency.example",
    password: "quiet reader phrase 12345",
    code: await totpCode(totpSecret, Date.now() + 30_000),
  });
  expect(locked.status).toBe(401);

  // The audit log names it all, and holds no secret.
  const exported = await (await call("GET", "/audit/export")).text();
  for (const action of ["partner.create", "partner.rotate-secret", "admin.invite", "sign-in", "sign-in.failed"])
    expect(exported).toContain(`"action":"${action}"`);
  for (const secret of [...secrets, rotated, latest, PASSWORD, "quiet reader phrase 12345", headers["x-csrf-token"]])
    expect(exported).not.toContain(secret);
});

test("an id in both the config file and the console fails the start, naming it", async () => {
  const config = writeConfig("clash", null);
  const url = await serve(["--config", config]);
  const { headers } = await owner(config, url);
  const made = await post(
    `${url}/admin/v1/partners`,
    { id: "shared-id", name: "Shared", contactEmail: "a@b.example", useCase: "website", database: "agency" },
    headers,
  );
  expect(made.status).toBe(201);
  const file = JSON.parse(await Bun.file(config).text()) as { clients: unknown[] };
  file.clients.push({
    id: "shared-id",
    apiKey: "pk_live_shared_1",
    secretHash: `sha256:${"0".repeat(64)}`,
    database: "agency",
  });
  writeFileSync(config, JSON.stringify(file));
  const second = Bun.spawnSync([binary, "serve", "--config", config, "--port", String(freePort())], { cwd: dir });
  expect(second.exitCode).toBe(2);
  expect(second.stderr.toString()).toContain('"shared-id"');
});
