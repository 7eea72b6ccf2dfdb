// The `webhooks` scenario (issue #17): deliveries per second from one server to a local
// receiver with 4 subscriptions, and the props-few hot path while deliveries run, as a ratio
// of the same path with no subscription, side by side in the same run. Its figures go into a
// section of their own in RESULTS.md; the rest of the file is left as it was.
import { Database } from "bun:sqlite";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { issueToken } from "./api.ts";
import { type LoadSettings, measureQuietly, type Sample } from "./measure.ts";
import { freePort, type Server, startServer } from "./proc.ts";
import { BINARY, OUT, ROOT, removeDatabase, sandboxArgv } from "./product.ts";
import type { Scenario } from "./scenarios.ts";
import { writeMarkedSection } from "./sections.ts";
import { type Spread, spread } from "./stats.ts";

export const SUBSCRIPTIONS = 4;
/** Events per throughput round: the dataset's leads updated this many times over, in one outside commit. */
const UPDATE_PASSES = 5;
/** Leads created per second during the hot-path comparison, both with and without subscriptions. */
export const FEED_LEADS_PER_S = 100;
const PROPS_FEW: Scenario = {
  id: "props-few",
  title: "props-few",
  script: "bearer.lua",
  path: "/v1/properties?fields=id,title,pricing&limit=20",
  captures: [],
  targets: ["product"],
  writes: false,
};
const MARK_START = "<!-- webhooks:start -->";
const MARK_END = "<!-- webhooks:end -->";

export interface WebhookResult {
  events: number;
  deliveries: number;
  deliveriesPerS: Spread;
  eventsPerS: Spread;
  without: Sample[];
  with: Sample[];
  /** Deliveries the receiver got per second during the runs with subscriptions. */
  deliveriesDuringLoad: Spread;
  /** Leads created per second during each side's runs: the same write load on both, or the ratio means little. */
  leadsPerS: { without: Spread; with: Spread };
  ratio: Spread;
  commands: string[];
}

interface Stats {
  count: number;
  first: number;
  last: number;
}

const stats = async (receiver: Server): Promise<Stats> =>
  (await fetch(`${receiver.base}/stats`)).json() as Promise<Stats>;
const reset = async (receiver: Server) => void (await fetch(`${receiver.base}/reset`, { method: "POST" }));

async function call(base: string, token: string, method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text === "" ? null : JSON.parse(text);
}

async function subscribeAll(product: Server, token: string, receiver: Server): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < SUBSCRIPTIONS; i++) {
    const created = await call(product.base, token, "POST", "/v1/webhooks", {
      url: `${receiver.base}/s${i}`,
      events: ["lead.created", "lead.updated"],
    });
    ids.push(created.data.id);
  }
  return ids;
}

async function unsubscribeAll(product: Server, token: string, ids: string[]): Promise<void> {
  for (const id of ids) await call(product.base, token, "DELETE", `/v1/webhooks/${id}`);
}

async function waitFor(receiver: Server, count: number, timeoutMs: number): Promise<Stats> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = await stats(receiver);
    if (now.count >= count) return now;
    if (Date.now() > deadline)
      throw new Error(`the receiver got ${now.count} of ${count} deliveries in ${timeoutMs / 1000} s`);
    await Bun.sleep(20);
  }
}

/**
 * Creates leads at a steady rate until stopped (bench/lead-feeder.ts): the write load
 * deliveries come from, the same on both sides of the comparison. Its own process on the load
 * core, ahead of wrk (nice -10), so wrk cannot starve it.
 */
function leadFeeder(
  base: string,
  token: string,
  perSecond: number,
  core: number,
): { stop(): Promise<{ created: number; seconds: number }> } {
  const proc = Bun.spawn(
    [
      "taskset",
      "-c",
      String(core),
      "nice",
      "-n",
      "-10",
      process.execPath,
      join(ROOT, "bench/lead-feeder.ts"),
      "--base",
      base,
      "--token",
      token,
      "--per-second",
      String(perSecond),
    ],
    { stdout: "pipe", stderr: "inherit" },
  );
  return {
    async stop() {
      proc.kill("SIGTERM");
      const [text, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited]);
      if (code !== 0) throw new Error(`the lead feeder exited with ${code}`);
      return JSON.parse(text) as { created: number; seconds: number };
    },
  };
}

