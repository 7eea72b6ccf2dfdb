// The portal-feed-burst scenario (issue #42): 100 portals download the portal feed of a
// 50,000-listing database at once from `serve` (curl, Basic auth, the body to /dev/null). The
// server's RSS before, at its peak and once the burst is over (10 s and 30 s later); how many
// downloads were served (200) and how many asked to come back later (503 with Retry-After);
// the time to each last byte. The bound on bodies streaming at once is
// src/modules/portal-feed/bodies.ts.
//
// `serve` runs on core 0; the curls and the runner on core 1.
import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hashSecret } from "../../src/security/secrets.ts";
import { API_KEY, API_SECRET } from "./api.ts";
import { freePort, rssKb, sampleRss, startServer, track } from "./proc.ts";
import { ensureDataset, OUT, removeDatabase, ROOT, type Dataset } from "./product.ts";
import { loadAverage } from "./paced.ts";
import { markedSection, writeMarkedSection } from "./sections.ts";
import { lowerMedian as median } from "./stats.ts";

export const BURST_DATASET: Dataset = { label: "50k", properties: 50_000, leads: 1_000, seed: 42 };
export const BURST_DOWNLOADS = 100;
/** Seconds after the burst at which the settled RSS is read. */
const SETTLE_S = [10, 30] as const;

const PORTAL_KEY = "pk_live_bench_burst";
const PORTAL_SECRET = "sk_live_bench_burst_secret";

interface Download {
  status: number;
  lastByteS: number;
  bytes: number;
}

export interface BurstResult {
  alone: Download;
  downloads: Download[];
  wallS: number;
  rssMiB: { started: number; before: number; peak: number; end: number; settled: Record<number, number> };
  serverCore: number;
  loadCore: number;
  commands: string[];
  loadAverage: { before: string; after: string };
}

function curlArgv(url: string, core: number): string[] {
  return ["taskset", "-c", String(core), "curl", "-sS", "-o", "/dev/null", "-u", `${PORTAL_KEY}:${PORTAL_SECRET}`, "-w", "%{http_code} %{time_total} %{size_download}", url];
}

async function download(url: string, core: number): Promise<Download> {
  const proc = Bun.spawn(curlArgv(url, core), { stdout: "pipe", stderr: "pipe" });
  track(proc);
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`curl exited ${code}: ${err.trim()}`);
  const [status, last, bytes] = out.trim().split(" ").map(Number);
  return { status: status!, lastByteS: last!, bytes: bytes! };
}

const rssMiB = (pid: number) => rssKb(pid).rss / 1024;

export async function runPortalFeedBurst(settings: { serverCore: number; loadCore: number; log: (line: string) => void }): Promise<BurstResult> {
  const { log } = settings;
  const source = ensureDataset(BURST_DATASET, log);
  const db = join(OUT, "portal-feed-burst.sqlite");
  removeDatabase(db);
  copyFileSync(source, db);
  Bun.spawnSync(["sync"]);
  const config = join(OUT, "portal-feed-burst.json");
  writeFileSync(
    config,
    JSON.stringify({
      environment: "sandbox",
      jwtSecret: "bench-secret-long-enough-for-the-portal-feed-burst",
      databases: { bench: db },
      clients: [
        { id: "sandbox", apiKey: API_KEY, secretHash: hashSecret(API_SECRET), database: "bench" },
        { id: "portal", apiKey: PORTAL_KEY, secretHash: hashSecret(PORTAL_SECRET), database: "bench", rateLimitPerMinute: 1_000_000 },
      ],
    }),
  );
  const port = freePort();
  const argv = [join(ROOT, "dist/partner-api"), "serve", "--config", config, "--port", String(port), "--host", "127.0.0.1"];
  const server = await startServer({ name: "portal-feed-burst", argv, core: settings.serverCore, port, logFile: join(OUT, "portal-feed-burst.log") });
  const url = `${server.base}/v1/feeds/vrsync.xml`;
  const before = loadAverage();
  try {
    const started = rssMiB(server.pid);
    const alone = await download(url, settings.loadCore);
    log(`portal-feed-burst: one download alone: ${alone.status}, ${(alone.bytes / 1_048_576).toFixed(1)} MiB in ${alone.lastByteS.toFixed(2)} s`);
    await Bun.sleep(5_000);
    const beforeRss = rssMiB(server.pid);
    const sampler = sampleRss(server.pid, 100);
    const burstStarted = performance.now();
    const downloads = await Promise.all(Array.from({ length: BURST_DOWNLOADS }, () => download(url, settings.loadCore)));
    const wallS = (performance.now() - burstStarted) / 1000;
    const peak = sampler.stop().rss / 1024;
    const end = rssMiB(server.pid);
    const settled: Record<number, number> = {};
    let waited = 0;
    for (const s of SETTLE_S) {
      await Bun.sleep((s - waited) * 1000);
      waited = s;
      settled[s] = rssMiB(server.pid);
    }
    const ok = downloads.filter((d) => d.status === 200).length;
    log(
      `portal-feed-burst: ${ok} of ${BURST_DOWNLOADS} served, ${downloads.filter((d) => d.status === 503).length} asked to come back (503) in ${wallS.toFixed(1)} s; ` +
        `RSS ${beforeRss.toFixed(0)} MiB before, peak ${peak.toFixed(0)}, ${end.toFixed(0)} at the end, ${SETTLE_S.map((s) => `${settled[s]!.toFixed(0)} after ${s} s`).join(", ")}`,
    );
    return {
      alone,
      downloads,
      wallS,
      rssMiB: { started, before: beforeRss, peak, end, settled },
      serverCore: settings.serverCore,
      loadCore: settings.loadCore,
      commands: [server.command, `${BURST_DOWNLOADS} at once: ${curlArgv(url, settings.loadCore).join(" ")}`].map((c) => c.replaceAll(ROOT + "/", "")),
      loadAverage: { before, after: loadAverage() },
    };
  } finally {
    await server.stop();
    removeDatabase(db);
  }
}

