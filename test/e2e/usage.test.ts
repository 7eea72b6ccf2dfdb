// What the agency sees, on the compiled binary (docs/operators/console.md#what-the-agency-sees):
// known traffic from several partners appears in their usage and in the request log exactly,
// within 2 s, served by one process and by `serve --workers 2` with Redis; no query value or
// body reaches the control database's files.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hashSecret } from "../../src/security/secrets.ts";
import { ownerOnBinary } from "../helpers/admin-session.ts";
import { binaryInNewFolder, freePort, waitHealthy } from "../helpers/binary.ts";
import { REDIS_SERVER, startRedis, type TestRedis } from "../helpers/redis.ts";

setDefaultTimeout(90_000);

const MARKER = "qv8secretvalue";
let dir: string;
let binary: string;
let redis: TestRedis | null = null;
const started: ReturnType<typeof Bun.spawn>[] = [];

beforeAll(async () => {
  ({ dir, binary } = binaryInNewFolder("pa-usage-"));
  const seeded = Bun.spawnSync(
    [binary, "seed", "--out", join(dir, "agency.sqlite"), "--properties", "40", "--leads", "10"],
    { cwd: dir },
  );
  if (seeded.exitCode !== 0) throw new Error(seeded.stderr.toString());
  if (REDIS_SERVER !== null) redis = await startRedis();
}, 120_000);
afterAll(async () => {
  for (const proc of started) if (proc.exitCode === null) proc.kill("SIGKILL");
  await redis?.close();
  rmSync(dir, { recursive: true, force: true });
});

const partner = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  apiKey: `pk_live_${id}_key`,
  secretHash: hashSecret(`sk_live_${id}_secret`),
  database: "agency",
  rateLimitPerMinute: 1000,
  scopes: ["properties:read", "leads:create", "leads:read:own"],
  ...extra,
});

function writeConfig(name: string, redisUrl: string | null): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      jwtSecret: "a-jwt-secret-long-enough-for-the-usage-test-012345",
      databases: { agency: join(dir, "agency.sqlite") },
      clients: [
        partner("alpha"),
        partner("beta", { ipWhitelist: ["10.9.9.9"] }),
        partner("gamma", { scopes: ["properties:read"] }),
        partner("delta", { rateLimitPerMinute: 2 }),
      ],
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

/** A request on a new connection, so that `--workers 2` spreads them over both processes. */
async function call(url: string, path: string, init: RequestInit = {}): Promise<number> {
  const headers = new Headers(init.headers);
  headers.set("connection", "close");
  const r = await fetch(`${url}${path}`, { ...init, headers });
  await r.arrayBuffer();
  return r.status;
}

async function token(
  url: string,
  id: string,
  secret = `sk_live_${id}_secret`,
): Promise<{ status: number; token: string }> {
  const r = await fetch(`${url}/v1/auth/token`, {
    method: "POST",
    headers: { "x-api-key": `pk_live_${id}_key`, "x-api-secret": secret, connection: "close" },
  });
  const body = (await r.json()) as { data?: { token: string } };
  return { status: r.status, token: body.data?.token ?? "" };
}

