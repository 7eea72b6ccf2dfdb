// Webhook tests' tools: a real local receiver that verifies every delivery with the
// standardwebhooks library, an app whose worker the test drives by hand, and the requests a
// partner makes to manage subscriptions.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { silentLogger } from "../../../src/logging.ts";
import { createServerWebhooks } from "../../../src/modules/webhooks/service.ts";
import type { Resolve } from "../../../src/modules/webhooks/targets.ts";
import { client, createTestApp, read, type TestApp, type TestAppOptions, type TestClient } from "../../helpers/app.ts";

export interface Received {
  headers: Record<string, string>;
  body: string;
  json: any;
}

/** What the receiver answers one request with; async to hang or stall. */
export type Answer = (request: Request, index: number) => Response | Promise<Response>;

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Changes what it answers from now on. */
  answer(next: Answer): void;
  /** Checks each delivery with standardwebhooks under `secret`; returns the parsed payloads. */
  verifyAll(secret: string): unknown[];
  stop(): void;
}

/**
 * A receiver on 127.0.0.1. With `tls` it serves https under that certificate, at a URL naming
 * `tls.host` (tests resolve that name to 127.0.0.1 themselves).
 */
export function startReceiver(initial: Answer = () => new Response("ok"), tls?: KeyPair & { host: string }): Receiver {
  const received: Received[] = [];
  let answer = initial;
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 60,
    ...(tls ? { tls: { cert: tls.cert, key: tls.key } } : {}),
    async fetch(request) {
      const body = await request.text();
      const headers = Object.fromEntries(request.headers);
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {}
      received.push({ headers, body, json });
      return answer(request, received.length - 1);
    },
  });
  return {
    url: tls ? `https://${tls.host}:${server.port}/hooks` : `http://127.0.0.1:${server.port}/hooks`,
    port: server.port!,
    received,
    answer: (next) => (answer = next),
    verifyAll(secret) {
      const wh = new Webhook(secret);
      return received.map((r) => wh.verify(r.body, r.headers));
    },
    stop: () => server.stop(true),
  };
}

export const PARTNER = client("partner");
export const OTHER = client("other");

export interface WebhookApp extends TestApp {
  partner: string;
  other: string;
  /** Runs worker passes until nothing is due now and no attempt is under way. */
  deliver(): Promise<void>;
  call(
    method: string,
    path: string,
    body?: unknown,
    token?: string,
  ): Promise<{ status: number; body: any; headers: Headers }>;
}

/**
 * A production app with two clients on one database, targets open to local receivers unless
 * `webhookTargets` says otherwise; its clock starts at the real time, since standardwebhooks
 * checks timestamps against the real clock.
 */
export async function webhookApp(
  options: TestAppOptions & {
    resolve?: Resolve;
    ca?: string;
    random?: () => number;
    timeoutMs?: number;
    testSlotWaitMs?: number;
  } = {},
): Promise<WebhookApp> {
  const t = createTestApp({
    clients: [PARTNER.entry, OTHER.entry],
    webhookTargets: { allowHttp: true, allowPrivateTargets: true },
    webhooks: (runtime) =>
      createServerWebhooks(runtime, {
        logger: process.env.WEBHOOK_TEST_LOG
          ? ({ warn: (...a: unknown[]) => console.error(...a) } as never)
          : silentLogger(),
        ...(options.resolve ? { resolve: options.resolve } : {}),
        ...(options.ca ? { ca: options.ca } : {}),
        random: options.random ?? (() => 0.5),
        ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.testSlotWaitMs ? { testSlotWaitMs: options.testSlotWaitMs } : {}),
      }),
    ...options,
  });
  t.clock.ms = Date.now();
  const partner = await t.token(PARTNER);
  const other = await t.token(OTHER);
  // Tests move the clock by days: a token past its hour is swapped for a fresh one of the same client.
  const issued = new Map<string, { at: number; fresh: string; who: TestClient }>([
    [partner, { at: t.clock.now(), fresh: partner, who: PARTNER }],
    [other, { at: t.clock.now(), fresh: other, who: OTHER }],
  ]);
  const current = async (token: string) => {
    const entry = issued.get(token);
    if (entry === undefined) return token;
    if (t.clock.now() - entry.at > 50 * 60 * 1000)
      Object.assign(entry, { at: t.clock.now(), fresh: await t.token(entry.who) });
    return entry.fresh;
  };
  const call = async (method: string, path: string, body?: unknown, given = partner) => {
    const token = await current(given);
    const response = await t.request(path, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { "content-type": "application/json" } : {}),
      },
      ...(body !== undefined ? { body: typeof body === "string" ? body : JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: text === "" ? null : JSON.parse(text), headers: response.headers };
  };
  const worker = t.webhooks.worker;
  return {
    ...t,
    partner,
    other,
    call,
    async deliver() {
      for (let pass = 0; pass < 50; pass++) {
        await worker.runOnce();
        await worker.idle();
        // Events are sent once on disk: a pass that met newer ones asked for the WAL's sync,
        // whose callback (another turn of the event loop) the next pass needs.
        for (const tenant of t.runtime.tenants.all()) await tenant.writer.synced();
        const due = await dueNow(t);
        if (!due && worker.unrecorded() === 0) return;
      }
      throw new Error("deliveries still due after 50 passes");
    },
  };
}