const MARKS = ["<!-- portal-feed-burst:start -->", "<!-- portal-feed-burst:end -->"] as const;

export function portalFeedBurstSection(result: BurstResult, context: { date: Date; version: string; machine: string }): string {
  const served = result.downloads.filter((d) => d.status === 200);
  const refused = result.downloads.filter((d) => d.status === 503);
  const lastBytes = served.map((d) => d.lastByteS).sort((a, b) => a - b);
  const s = (n: number) => `${n.toFixed(1)} s`;
  const m = (n: number) => `${n.toFixed(0)} MiB`;
  return markedSection(...MARKS, [
    `## Portal feed burst: ${BURST_DOWNLOADS} downloads at once of a ${BURST_DATASET.properties.toLocaleString("en-US")}-listing feed`,
    "",
    `\`bun run bench --only portal-feed-burst\`, ${context.date.toISOString().slice(0, 10)}, ${context.version}, ${context.machine}; load average ${result.loadAverage.before} before, ${result.loadAverage.after} after.`,
    `\`serve\` on core ${result.serverCore}; ${BURST_DOWNLOADS} curls (Basic auth, no gzip, the body to /dev/null) started at once on core ${result.loadCore}. At most 4 bodies stream at once per process; the others wait their turn (up to 64 waiting, 20 s each), past that they are answered 503 with Retry-After (src/modules/portal-feed/bodies.ts).`,
    "",
    "| | figure |",
    "|---|---|",
    `| one download alone | ${(result.alone.bytes / 1_048_576).toFixed(1)} MiB in ${s(result.alone.lastByteS)} |`,
    `| served whole (200) | ${served.length} of ${BURST_DOWNLOADS} |`,
    `| asked to come back (503, Retry-After) | ${refused.length} |`,
    `| last byte of the served ones: fastest, median, slowest | ${s(lastBytes[0] ?? 0)}, ${s(median(lastBytes))}, ${s(lastBytes.at(-1) ?? 0)} |`,
    `| the whole burst | ${s(result.wallS)} |`,
    `| server RSS: at start, before the burst (after one download) | ${m(result.rssMiB.started)}, ${m(result.rssMiB.before)} |`,
    `| server RSS: **peak** during the burst | **${m(result.rssMiB.peak)}** |`,
    `| server RSS: at its end, ${SETTLE_S.map((x) => `${x} s`).join(" and ")} later (**settled**) | ${m(result.rssMiB.end)}, ${SETTLE_S.map((x) => m(result.rssMiB.settled[x]!)).join(", ")} |`,
    "",
    "Before the bound (the probe of issue 42, a 54 MB feed, same machine): 10, 40 and 100 downloads at once took RSS from 147 MB to 227, 369 and 605 MB, and it stayed there.",
  ], result.commands);
}

export function writePortalFeedBurstSection(section: string): void {
  writeMarkedSection(...MARKS, section);
}