/** The traffic, and what each partner's day must then say. */
async function traffic(url: string) {
  const alpha = await token(url, "alpha");
  const bearer = (t: string) => ({ headers: { authorization: `Bearer ${t}` } });
  const statuses: number[] = [alpha.status];
  for (let i = 0; i < 4; i++)
    statuses.push(await call(url, `/v1/properties?fields=id&q=${MARKER}`, bearer(alpha.token)));
  statuses.push(
    await call(url, "/v1/leads", {
      method: "POST",
      headers: { authorization: `Bearer ${alpha.token}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: `Ana ${MARKER}`,
        email: "ana@example.com",
        phone: "+55 11 98765-4321",
        message: MARKER,
      }),
    }),
  );
  statuses.push((await token(url, "alpha", "a-wrong-secret")).status);
  statuses.push((await token(url, "beta")).status);
  const gamma = await token(url, "gamma");
  statuses.push(gamma.status, await call(url, "/v1/leads", bearer(gamma.token)));
  const delta = await token(url, "delta");
  statuses.push(delta.status);
  for (let i = 0; i < 3; i++) statuses.push(await call(url, "/v1/properties?fields=id", bearer(delta.token)));
  statuses.push(await call(url, `/v1/nowhere?email=${MARKER}`));
  expect(statuses).toEqual([200, 200, 200, 200, 200, 201, 401, 403, 200, 403, 200, 200, 200, 429, 404]);
  return {
    total: statuses.length,
    alpha: { "2xx": 6, "401": 1, "403": 0, "429": 0, leads: 1 },
    beta: { "2xx": 0, "401": 0, "403": 1, "429": 0, leads: 0, byCode: { IP_BLOCKED: 1 } },
    gamma: { "2xx": 1, "401": 0, "403": 1, "429": 0, leads: 0, byCode: { INSUFFICIENT_SCOPE: 1 } },
    delta: { "2xx": 3, "401": 0, "403": 0, "429": 1, leads: 0 },
  };
}

async function admin(url: string, bearer: string, path: string) {
  const r = await fetch(`${url}/admin/v1${path}`, { headers: { authorization: `Bearer ${bearer}` } });
  expect(r.status).toBe(200);
  return (await r.json()) as { data: any; meta?: { total: number } };
}

async function checkFigures(url: string, control: string, bearer: string) {
  const expected = await traffic(url);
  const sentAt = Date.now();
  // Within 2 s the log holds every request, and no more afterwards.
  let total = 0;
  while (Date.now() - sentAt < 2000) {
    total = (await admin(url, bearer, "/requests?limit=1")).meta!.total;
    if (total >= expected.total) break;
    await Bun.sleep(100);
  }
  expect(total).toBe(expected.total);
  for (const id of ["alpha", "beta", "gamma", "delta"] as const) {
    const want = expected[id];
    const usage = (await admin(url, bearer, `/partners/${id}/usage?days=1`)).data;
    const day = usage.days[0];
    expect({ id, ...day.requests }).toMatchObject({
      id,
      "2xx": want["2xx"],
      "401": want["401"],
      "403": want["403"],
      "429": want["429"],
      "5xx": 0,
    });
    expect(day.leadsCreated).toBe(want.leads);
    expect(day.forbiddenByCode).toEqual("byCode" in want ? want.byCode : {});
    expect(usage.lastSeen.ip).toBe("127.0.0.1");
  }
  const log = await admin(url, bearer, "/requests?client=delta");
  expect(log.data.map((r: { status: number }) => r.status)).toEqual([429, 200, 200, 200]);
  expect(log.data.map((r: { route: string }) => r.route)).toEqual([
    "/v1/properties",
    "/v1/properties",
    "/v1/properties",
    "/v1/auth/token",
  ]);
  // Neither the query's value nor the lead's body is in the control database's files.
  for (const suffix of ["", "-wal"]) {
    const file = join(dir, control + suffix);
    if (!existsSync(file)) continue;
    const bytes = readFileSync(file);
    expect(bytes.includes(Buffer.from(MARKER))).toBe(false);
    expect(bytes.includes(Buffer.from("ana@example.com"))).toBe(false);
  }
}

describe("usage and the request log on the binary", () => {
  test("one process", async () => {
    const config = writeConfig("single", null);
    const url = await serve(["--config", config]);
    const { token: bearer } = await ownerOnBinary(binary, dir, config, url);
    await checkFigures(url, "single-control.sqlite", bearer);
  });

  test.skipIf(REDIS_SERVER === null)("serve --workers 2 with Redis: the server's figures", async () => {
    const config = writeConfig("workers", redis!.url);
    const url = await serve(["--config", config, "--workers", "2"]);
    const { token: bearer } = await ownerOnBinary(binary, dir, config, url);
    await checkFigures(url, "workers-control.sqlite", bearer);
  });

  test("usage.record false records nothing", async () => {
    const path = writeConfig("off", null);
    const file = JSON.parse(readFileSync(path, "utf8"));
    writeFileSync(path, JSON.stringify({ ...file, usage: { record: false } }));
    const url = await serve(["--config", path]);
    const { token: bearer } = await ownerOnBinary(binary, dir, path, url);
    expect((await token(url, "alpha")).status).toBe(200);
    await Bun.sleep(1200);
    expect((await admin(url, bearer, "/requests")).meta!.total).toBe(0);
    expect((await admin(url, bearer, "/partners/alpha/usage?days=1")).data.days[0].requests["2xx"]).toBe(0);
  });
});
