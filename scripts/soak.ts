// Soak: a bounded run of mixed load on the compiled binary (production config trusting
// 127.0.0.1 as a proxy, so X-Forwarded-For gives many distinct source addresses; many clients),
// sampling the server's VmRSS and open descriptors from /proc. Passes when both stay flat after
// warm-up (per-IP, per-client and cache state is evicted), no request failed, and every
// acknowledged lead is on disk. Stops by itself.
//   bun scripts/soak.ts [--minutes 10] [--concurrency 8] [--clients 20] [--sources 200000] [--sample-seconds 5] [--create-share 0.01]
// Creations are kept rare on purpose: every lead grows the file, and SQLite's page cache (64 MiB
// per connection) grows with it, which is bounded but would read as drift here. A first run at
// 0.05 grew the file from 4 to 42 MB and RSS by ~30 MiB while the JS heap stayed flat.
import { statSync } from "node:fs";
import { parseArgs } from "node:util";
import { MixedLoad } from "./faults/lib/load.ts";
import { finish, log } from "./faults/lib/report.ts";
import { type ProcStats, Server } from "./faults/lib/server.ts";
import { leadFigures, verified, verifyLeads } from "./faults/lib/verify.ts";
import { makeWorkspace } from "./faults/lib/workspace.ts";

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "10" },
    concurrency: { type: "string", default: "8" },
    clients: { type: "string", default: "20" },
    sources: { type: "string", default: "200000" },
    "sample-seconds": { type: "string", default: "5" },
    "create-share": { type: "string", default: "0.01" },
  },
});
const minutes = Number(values.minutes);
const sampleMs = Number(values["sample-seconds"]) * 1000;

const workspace = makeWorkspace("soak", { properties: 1000, leads: 2000, clients: Number(values.clients) });
const dbBytesAtStart = statSync(workspace.dbPath).size;
const server = await Server.start(workspace);
const runId = crypto.randomUUID().slice(0, 8);
const load = new MixedLoad({
  target: () => server.url,
  clients: workspace.clients,
  concurrency: Number(values.concurrency),
  runId,
  sourceAddresses: Number(values.sources),
  createShare: Number(values["create-share"]),
});

interface Sample extends ProcStats {
  atSeconds: number;
  sent: number;
}
const samples: Sample[] = [];
const started = performance.now();
const sample = () => {
  const stats = server.stats();
  if (stats) samples.push({ atSeconds: Math.round((performance.now() - started) / 1000), sent: load.sent, ...stats });
  return stats;
};

log(`soak: ${minutes} min on ${server.url}, ${values.clients} clients, ${values.sources} source addresses`, {
  ...sample()!,
});
load.start();
const endAt = started + minutes * 60_000;
while (performance.now() < endAt && server.alive) {
  await Bun.sleep(Math.min(sampleMs, Math.max(0, endAt - performance.now())));
  const last = sample();
  log("sample", { ...samples.at(-1), statuses: load.summary().statuses, alive: server.alive, gone: last === null });
}
await load.stop();
sample();
server.signal("SIGTERM");
const exit = await server.exit();
const check = verifyLeads(workspace.dbPath, runId, load.acknowledged, load.uncertain);

// Flat: the last fifth of the run against the second fifth (the first is warm-up: caches fill).
// Medians, because a single RSS sample swings by tens of MiB with the garbage collector's timing.
const window = (from: number, to: number) =>
  samples.filter((s) => s.atSeconds >= from * minutes * 60 && s.atSeconds <= to * minutes * 60);
const median = (list: Sample[], key: "rssMiB" | "fds") => {
  const sorted = list.map((s) => s[key]).sort((a, b) => a - b);
  return sorted.length === 0 ? NaN : sorted[Math.floor(sorted.length / 2)]!;
};
const early = window(0.2, 0.4);
const late = window(0.8, 1);
const rssGrowth = median(late, "rssMiB") - median(early, "rssMiB");
const fdGrowth = Math.max(...late.map((s) => s.fds)) - Math.max(...early.map((s) => s.fds));
const flat = rssGrowth < Math.max(25, median(early, "rssMiB") * 0.15) && fdGrowth <= 2;
const clean = load.problems.length === 0 && load.networkErrors === 0 && load.unexpected.size === 0;
const first = samples[0]!;
const lastSample = samples.at(-1)!;
finish(
  "soak",
  flat && clean && verified(check) && exit === 0,
  {
    minutes,
    requestsSent: load.sent,
    requestsPerSecond: Math.round(load.sent / (minutes * 60)),
    distinctSourceAddresses: Number(values.sources),
    clients: Number(values.clients),
    load: load.summary(),
    rssMiB: {
      start: first.rssMiB,
      medianAfterWarmUp: median(early, "rssMiB"),
      medianLastFifth: median(late, "rssMiB"),
      end: lastSample.rssMiB,
      max: Math.max(...samples.map((s) => s.rssMiB)),
      lateMinusEarly: Math.round(rssGrowth * 10) / 10,
    },
    databaseMB: {
      start: Math.round(dbBytesAtStart / 1e5) / 10,
      end: Math.round(statSync(workspace.dbPath).size / 1e5) / 10,
    },
    fds: {
      start: first.fds,
      afterWarmUp: Math.max(...early.map((s) => s.fds)),
      end: lastSample.fds,
      max: Math.max(...samples.map((s) => s.fds)),
    },
    ...leadFigures(check),
    sigtermExit: exit,
    problems: load.problems.slice(0, 20),
    samples: samples.map((s) => [s.atSeconds, s.rssMiB, s.fds]),
  },
  workspace.dir,
);