async function dueNow(t: TestApp): Promise<boolean> {
  const tenant = t.runtime.tenants.all()[0]!;
  const row = tenant.read
    .query("SELECT count(*) AS n FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= ?")
    .get(t.clock.now()) as { n: number };
  const cursor = tenant.read
    .query("SELECT (SELECT sequence FROM webhook_cursor) < (SELECT coalesce(max(sequence), 0) FROM changes) AS behind")
    .get() as {
    behind: number;
  };
  return row.n > 0 || cursor.behind === 1;
}

export const LEAD = {
  name: "Ana Souza",
  email: "ana@example.com",
  phone: "+55 11 90000-0000",
  message: "Quero visitar",
};

export async function createLead(app: WebhookApp, token = app.partner): Promise<any> {
  const response = await app.call("POST", "/v1/leads", LEAD, token);
  if (response.status !== 201) throw new Error(`lead: ${response.status}`);
  return response.body.data;
}

export { read, type TestClient };

export interface KeyPair {
  cert: string;
  key: string;
}

export interface Certificates {
  /** The test authority's certificate: what the worker is told to trust. */
  ca: string;
  /** A certificate from that authority for each host asked for. */
  issued: Record<string, KeyPair>;
  /** A self-signed certificate for the first host: from no authority the worker trusts. */
  selfSigned: KeyPair;
}

/** A throwaway authority and certificates (PEM, P-256, valid 2 days) made by openssl in a temp folder, removed before returning. */
export function testCertificates(hosts: string[]): Certificates {
  const dir = mkdtempSync(join(tmpdir(), "pa-tls-"));
  const openssl = (...args: string[]) => {
    const run = spawnSync("openssl", args, { cwd: dir, encoding: "utf8" });
    if (run.status !== 0) throw new Error(`openssl ${args.slice(0, 2).join(" ")} failed: ${run.stderr}`);
  };
  const pair = (name: string): KeyPair => ({
    cert: readFileSync(join(dir, `${name}.crt`), "utf8"),
    key: readFileSync(join(dir, `${name}.key`), "utf8"),
  });
  const newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  try {
    openssl(
      "req",
      "-x509",
      ...newKey,
      "-keyout",
      "ca.key",
      "-out",
      "ca.crt",
      "-days",
      "2",
      "-subj",
      "/CN=partner-api test CA",
    );
    const issued: Record<string, KeyPair> = {};
    hosts.forEach((host, i) => {
      openssl("req", ...newKey, "-keyout", `${i}.key`, "-out", `${i}.csr`, "-subj", `/CN=${host}`);
      writeFileSync(join(dir, `${i}.ext`), `subjectAltName=DNS:${host}\n`);
      openssl(
        "x509",
        "-req",
        "-in",
        `${i}.csr`,
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        `${i}.crt`,
        "-days",
        "2",
        "-extfile",
        `${i}.ext`,
      );
      issued[host] = pair(String(i));
    });
    const host = hosts[0]!;
    openssl(
      "req",
      "-x509",
      ...newKey,
      "-keyout",
      "self.key",
      "-out",
      "self.crt",
      "-days",
      "2",
      "-subj",
      `/CN=${host}`,
      "-addext",
      `subjectAltName=DNS:${host}`,
    );
    return { ca: pair("ca").cert, issued, selfSigned: pair("self") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
