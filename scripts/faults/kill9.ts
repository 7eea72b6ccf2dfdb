// kill -9 at random moments under a mixed load, again and again, restarting each time; then
// proof from the file that nothing acknowledged was lost or doubled: every 201's lead present
// once, keyed retries of lost answers never duplicated, keys still replaying, integrity "ok".
//   bun scripts/faults/kill9.ts [--rounds 20] [--min-ms 300] [--max-ms 2500] [--concurrency 16]
import { parseArgs } from "node:util";
import { MixedLoad } from "./lib/load.ts";
import { finish, log } from "./lib/report.ts";
import { Server } from "./lib/server.ts";
import { verified, verifyLeads } from "./lib/verify.ts";
import { makeWorkspace } from "./lib/workspace.ts";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "20" },
    "min-ms": { type: "string", default: "300" },
    "max-ms": { type: "string", default: "2500" },
    concurrency: { type: "string", default: "16" },
  },
});
const rounds = Number(values.rounds);
const [minMs, maxMs] = [Number(values["min-ms"]), Number(values["max-ms"])];

const workspace = makeWorkspace("kill9", { properties: 300, leads: 300, clients: 4 });
const runId = crypto.randomUUID().slice(0, 8);
let server: Server | null = await Server.start(workspace);
const port = server.port;
const load = new MixedLoad({
  target: () => server?.url ?? null,
  clients: workspace.clients,
  concurrency: Number(values.concurrency),
  runId,
  sourceAddresses: 2_000,
  createShare: 0.4,
});
log(`kill -9 loop: ${rounds} rounds on ${server.url}`, { db: workspace.dbPath });
load.start();

const restartsMs: number[] = [];
let retried = 0;
for (let round = 1; round <= rounds; round++) {
  await Bun.sleep(minMs + Math.random() * (maxMs - minMs));
  const before = load.acknowledged.size;
  const victim: Server = server!;
  victim.signal("SIGKILL");
  server = null;
  const exit = await victim.exit();
  server = await Server.start(workspace, { port });
  restartsMs.push(server.startupMs);
  retried += await load.retryUncertain(server.url);
  log(`round ${round}: killed (${exit}), restarted in ${server.startupMs} ms`, {
    acknowledgedSoFar: before,
    sent: load.sent,
  });
}

await Bun.sleep(500);
await load.stop();
retried += await load.retryUncertain(server!.url);
const replay = await load.replayAcknowledged(server!.url, 300);
server!.signal("SIGTERM");
const finalExit = await server!.exit();
const check = verifyLeads(workspace.dbPath, runId, load.acknowledged, load.uncertain);

const ok = verified(check) && replay.wrong.length === 0 && load.problems.length === 0 && finalExit === 0;
finish(
  "kill9",
  ok,
  {
    faultsInjected: rounds,
    kind: "SIGKILL at a random moment (uniform in [min-ms, max-ms] after the previous restart) under mixed load",
    load: load.summary(),
    keyedRetriesOfLostAnswers: retried,
    idempotentReplaysAfterRestarts: replay.replayed,
    replayMismatches: replay.wrong.slice(0, 10),
    restartMs: { min: Math.min(...restartsMs), max: Math.max(...restartsMs) },
    leadsAcknowledged: check.acknowledged,
    leadsFound: check.found,
    missing: check.missing.slice(0, 10),
    duplicated: check.duplicated.slice(0, 10),
    lostAnswersThatLanded: `${check.uncertainLanded} of ${check.uncertainTotal} (unkeyed, unretried: at most once each)`,
    integrityCheck: check.integrity,
    finalSigtermExit: finalExit,
    problems: load.problems.slice(0, 20),
  },
  workspace.dir,
);