export async function runWebhookScenario(options: {
  source: string;
  settings: LoadSettings;
  rounds: number;
  serverCore: number;
  loadCore: number;
  log: (line: string) => void;
}): Promise<WebhookResult> {
  const { settings, log } = options;
  const db = join(OUT, "work-webhooks.sqlite");
  removeDatabase(db);
  copyFileSync(options.source, db);
  const servers: Server[] = [];
  try {
    const port = freePort();
    const product = await startServer({
      name: "product",
      argv: sandboxArgv(db, port),
      core: options.serverCore,
      port,
      logFile: join(OUT, "product-webhooks.log"),
    });
    servers.push(product);
    const receiverPort = freePort();
    const receiver = await startServer({
      name: "receiver",
      argv: [process.execPath, join(ROOT, "bench/webhook-receiver.ts"), "--port", String(receiverPort)],
      core: options.loadCore,
      port: receiverPort,
      logFile: join(OUT, "receiver-webhooks.log"),
    });
    servers.push(receiver);
    // As a reader would type them from the project's root.
    const commands = [product.command, receiver.command].map((c) =>
      c.replaceAll(process.execPath, "bun").replaceAll(ROOT + "/", ""),
    );
    let token = await issueToken(product.base);
    const leads = (await call(product.base, token, "GET", "/v1/leads?fields=id&limit=1")).meta.total as number;

    // Throughput: a backlog of events written by another process in one commit, delivered to 4 subscriptions.
    let subscriptions = await subscribeAll(product, token, receiver);
    const outside = new Database(db);
    outside.run("PRAGMA busy_timeout = 5000");
    const deliveriesPerS: number[] = [];
    const eventsPerS: number[] = [];
    const events = leads * UPDATE_PASSES;
    for (let round = 0; round < options.rounds; round++) {
      await reset(receiver);
      const started = Date.now();
      outside.transaction(() => {
        for (let pass = 0; pass < UPDATE_PASSES; pass++) {
          outside.run("UPDATE leads SET priority = CASE priority WHEN 'HIGH' THEN 'LOW' ELSE 'HIGH' END");
        }
      })();
      const done = await waitFor(receiver, events * SUBSCRIPTIONS, 300_000);
      const seconds = (done.last - started) / 1000;
      deliveriesPerS.push((events * SUBSCRIPTIONS) / seconds);
      eventsPerS.push(events / seconds);
      log(
        `[webhooks r${round + 1}/${options.rounds}] ${events} events × ${SUBSCRIPTIONS} subscriptions delivered in ${seconds.toFixed(2)} s: ${Math.round(events / seconds)} events/s, ${Math.round((events * SUBSCRIPTIONS) / seconds)} deliveries/s`,
      );
    }
    outside.close();

    // The hot path with and without subscriptions, leads arriving at the same rate in both.
    const without: Sample[] = [];
    const withSubs: Sample[] = [];
    const duringLoad: number[] = [];
    const leadsPerS = { without: [] as number[], with: [] as number[] };
    for (let round = 0; round < options.rounds; round++) {
      token = await issueToken(product.base);
      const order = round % 2 === 0 ? (["without", "with"] as const) : (["with", "without"] as const);
      for (const phase of order) {
        if (phase === "without" && subscriptions.length > 0) {
          await unsubscribeAll(product, token, subscriptions);
          subscriptions = [];
        }
        if (phase === "with" && subscriptions.length === 0)
          subscriptions = await subscribeAll(product, token, receiver);
        await reset(receiver);
        const feeder = leadFeeder(product.base, token, FEED_LEADS_PER_S, options.loadCore);
        const sample = await measureQuietly(product, PROPS_FEW, token, settings, false);
        const { created, seconds } = await feeder.stop();
        const received = (await stats(receiver)).count;
        leadsPerS[phase].push(created / seconds);
        if (phase === "with") {
          withSubs.push(sample);
          duringLoad.push(received / seconds);
        } else {
          without.push(sample);
        }
        log(
          `[webhooks r${round + 1}/${options.rounds}] props-few ${phase.padEnd(7)} subscriptions: ${Math.round(sample.rps)} req/s  p99 ${sample.p99Ms.toFixed(2)} ms  (${created} leads created, ${received} deliveries received)`,
        );
      }
    }
    const ratios = withSubs.map((s, i) => s.rps / without[i]!.rps);
    return {
      events,
      deliveries: events * SUBSCRIPTIONS,
      deliveriesPerS: spread(deliveriesPerS),
      eventsPerS: spread(eventsPerS),
      without,
      with: withSubs,
      deliveriesDuringLoad: spread(duringLoad),
      leadsPerS: { without: spread(leadsPerS.without), with: spread(leadsPerS.with) },
      ratio: spread(ratios),
      commands,
    };
  } finally {
    for (const server of servers.reverse()) await server.stop();
    removeDatabase(db);
  }
}

