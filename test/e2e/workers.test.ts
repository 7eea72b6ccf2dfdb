// More than one process (docs/reference/behaviour-extensions.md §15) with the compiled binary: `serve --workers N` on one
// port, and two `serve` processes on the same files, sharing a real redis-server. One client's
// limit holds exactly across processes, one Idempotency-Key makes one lead, signals reach
// every worker, a dead worker comes back, and Redis killed under load costs no 5xx.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { RedisClient } from "bun";
import fc from "fast-check";
import { hashSecret } from "../../src/security/secrets.ts";
import { binaryInNewFolder, freePort, waitHealthy } from "../helpers/binary.ts";
import { REDIS_SERVER, startRedis, type TestRedis } from "../helpers/redis.ts";

let dir: string;
let binary: string;
let redis: TestRedis;
/** Every server started here: killed at the end even when a test failed half-way. */
const started: ReturnType<typeof Bun.spawn>[] = [];

beforeAll(async () => {
  ({ dir, binary } = binaryInNewFolder("pa-workers-"));
  const seeded = Bun.spawnSync(
    [binary, "seed", "--out", join(dir, "agency.sqlite"), "--properties", "60", "--leads", "60"],
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

const SECRET = "sk_live_portal_secret_for_workers";
const METRICS_TOKEN = "a-metrics-token-for-the-workers-test";
const PORTAL = { id: "portal", apiKey: "pk_live_portal_workers", secretHash: hashSecret(SECRET), database: "agency" };

/** A production config over the seeded database; `limit` per minute for the one client. */
function writeConfig(name: string, client: Record<string, unknown>, redisUrl: string | null): string {
  const path = join(dir, `${name}.json`);
  writeFileSync(
    path,
    JSON.stringify({
      jwtSecret: "a-jwt-secret-long-enough-for-the-workers-test-0123",
      databases: { agency: join(dir, "agency.sqlite") },
      clients: [{ ...PORTAL, ...client }],
      metrics: { token: METRICS_TOKEN },
      ...(redisUrl === null ? {} : { redis: { url: redisUrl, keyPrefix: `${name}:` } }),
    }),
  );
  return path;
}

interface Served {
  proc: ReturnType<typeof Bun.spawn>;
  url: string;
  port: number;
  log(): string;
}

async function serve(args: string[], port = freePort()): Promise<Served> {
  let log = "";
  const proc = Bun.spawn([binary, "serve", ...args, "--port", String(port)], {
    cwd: dir,
    stdout: "pipe",
    stderr: "pipe",
  });
  started.push(proc);
  for (const stream of [proc.stdout, proc.stderr]) {
    void (async () => {
      for await (const chunk of stream as ReadableStream<Uint8Array>) log += Buffer.from(chunk).toString();
    })();
  }
  const url = `http://127.0.0.1:${port}`;
  await waitHealthy(url);
  return { proc, url, port, log: () => log };
}

/** A request on a connection of its own, so the kernel may hand it to any worker. */
function fresh(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, {
    ...init,
    headers: { ...(init.headers as Record<string, string>), connection: "close" },
    keepalive: false,
  });
}

async function tokenAt(url: string): Promise<string> {
  const response = await fresh(`${url}/v1/auth/token`, {
    method: "POST",
    headers: { "x-api-key": PORTAL.apiKey, "x-api-secret": SECRET },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { token: string } }).data.token;
}

/** Pids of the supervisor's workers. */
function workersOf(pid: number): number[] {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
  return children === "" ? [] : children.split(" ").map(Number);
}

/** Sockets listening on the port (one per worker: they share it through SO_REUSEPORT). */
function listeners(port: number): number {
  const hex = `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
  return ["/proc/net/tcp", "/proc/net/tcp6"]
    .flatMap((file) => readFileSync(file, "utf8").split("\n").slice(1))
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[3] === "0A" && fields[1]?.endsWith(hex)).length;
}

async function stop(served: Served): Promise<number> {
  served.proc.kill("SIGTERM");
  return await served.proc.exited;
}

describe("serve --workers N", () => {
  test("without redis in the config it refuses to start, exit 2, saying why", () => {
    const result = Bun.spawnSync(
      [binary, "serve", "--config", writeConfig("alone", {}, null), "--workers", "2", "--port", String(freePort())],
      { cwd: dir, stderr: "pipe" },
    );
    expect(result.exitCode).toBe(2);
    expect(result.stderr.toString()).toContain('needs "redis"');
  });

  test.skipIf(REDIS_SERVER === null)(
    "two workers share the port and one client's limit; SIGHUP reaches both; a killed worker comes back; SIGTERM stops all, exit 0",
    async () => {
      const config = writeConfig("workers", { rateLimitPerMinute: 10 }, redis.url);
      const served = await serve(["--config", config, "--workers", "2"]);
      try {
        // Healthy means one worker answers; the other may still be starting.
        const up = Date.now() + 10_000;
        while (Date.now() < up && listeners(served.port) < 2) await Bun.sleep(20);
        const pids = workersOf(served.proc.pid);
        expect(pids).toHaveLength(2);
        expect(listeners(served.port)).toBe(2);

        const token = await tokenAt(served.url);
        const statuses: number[] = [];
        for (let i = 0; i < 15; i++)
          statuses.push(
            (await fresh(`${served.url}/v1/fields`, { headers: { authorization: `Bearer ${token}` } })).status,
          );
        expect(statuses.filter((s) => s === 200)).toHaveLength(10);
        expect(statuses.slice(10)).toEqual([429, 429, 429, 429, 429]);

        // /metrics, whichever worker the scrape reaches, counts every worker's requests: 15
        // answers to /v1/fields (10 × 200, 5 × 429), the database's size once, Redis up.
        for (let i = 0; i < 6; i++) {
          const scrape = await (
            await fresh(`${served.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
          ).text();
          const count = (status: number) =>
            Number(
              new RegExp(
                `partner_api_http_requests_total\\{route="/v1/fields",method="GET",status="${status}"\\} (\\d+)`,
              ).exec(scrape)?.[1],
            );
          expect({ ok: count(200), limited: count(429) }).toEqual({ ok: 10, limited: 5 });
          const size = Number(
            /partner_api_database_size_bytes\{database="agency",file="main"\} (\d+)/.exec(scrape)?.[1],
          );
          expect(size).toBe(statSync(join(dir, "agency.sqlite")).size);
          expect(scrape).toContain("partner_api_redis_available 1");
        }

        // A disabled client after SIGHUP: refused by every worker.
        writeConfig("workers", { rateLimitPerMinute: 10, enabled: false }, redis.url);
        served.proc.kill("SIGHUP");
        const deadline = Date.now() + 5_000;
        let codes: string[] = [];
        while (Date.now() < deadline) {
          codes = [];
          for (let i = 0; i < 12; i++)
            codes.push(
              (
                (await (
                  await fresh(`${served.url}/v1/fields`, { headers: { authorization: `Bearer ${token}` } })
                ).json()) as { code: string }
              ).code,
            );
          if (codes.every((code) => code === "API_DISABLED")) break;
          await Bun.sleep(50);
        }
        expect(new Set(codes)).toEqual(new Set(["API_DISABLED"]));

        // A worker killed outright is started again, and the port keeps answering.
        process.kill(pids[0]!, "SIGKILL");
        const back = Date.now() + 10_000;
        while (
          Date.now() < back &&
          !(
            workersOf(served.proc.pid).length === 2 &&
            !workersOf(served.proc.pid).includes(pids[0]!) &&
            listeners(served.port) === 2
          )
        ) {
          await Bun.sleep(50);
        }
        expect(workersOf(served.proc.pid)).toHaveLength(2);
        expect(workersOf(served.proc.pid)).not.toContain(pids[0]);
        expect((await fresh(`${served.url}/health`)).status).toBe(200);
        expect(served.log()).toContain("worker exited; starting it again");
      } finally {
        expect(await stop(served)).toBe(0);
      }
      expect(listeners(served.port)).toBe(0);
    },
    60_000,
  );

  test.skipIf(REDIS_SERVER === null)(
    "workers whose supervisor was killed outright stop by themselves and free the port",
    async () => {
      const served = await serve(["--config", writeConfig("orphans", {}, redis.url), "--workers", "2"]);
      const up = Date.now() + 10_000;
      while (Date.now() < up && workersOf(served.proc.pid).length < 2) await Bun.sleep(20);
      const pids = workersOf(served.proc.pid);
      expect(pids).toHaveLength(2);
      served.proc.kill("SIGKILL");
      // A worker notices within a second, then drains like any stop (up to 10 s).
      const gone = Date.now() + 15_000;
      const alive = (pid: number) => {
        try {
          process.kill(pid, 0);
          return !readFileSync(`/proc/${pid}/stat`, "utf8").includes(") Z ");
        } catch {
          return false;
        }
      };
      while (Date.now() < gone && pids.some(alive)) await Bun.sleep(50);
      expect(pids.filter(alive)).toEqual([]);
      expect(listeners(served.port)).toBe(0);
    },
    30_000,
  );

  test("a port another server holds is refused, exit 1", async () => {
    const other = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      reusePort: true,
      fetch: () => new Response("someone else"),
    });
    try {
      const result = Bun.spawnSync(
        [
          binary,
          "serve",
          "--config",
          writeConfig("busy", {}, "redis://127.0.0.1:1/0"),
          "--workers",
          "2",
          "--host",
          "127.0.0.1",
          "--port",
          String(other.port),
        ],
        { cwd: dir, stderr: "pipe" },
      );
      expect(result.exitCode).toBe(1);
      expect(result.stderr.toString()).toContain("already in use");
    } finally {
      await other.stop(true);
    }
  });
});

