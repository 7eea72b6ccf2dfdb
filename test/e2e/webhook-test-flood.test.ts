// A hostile receiver costs other partners nothing (the webhooks' per-subscription limit): the
// compiled binary, one client's subscription pointing at a receiver that accepts connections
// and never answers, and 300 parallel calls of POST /v1/webhooks/{id}/test by that client.
// The receiver never sees more than 16 requests open at once, and another client's
// lead.created arrives while every one of the 300 calls still hangs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import { PER_SUBSCRIPTION } from "../../src/modules/webhooks/worker.ts";
import { hashSecret } from "../../src/security/secrets.ts";
import { binaryInNewFolder, type RunningBinary, startBinary } from "../helpers/binary.ts";

const CALLS = 300;
const CLIENTS = {
  hostile: { id: "hostile", apiKey: "pk_live_hostile_1", secret: "sk_live_hostile_1" },
  crm: { id: "crm", apiKey: "pk_live_crm_0001", secret: "sk_live_crm_0001" },
};

let dir: string;
let server: RunningBinary;
/** Accepts connections and never answers; counts how many are open at once. */
let hanging: Server;
const open = new Set<Socket>();
let mostOpen = 0;
let good: ReturnType<typeof Bun.serve>;
const arrived: { type: string; at: number }[] = [];

beforeAll(async () => {
  let binary: string;
  ({ dir, binary } = binaryInNewFolder("pa-test-flood-"));
  const seeded = Bun.spawnSync(
    [binary, "seed", "--out", join(dir, "agency.sqlite"), "--properties", "20", "--leads", "10"],
    { cwd: dir },
  );
  if (seeded.exitCode !== 0) throw new Error(seeded.stderr.toString());
  hanging = createServer((socket) => {
    open.add(socket);
    mostOpen = Math.max(mostOpen, open.size);
    socket.on("data", () => {});
    socket.on("close", () => open.delete(socket));
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
  good = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const body = (await request.json()) as { type: string };
      arrived.push({ type: body.type, at: performance.now() });
      return new Response(null, { status: 204 });
    },
  });
  const config = join(dir, "config.json");
  writeFileSync(
    config,
    JSON.stringify({
      jwtSecret: "a-jwt-secret-long-enough-for-the-flood-test-0123",
      databases: { agency: "agency.sqlite" },
      webhooks: { allowHttp: true, allowPrivateTargets: true },
      clients: Object.values(CLIENTS).map(({ id, apiKey, secret }) => ({
        id,
        apiKey,
        secretHash: hashSecret(secret),
        database: "agency",
        rateLimitPerMinute: 1_000_000,
      })),
    }),
    { mode: 0o600 },
  );
  server = await startBinary(binary, ["serve", "--config", config], dir);
}, 120_000);

afterAll(async () => {
  // The calls still waiting would take 300 / 16 × 10 s: the process is not waited for.
  await server?.stop("SIGKILL");
  for (const socket of open) socket.destroy();
  hanging?.close();
  good?.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

async function tokenOf(who: keyof typeof CLIENTS): Promise<string> {
  const { apiKey, secret } = CLIENTS[who];
  const response = await fetch(`${server.url}/v1/auth/token`, {
    method: "POST",
    headers: { "x-api-key": apiKey, "x-api-secret": secret },
  });
  return ((await response.json()) as { data: { token: string } }).data.token;
}

async function subscribe(token: string, url: string, events: string[]): Promise<string> {
  const response = await fetch(`${server.url}/v1/webhooks`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ url, events }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { data: { id: string } }).data.id;
}

/**
 * POST /v1/webhooks/{id}/test on a socket of its own: this process's fetch keeps at most 256
 * connections in all, and the lead below must not queue behind these calls on our side.
 */
function rawTestCall(token: string, id: string, onAnswer: () => void): Socket {
  const { port } = new URL(server.url);
  const socket = connect(Number(port), "127.0.0.1", () => {
    socket.write(
      `POST /v1/webhooks/${id}/test HTTP/1.1\r\nHost: partner-api.test\r\nAuthorization: Bearer ${token}\r\nContent-Length: 0\r\n\r\n`,
    );
  });
  socket.once("data", onAnswer);
  socket.on("error", () => {});
  return socket;
}

async function until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

describe("test events go through the per-subscription limit", () => {
  test("300 parallel test calls to a receiver that never answers: 16 at a time, and another client's lead.created arrives while they all hang", async () => {
    const hostile = await tokenOf("hostile");
    const crm = await tokenOf("crm");
    const hostileId = await subscribe(
      hostile,
      `http://127.0.0.1:${(hanging.address() as { port: number }).port}/hook`,
      ["lead.created"],
    );
    await subscribe(crm, `http://127.0.0.1:${good.port}/hook`, ["lead.created"]);
    let answeredCalls = 0;
    const calls = Array.from({ length: CALLS }, () => rawTestCall(hostile, hostileId, () => answeredCalls++));
    try {
      await until("the hanging receiver to be reached", () => open.size >= PER_SUBSCRIPTION, 20_000);
      // Let every call reach the server and take whatever it would take.
      await Bun.sleep(500);
      const created = await fetch(`${server.url}/v1/leads`, {
        method: "POST",
        headers: { authorization: `Bearer ${crm}`, "content-type": "application/json" },
        body: JSON.stringify({
          name: "Maria Oliveira",
          email: "maria@example.com",
          phone: "+55 11 98765-4321",
          message: "Quero visitar",
        }),
      });
      expect(created.status).toBe(201);
      await until("the other client's lead.created", () => arrived.some((a) => a.type === "lead.created"), 60_000);
      // Every test call still hangs (each waits 10 s for the receiver, and the first 16 started
      // before the lead): the lead did not wait for them.
      expect(answeredCalls).toBe(0);
      expect(mostOpen).toBe(PER_SUBSCRIPTION);
      expect(open.size).toBe(PER_SUBSCRIPTION);
    } finally {
      for (const call of calls) call.destroy();
    }
  }, 90_000);
});
