// Feeds pulled on a schedule, end to end (docs/reference/behaviour-extensions.md §14): the compiled binary serves while its
// CRM's feed (a real local server) changes under it; the next interval brings the change to the
// API, the change feed and the webhooks (a real local receiver verifying each delivery with
// standardwebhooks), while partners keep creating leads; SIGHUP applies a changed feed at once;
// /metrics and `feeds status` tell the same story; the feed's headers never reach a log. Two
// serve processes on one database make one run per interval between them, not two.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { hashSecret } from "../../src/security/secrets.ts";
import { emptyDatabase, type FeedServer, listing, startFeedServer } from "../agency/crm-feed-server.ts";
import { ensureBinary, type RunningBinary, startBinary } from "../helpers/binary.ts";
import { childrenOf, SCHED_BATCH, scheduling, threadPolicies } from "../helpers/sched.ts";

const SECRET_HEADER = "Bearer crm-header-that-must-never-be-logged";
const dir = mkdtempSync(join(tmpdir(), "pa-feeds-e2e-"));
let binary: string;
let crm: FeedServer;

const deliveries: { id: string; payload: any }[] = [];
const unverified: string[] = [];
let webhookSecret = "";
const receiver = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    const body = await request.text();
    try {
      const payload = new Webhook(webhookSecret).verify(body, Object.fromEntries(request.headers));
      deliveries.push({ id: request.headers.get("webhook-id")!, payload });
      return new Response(null, { status: 204 });
    } catch {
      unverified.push(body.slice(0, 100));
      return new Response("bad signature", { status: 400 });
    }
  },
});

beforeAll(() => {
  binary = ensureBinary();
  crm = startFeedServer();
}, 120_000);

afterAll(() => {
  crm.stop();
  receiver.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

async function until<T>(
  what: string,
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = 45_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(100);
  }
}

function writeConfig(name: string, db: string, feedPath: string): string {
  const config = join(dir, `${name}.json`);
  writeFileSync(
    config,
    JSON.stringify({
      environment: "sandbox",
      jwtSecret: "a-jwt-secret-long-enough-for-the-feeds-e2e-test-1",
      databases: { agency: db },
      clients: [
        {
          id: "portal",
          apiKey: "pk_live_portal_feeds",
          secretHash: hashSecret("sk_live_portal"),
          database: "agency",
          rateLimitPerMinute: 100_000,
        },
      ],
      feeds: [
        {
          id: "crm",
          database: "agency",
          url: crm.url(feedPath),
          every: "30s",
          headers: { Authorization: SECRET_HEADER },
        },
      ],
    }),
  );
  return config;
}

function apiOf(server: RunningBinary) {
  let token = "";
  const call = async (method: string, path: string, body?: unknown) => {
    if (token === "") {
      const issued = await fetch(`${server.url}/v1/auth/token`, {
        method: "POST",
        headers: { "x-api-key": "pk_live_portal_feeds", "x-api-secret": "sk_live_portal" },
      });
      token = ((await issued.json()) as { data: { token: string } }).data.token;
    }
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === "" ? null : JSON.parse(text) };
  };
  return call;
}

const ALL_FIELDS =
  "id,code,title,description,operationType,status,propertyType,highlight,exclusive,isPublished,createdAt,updatedAt,address,coordinates,features,pricing,financing,photos,amenities";

