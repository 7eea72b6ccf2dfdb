// What recording the agency's figures costs a request (docs/operators/console.md#how-it-is-recorded),
// measured in one process on each thread's own CPU time (/proc/thread-self/stat: no other process,
// no time the machine's host took, no wrk in the figure): the recorder is given a stream of
// finished requests like a partner's (three clients, a few routes and addresses, a new request
// id each), handed to its writer thread every 5,000 as a server at 10,000 requests a second would
// twice a second, and written to a real control database. The event loop's share (observe and
// flush) and the writer thread's (the tally, the packing, the SQLite transaction, the
// checkpoints) are each divided by the requests; recording-side-by-side.ts gives the whole
// request's CPU to compare them with.
//
//   bun bench/recording-cost.ts [--requests 200000] [--rounds 5]
//
// Prints its Markdown section and records it for bench/RESULTS.md (bench/results/*-recording-cost.md).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ControlStore } from "../src/db/control/store.ts";
import { type FinishedRequest, UsageRecorder } from "../src/usage/recorder.ts";
import { recordSection } from "./lib/sections.ts";

const { values } = parseArgs({
  options: { requests: { type: "string", default: "200000" }, rounds: { type: "string", default: "5" } },
});
const REQUESTS = Number(values.requests);
const ROUNDS = Number(values.rounds);
const PER_FLUSH = 5_000;

/** A thread's CPU time in µs (user + system), from its stat file. */
function threadCpuUs(stat: string): number {
  const text = readFileSync(stat, "utf8");
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000; // USER_HZ is 100 on Linux
}
const tasks = () => new Set(readdirSync("/proc/self/task"));

const clients = ["portal-zap", "crm-vista", "site-imob"];
const routes = ["/v1/properties", "/v1/properties/:id", "/v1/leads", "/v1/changes"];
const ips = ["203.0.113.7", "198.51.100.20", "2001:db8::15"];
const ids = Array.from({ length: REQUESTS }, () => crypto.randomUUID());
const requests: FinishedRequest[] = ids.map((requestId, i) => ({
  at: Date.parse("2026-12-07T12:00:00.000Z") + Math.floor(i / 10),
  clientId: clients[i % 3]!,
  method: i % 20 === 0 ? "POST" : "GET",
  route: routes[i % 4]!,
  status: i % 50 === 0 ? 404 : 200,
  code: i % 50 === 0 ? "NOT_FOUND" : null,
  ms: 0.5 + (i % 97) / 10,
  ip: ips[i % 3]!,
  requestId,
  replayed: false,
}));

interface Round {
  loopUs: number;
  writerUs: number;
}

async function round(): Promise<Round> {
  const dir = mkdtempSync(join(tmpdir(), "pa-recording-cost-"));
  const path = join(dir, "control.sqlite");
  ControlStore.open(path, { create: true }).close();
  const before = tasks();
  const recorder = new UsageRecorder(path, {
    requests: true,
    logRows: () => 200_000,
    now: () => Date.parse("2026-12-07T12:00:00.000Z"),
    onError: (message) => console.error(message),
    flushEveryMs: 3_600_000, // flushed below, every PER_FLUSH requests
  });
  await recorder.flush(); // the thread is up and has opened the file
  const writers = [...tasks()].filter((tid) => !before.has(tid)).map((tid) => `/proc/self/task/${tid}/stat`);
  const writerStart = writers.reduce((sum, stat) => sum + threadCpuUs(stat), 0);
  const loopStart = threadCpuUs("/proc/thread-self/stat");
  const written: Promise<void>[] = [];
  for (let i = 0; i < requests.length; i++) {
    recorder.observe(requests[i]!);
    if (i % PER_FLUSH === PER_FLUSH - 1) written.push(recorder.flush());
  }
  written.push(recorder.flush());
  const loopUs = threadCpuUs("/proc/thread-self/stat") - loopStart;
  await Promise.all(written);
  const writerUs = writers.reduce((sum, stat) => sum + threadCpuUs(stat), 0) - writerStart;
  await recorder.close();
  rmSync(dir, { recursive: true, force: true });
  return { loopUs: loopUs / REQUESTS, writerUs: writerUs / REQUESTS };
}

await round(); // warms the code up
const rounds: Round[] = [];
for (let i = 0; i < ROUNDS; i++) rounds.push(await round());
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const us = (x: number) => x.toFixed(2);
const loop = median(rounds.map((r) => r.loopUs));
const writer = median(rounds.map((r) => r.writerUs));
const total = median(rounds.map((r) => r.loopUs + r.writerUs));
const lines = [
  "## Recording's cost per request, on each thread's own CPU time (`bench/recording-cost.ts`)",
  "",
  `- Date: ${new Date().toISOString()}; ${cpus().length} cores (${cpus()[0]?.model.trim()}), load average at end ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}; Bun ${Bun.version}.`,
  `- ${ROUNDS} rounds (after one to warm up) of ${REQUESTS.toLocaleString("en")} finished requests given to a recorder, handed to its writer thread every ${PER_FLUSH.toLocaleString("en")} and written to a new control database; CPU time from /proc/thread-self (the clock ticks at 10 ms, so each figure is good to about 0.05 µs at this size). Median of the rounds; per round in parentheses.`,
  "",
  "| thread | CPU µs per request |",
  "|---|---|",
  `| event loop (observe, flush) | ${us(loop)} (${rounds.map((r) => us(r.loopUs)).join(", ")}) |`,
  `| writer thread (tally, packing, SQLite, checkpoints) | ${us(writer)} (${rounds.map((r) => us(r.writerUs)).join(", ")}) |`,
  `| both | ${us(total)} |`,
];
console.log(lines.join("\n"));
recordSection("recording-cost", lines.join("\n"));
