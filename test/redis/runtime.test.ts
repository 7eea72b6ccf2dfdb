// Two servers (two runtimes on the same config and files, as two processes) sharing one Redis:
// one client's limit holds across both, exactly, with the same headers; an Idempotency-Key
// makes one lead whichever server each request reaches; and with Redis gone nothing fails.

import { Database } from "bun:sqlite";
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import pino from "pino";
import { client, createTestApp, read, type TestApp } from "../helpers/app.ts";
import { REDIS_SERVER, startRedis, type TestRedis } from "../helpers/redis.ts";

const portal = client("portal", { rateLimitPerMinute: 5 });
const lead = { name: "Ana Souza", email: "ana@example.com", phone: "+55 11 91234-5678", message: "Quero visitar" };

let redis: TestRedis;
let t: TestApp;
let lines: string[];

beforeAll(async () => {
  if (REDIS_SERVER !== null) redis = await startRedis();
});
afterAll(async () => {
  await redis?.close();
});
afterEach(() => t?.close());

/** A fresh pair of servers on one database, sharing the test Redis under a prefix of their own. */
function servers(extra: Partial<Parameters<typeof client>[1]> = {}) {
  lines = [];
  const logger = pino({ level: "info" }, { write: (line: string) => void lines.push(line) });
  t = createTestApp({
    clients: [{ ...portal.entry, ...extra }],
    redis: { url: redis.url, keyPrefix: `t${crypto.randomUUID().slice(0, 8)}:` },
    logger,
  });
  return [t, t.sibling()] as const;
}

describe.skipIf(REDIS_SERVER === null)("one client's limit across two servers", () => {
  test("the window counts every server's requests: exactly the limit passes, with one sequence of Remaining", async () => {
    const [a, b] = servers();
    const token = await a.token(portal); // one token is good on both: same signing secret
    const answers = [];
    for (let i = 0; i < 8; i++) answers.push(await read(await (i % 2 === 0 ? a : b).get("/v1/fields", token)));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    expect(answers.map((r) => r.headers.get("x-ratelimit-remaining"))).toEqual([
      "4",
      "3",
      "2",
      "1",
      "0",
      "0",
      "0",
      "0",
    ]);
    expect(answers[5]!.headers.get("retry-after")).toBe("60");
    // As the clock moves on, the window slides for both at once.
    a.clock.advance(60_000);
    expect((await b.get("/v1/fields", token)).status).toBe(200);
  });

  test("the burst cap holds across servers too", async () => {
    const [a, b] = servers({ rateLimitPerMinute: 100, burstPerSecond: 2 });
    const token = await a.token(portal);
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await (i % 2 === 0 ? a : b).get("/v1/fields", token)).status);
    expect(statuses).toEqual([200, 200, 429, 429]);
    a.clock.advance(1_000);
    expect((await b.get("/v1/fields", token)).status).toBe(200);
  });

  test("failed authentication from one address is throttled across servers", async () => {
    const [a, b] = servers();
    const statuses = [];
    for (let i = 0; i < 22; i++) {
      const server = i % 2 === 0 ? a : b;
      statuses.push(
        (
          await server.request("/v1/auth/token", {
            method: "POST",
            headers: { "x-api-key": portal.apiKey, "x-api-secret": "wrong" },
            peer: "192.0.2.77",
          })
        ).status,
      );
    }
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(20)).toEqual([429, 429]);
    // Even the right secret waits, on either server…
    expect(
      (
        await b.request("/v1/auth/token", {
          method: "POST",
          headers: { "x-api-key": portal.apiKey, "x-api-secret": portal.secret },
          peer: "192.0.2.77",
        })
      ).status,
    ).toBe(429);
    // …while another address is untouched.
    expect((await a.token(portal, "192.0.2.78")).length).toBeGreaterThan(0);
  });
});

describe.skipIf(REDIS_SERVER === null)("an Idempotency-Key across two servers", () => {
  test("sent to both at once, twenty times: one lead, every answer its 201", async () => {
    const [a, b] = servers({ rateLimitPerMinute: 1000 });
    const token = await a.token(portal);
    const post = (server: TestApp) =>
      server.request("/v1/leads", {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": "form-42" },
        body: JSON.stringify(lead),
      });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => post(i % 2 === 0 ? a : b).then(read)));
    expect(new Set(answers.map((r) => r.status))).toEqual(new Set([201]));
    expect(new Set(answers.map((r) => r.body.data.id)).size).toBe(1);
    const db = new Database(a.runtime.config.databases.get("main")!, { readonly: true });
    expect(db.query("SELECT count(*) AS n FROM leads WHERE id = ?").get(answers[0]!.body.data.id)).toEqual({ n: 1 });
    db.close();
  });
});