describe("serve pulls its feed while partners use the API", () => {
  test("the feed's changes reach the API, the change feed and the webhooks at the next interval; leads keep being created; SIGHUP applies a new URL at once", async () => {
    const db = emptyDatabase(join(dir, "agency.sqlite"));
    crm.set(
      ["A", "B", "C"].map((code) => listing(code)),
      "/crm.xml",
    );
    const config = writeConfig("one", db, "/crm.xml");
    const server = await startBinary(binary, ["serve", "--config", config], dir, {}, { captureStdout: true });
    try {
      const api = apiOf(server);
      // The run at start.
      await until(
        "the run at start",
        async () => (await api("GET", "/v1/properties?fields=code&limit=100")).body.meta.total === 3,
      );
      const head = (await api("GET", "/v1/changes?entity=properties&limit=1")).body.meta.head as number;
      const idOf = async (code: string) =>
        (await api("GET", `/v1/properties?fields=id&code=${code}`)).body.data[0]?.id as string | undefined;
      const idB = (await idOf("B"))!;
      const subscribed = await api("POST", "/v1/webhooks", {
        url: `http://127.0.0.1:${receiver.port}/hooks`,
        events: ["property.upserted", "property.removed"],
      });
      expect(subscribed.status).toBe(201);
      webhookSecret = subscribed.body.data.secret;

      // The CRM changes its feed: A edited, B gone, D new. Partners create leads meanwhile.
      crm.set([listing("A", "Apartamento reformado"), listing("C"), listing("D")], "/crm.xml");
      const leadStatuses: number[] = [];
      let creating = true;
      const leads = (async () => {
        for (let i = 0; creating; i++) {
          leadStatuses.push(
            (
              await api("POST", "/v1/leads", {
                name: "Lead",
                email: "l@example.com",
                phone: "1",
                message: `during ${i}`,
              })
            ).status,
          );
          await Bun.sleep(50);
        }
      })();
      await until("the next interval's run", async () => (await idOf("D")) !== undefined);
      creating = false;
      await leads;
      expect(leadStatuses.length).toBeGreaterThan(0);
      expect(leadStatuses.every((status) => status === 201)).toBe(true);

      const a = await api("GET", `/v1/properties?fields=${ALL_FIELDS}&code=A`);
      expect(a.body.data[0].title).toBe("Apartamento reformado");
      expect((await api("GET", `/v1/properties/${idB}?fields=id`)).status).toBe(404);
      const idD = (await idOf("D"))!;
      const changes = (await api("GET", `/v1/changes?entity=properties&after=${head}&limit=100`)).body.data as {
        id: string;
        change: string;
      }[];
      expect(changes.map((c) => `${c.change} ${c.id}`).sort()).toEqual(
        [`remove ${idB}`, `upsert ${a.body.data[0].id}`, `upsert ${idD}`].sort(),
      );

      await until("the webhooks", () => deliveries.length >= 3);
      await Bun.sleep(300);
      const events = deliveries.map((d) => `${d.payload.type} ${d.payload.data.id}`).sort();
      expect(events).toEqual(
        [`property.removed ${idB}`, `property.upserted ${a.body.data[0].id}`, `property.upserted ${idD}`].sort(),
      );
      const upsertedA = deliveries.find((d) => d.payload.data.id === a.body.data[0].id)!;
      expect(upsertedA.payload.data.record).toEqual(
        (await api("GET", `/v1/properties/${a.body.data[0].id}?fields=${ALL_FIELDS}`)).body.data,
      );
      expect(unverified).toEqual([]);

      // A new URL in the config, applied by SIGHUP: the run comes at once, not at the next interval.
      crm.set([listing("A", "Apartamento reformado"), listing("C"), listing("D"), listing("E")], "/crm-v2.xml");
      writeConfig("one", db, "/crm-v2.xml");
      server.proc.kill("SIGHUP");
      await until("the run after SIGHUP", async () => (await idOf("E")) !== undefined, 10_000);

      // /metrics and `feeds status` tell the same story.
      const scrape = await (await fetch(`${server.url}/metrics`)).text();
      expect(scrape).toContain('partner_api_feed_last_outcome{feed="crm",database="agency",outcome="success"} 1');
      expect(scrape).toContain('partner_api_feed_last_run_listings{feed="crm",database="agency",count="created"} 1');
      const status = Bun.spawnSync([binary, "feeds", "status", "--config", config, "--json"], { cwd: dir });
      expect(status.exitCode).toBe(0);
      const feed = JSON.parse(status.stdout.toString()).feeds[0];
      expect(feed).toMatchObject({
        id: "crm",
        url: crm.url("/crm-v2.xml"),
        lastRun: { outcome: "success" },
        lastSummary: { created: 1, unchanged: 3 },
      });
      expect(status.stdout.toString()).not.toContain("never-be-logged");
    } finally {
      await server.stop();
    }
    const logs = await server.stdout();
    expect(logs).toContain('"msg":"feed run finished"');
    expect(logs).not.toContain("never-be-logged");
  }, 120_000);
});

describe("the run's process gives way to the server, without being starved", () => {
  test("every thread of a run runs under SCHED_BATCH (chrt, as on any Debian), at the server's nice value", async () => {
    expect(Bun.which("chrt")).not.toBeNull();
    const db = emptyDatabase(join(dir, "idle.sqlite"));
    crm.set([listing("I")], "/idle.xml");
    const config = writeConfig("idle", db, "/idle.xml");
    crm.behaviour = "slow"; // 3 s before the feed answers: the run's process waits meanwhile
    const server = await startBinary(binary, ["serve", "--config", config], dir);
    try {
      const isRun = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("run-claimed");
      const child = await until("the run's process", () => childrenOf(server.proc.pid).find(isRun), 10_000);
      // Bun's own threads too, not only the main one: those started before chrt and after it.
      await until(
        "SCHED_BATCH on every thread, once there are several",
        () => {
          const policies = threadPolicies(child);
          return policies.length > 1 && policies.every((policy) => policy === SCHED_BATCH);
        },
        2_500,
      );
      expect(scheduling(`/proc/${child}`).nice).toBe(scheduling(`/proc/${server.proc.pid}`).nice);
    } finally {
      crm.behaviour = "ok";
      await server.stop();
    }
  }, 60_000);
});

describe("two serve processes on one database", () => {
  test("one run per interval between them, not two", async () => {
    const db = emptyDatabase(join(dir, "shared.sqlite"));
    crm.set(
      ["A", "B"].map((code) => listing(code)),
      "/shared.xml",
    );
    const config = writeConfig("shared", db, "/shared.xml");
    const feedRequests = () => crm.requests.filter((r) => r.path === "/shared.xml").length;
    const a = await startBinary(binary, ["serve", "--config", config], dir);
    const b = await startBinary(binary, ["serve", "--config", config], dir);
    try {
      await until("the run at start", () => feedRequests() >= 1, 10_000);
      await Bun.sleep(5_000);
      expect(feedRequests()).toBe(1);
      // The next interval: 30 s after the first run started, one more request, by one of the two.
      await until("the second interval's run", () => feedRequests() >= 2, 40_000);
      await Bun.sleep(3_000);
      expect(feedRequests()).toBe(2);
    } finally {
      await a.stop();
      await b.stop();
    }
  }, 90_000);
});