const fmt = (s: Spread, digits = 0) =>
  `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}–${s.max.toFixed(digits)})`;

export function webhookSection(
  result: WebhookResult,
  context: {
    date: Date;
    machine: string;
    version: string;
    rounds: number;
    durationS: number;
    connections: number;
    load: string;
  },
): string {
  const rps = (samples: Sample[]) => spread(samples.map((s) => s.rps));
  const p99 = (samples: Sample[]) => spread(samples.map((s) => s.p99Ms));
  const met = (ok: boolean) => (ok ? "**met**" : "**missed**");
  const disturbed = [...result.with, ...result.without].filter((s) => Math.max(s.foreign, s.foreignLoad) > 0.25).length;
  return [
    MARK_START,
    "## Webhooks (issue #17)",
    "",
    `Run ${context.date.toISOString()} on ${context.machine}, ${context.version}, ${context.rounds} rounds, ` +
      `\`bun run bench --only webhooks\`. The product (\`${BINARY.replace(ROOT + "/", "")} sandbox\`) on core 0; the receiver ` +
      "(`bench/webhook-receiver.ts`, answers 204), wrk and the runner on core 1.",
    "",
    `**Deliveries per second.** ${SUBSCRIPTIONS} subscriptions to \`lead.created\`/\`lead.updated\`; another process updates every lead ` +
      `${UPDATE_PASSES} times in one commit (${result.events} events, ${result.deliveries} deliveries), and the clock runs from that commit to ` +
      "the receiver's last delivery (dispatch, signing, claiming, sending and recording each outcome included).",
    "",
    "| figure | median (min–max) | goal | verdict |",
    "|---|---|---|---|",
    `| events/s to ${SUBSCRIPTIONS} subscriptions | ${fmt(result.eventsPerS)} | ≥ 2,000 | ${met(result.eventsPerS.median >= 2000)} |`,
    `| deliveries/s (events × subscriptions) | ${fmt(result.deliveriesPerS)} | | |`,
    "",
    `**The hot path while deliveries run.** \`props-few\` under wrk (${context.connections} connections, ${context.durationS} s), ` +
      `while a feeder process (on the load core, ahead of wrk) creates ${FEED_LEADS_PER_S} leads/s through the API; once with ${SUBSCRIPTIONS} subscriptions receiving them, once with none, ` +
      "alternating which goes first.",
    "",
    "| figure | median (min–max) | goal | verdict |",
    "|---|---|---|---|",
    `| props-few req/s, no subscription | ${fmt(rps(result.without))} | | |`,
    `| props-few req/s, ${SUBSCRIPTIONS} subscriptions | ${fmt(rps(result.with))} | | |`,
    `| ratio (with ÷ without, per round) | ${fmt(result.ratio, 3)} | ≥ 0.9 | ${met(result.ratio.median >= 0.9)} |`,
    `| props-few p99 ms, no subscription / with | ${fmt(p99(result.without), 2)} / ${fmt(p99(result.with), 2)} | | |`,
    `| leads created/s, no subscription / with | ${fmt(result.leadsPerS.without)} / ${fmt(result.leadsPerS.with)} | | |`,
    `| deliveries/s received meanwhile (while leads were fed) | ${fmt(result.deliveriesDuringLoad)} | | |`,
    "",
    `Rounds of the hot-path comparison with others taking more than 25 % of a core: ${disturbed} of ${result.with.length + result.without.length}. ` +
      `Load average at the end: ${context.load}.`,
    "",
    "Commands:",
    "",
    "```sh",
    ...result.commands,
    "```",
    MARK_END,
  ].join("\n");
}

/** Puts the section into RESULTS.md in place of the previous one (or at the end), leaving the rest as it is. */
export function writeWebhookSection(section: string): void {
  writeMarkedSection(MARK_START, MARK_END, section);
}