describe.skipIf(REDIS_SERVER === null)("two serve processes on the same files, sharing Redis", () => {
  test("one client's limit holds exactly over random interleavings of the two, sent one by one and at once (an exact log of sends)", async () => {
    const config = writeConfig("pair", { rateLimitPerMinute: 12 }, redis.url);
    const [a, b] = [await serve(["--config", config]), await serve(["--config", config])];
    const admin = new RedisClient(redis.url);
    try {
      await fc.assert(
        // Batches in turn; the sends of one batch go to random processes at the same time.
        fc.asyncProperty(
          fc.array(fc.array(fc.integer({ min: 0, max: 1 }), { minLength: 1, maxLength: 6 }), {
            minLength: 1,
            maxLength: 8,
          }),
          async (batches) => {
            await admin.send("FLUSHALL", []);
            const token = await tokenAt(a.url);
            let sent = 0;
            const remainingSeen: number[] = [];
            for (const batch of batches) {
              const answers = await Promise.all(
                batch.map(async (which) => {
                  const response = await fetch(`${(which === 0 ? a : b).url}/v1/fields`, {
                    headers: { authorization: `Bearer ${token}` },
                  });
                  await response.arrayBuffer();
                  return { status: response.status, remaining: Number(response.headers.get("x-ratelimit-remaining")) };
                }),
              );
              // The exact log: of every send so far, the first 12 passed and the rest were refused.
              const passedBefore = Math.min(12, sent);
              sent += batch.length;
              const passed = answers.filter((x) => x.status === 200);
              expect(passed).toHaveLength(Math.min(12, sent) - passedBefore);
              expect(answers.filter((x) => x.status !== 200)).toEqual(
                answers.filter((x) => x.status === 429 && x.remaining === 0),
              );
              remainingSeen.push(...passed.map((x) => x.remaining));
            }
            // Each pass left one less, whichever process answered: 11, 10, … with none twice.
            expect(remainingSeen.sort((x, y) => y - x)).toEqual(
              Array.from({ length: Math.min(12, sent) }, (_, i) => 11 - i),
            );
          },
        ),
        { numRuns: 15 },
      );
    } finally {
      admin.close();
      expect(await stop(a)).toBe(0);
      expect(await stop(b)).toBe(0);
    }
  }, 120_000);

  test("one Idempotency-Key sent to both at once makes one lead", async () => {
    const config = writeConfig("idem", { rateLimitPerMinute: 10_000 }, redis.url);
    const [a, b] = [await serve(["--config", config]), await serve(["--config", config])];
    try {
      const token = await tokenAt(a.url);
      for (let round = 0; round < 5; round++) {
        const key = `form-${round}-${crypto.randomUUID()}`;
        const answers = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            fetch(`${(i % 2 === 0 ? a : b).url}/v1/leads`, {
              method: "POST",
              headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": key },
              body: JSON.stringify({
                name: "Ana",
                email: "ana@example.com",
                phone: "11999999999",
                message: `round ${round}`,
              }),
            }).then(async (r) => ({ status: r.status, id: ((await r.json()) as { data: { id: string } }).data.id })),
          ),
        );
        expect(new Set(answers.map((x) => x.status))).toEqual(new Set([201]));
        expect(new Set(answers.map((x) => x.id)).size).toBe(1);
      }
    } finally {
      expect(await stop(a)).toBe(0);
      expect(await stop(b)).toBe(0);
    }
    const db = new Database(join(dir, "agency.sqlite"), { readonly: true });
    const rounds = db
      .query("SELECT message, count(*) AS n FROM leads WHERE message LIKE 'round %' GROUP BY message")
      .all() as { n: number }[];
    db.close();
    expect(rounds).toHaveLength(5);
    expect(rounds.every((r) => r.n === 1)).toBe(true);
  }, 60_000);

  test("Redis killed and started again under load: no 5xx, no failed request, limits shared again after", async () => {
    const config = writeConfig("outage", { rateLimitPerMinute: 1_000_000 }, redis.url);
    const [a, b] = [await serve(["--config", config]), await serve(["--config", config])];
    const statuses = new Map<number, number>();
    let running = true;
    try {
      const token = await tokenAt(a.url);
      const loop = async (url: string) => {
        while (running) {
          let status = 0;
          try {
            const response = await fetch(`${url}/v1/properties?fields=id,title&limit=5`, {
              headers: { authorization: `Bearer ${token}` },
            });
            status = response.status;
            await response.arrayBuffer();
          } catch {
            status = 0;
          }
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }
      };
      const loops = [loop(a.url), loop(b.url), loop(a.url), loop(b.url)];
      await Bun.sleep(300);
      await redis.kill();
      await Bun.sleep(1_500);
      await redis.start();
      await Bun.sleep(2_000);
      running = false;
      await Promise.all(loops);
      // Back on Redis: both count into one window again.
      const first = Number(
        (await fetch(`${a.url}/v1/fields`, { headers: { authorization: `Bearer ${token}` } })).headers.get(
          "x-ratelimit-remaining",
        ),
      );
      const second = Number(
        (await fetch(`${b.url}/v1/fields`, { headers: { authorization: `Bearer ${token}` } })).headers.get(
          "x-ratelimit-remaining",
        ),
      );
      expect(second).toBe(first - 1);
      // Each counted its fall-back once, and says Redis is back.
      for (const served of [a, b]) {
        const scrape = await (
          await fetch(`${served.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
        ).text();
        expect(scrape).toContain("partner_api_redis_fallbacks_total 1");
        expect(scrape).toContain("partner_api_redis_available 1");
      }
    } finally {
      running = false;
      expect(await stop(a)).toBe(0);
      expect(await stop(b)).toBe(0);
    }
    expect([...statuses.keys()]).toEqual([200]);
    expect(statuses.get(200)!).toBeGreaterThan(100);
    for (const served of [a, b]) {
      expect(served.log().match(/redis unavailable/g)?.length).toBe(1);
      expect(served.log()).toContain("redis available again");
    }
  }, 60_000);
});