describe.skipIf(REDIS_SERVER === null)("the Idempotency-Key's in-flight lock in Redis", () => {
  test("a request whose key another process is creating waits for it, then creates nothing twice", async () => {
    const [a, b] = servers({ rateLimitPerMinute: 1000 });
    const token = await a.token(portal);
    // Server a holds the key's lock, as while it creates that key's lead.
    const path = a.runtime.config.databases.get("main")!;
    const release = await a.runtime.idempotencyLocks!.acquire(`${path}\0portal\0form-7`);
    expect(release).not.toBeNull();
    let settled = false;
    const waiting = b
      .request("/v1/leads", {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": "form-7" },
        body: JSON.stringify(lead),
      })
      .then((response) => {
        settled = true;
        return read(response);
      });
    await Bun.sleep(200);
    // Without the shared lock server b would have created the lead already.
    expect(settled).toBe(false);
    release!();
    const answer = await waiting;
    expect(answer.status).toBe(201);
    // Another key is never held up by it.
    const other = await b.request("/v1/leads", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": "form-8" },
      body: JSON.stringify(lead),
    });
    expect(other.status).toBe(201);
  });
});

describe.skipIf(REDIS_SERVER === null)("Redis unavailable", () => {
  test("requests never fail for it: each server falls back to its own memory, says so once, and returns when Redis is back", async () => {
    const [a, b] = servers({ rateLimitPerMinute: 1000 });
    const token = await a.token(portal);
    expect((await a.get("/v1/fields", token)).headers.get("x-ratelimit-remaining")).toBe("999");
    expect((await b.get("/v1/fields", token)).headers.get("x-ratelimit-remaining")).toBe("998");
    // What the servers say of this outage (a slow answer before it, under load, is another).
    const before = lines.length;
    await redis.kill();
    try {
      const statuses = [];
      for (let i = 0; i < 10; i++) statuses.push((await (i % 2 === 0 ? a : b).get("/v1/fields", token)).status);
      expect(statuses.every((s) => s === 200)).toBe(true);
      expect(a.runtime.redisAvailable).toBe(false);
      expect(b.runtime.redisAvailable).toBe(false);
      // Own memory now: each server's window starts afresh.
      expect(Number((await a.get("/v1/fields", token)).headers.get("x-ratelimit-remaining"))).toBeGreaterThan(990);
    } finally {
      await redis.start();
    }
    const deadline = Date.now() + 5_000;
    while ((!a.runtime.redisAvailable || !b.runtime.redisAvailable) && Date.now() < deadline) await Bun.sleep(20);
    expect(a.runtime.redisAvailable && b.runtime.redisAvailable).toBe(true);
    // Shared again (the restarted Redis is empty): one window for both.
    expect((await a.get("/v1/fields", token)).headers.get("x-ratelimit-remaining")).toBe("999");
    expect((await b.get("/v1/fields", token)).headers.get("x-ratelimit-remaining")).toBe("998");
    const messages = lines.slice(before).map((line) => (JSON.parse(line).msg as string | undefined) ?? "");
    expect(messages.filter((m) => m.startsWith("redis unavailable"))).toHaveLength(2); // once per server
    expect(messages.filter((m) => m.startsWith("redis available again"))).toHaveLength(2);
  });
});

describe.skipIf(REDIS_SERVER === null)("Redis that stops answering", () => {
  test("a request waits at most the command timeout, then is answered from memory; later requests do not wait at all", async () => {
    const [a] = servers({ rateLimitPerMinute: 1000 });
    const token = await a.token(portal);
    expect((await a.get("/v1/fields", token)).status).toBe(200);
    redis.pause();
    try {
      let started = performance.now();
      expect((await a.get("/v1/fields", token)).status).toBe(200);
      const first = performance.now() - started;
      expect(a.runtime.redisAvailable).toBe(false);
      const next: number[] = [];
      for (let i = 0; i < 20; i++) {
        started = performance.now();
        expect((await a.get("/v1/fields", token)).status).toBe(200);
        next.push(performance.now() - started);
      }
      // The first waited for the command timeout (250 ms, checked every 50 ms), and no longer;
      // the rest never asked Redis, so none of them waited that long.
      expect(first).toBeGreaterThanOrEqual(200);
      expect(first).toBeLessThan(2_000);
      expect(Math.max(...next)).toBeLessThan(200);
    } finally {
      redis.resume();
    }
    const deadline = Date.now() + 5_000;
    while (!a.runtime.redisAvailable && Date.now() < deadline) await Bun.sleep(20);
    expect(a.runtime.redisAvailable).toBe(true);
  });
});
