// The portal-feed-burst scenario (issue #42): 100 portals download the portal feed of a
// 50,000-listing database at once from `serve` (curl, Basic auth, the body to /dev/null), twice.
// The server's RSS before each burst, at its peak and 15 s after it; how many downloads were
// served (200) and how many were asked to come back later (503 with Retry-After). Once with the
// servers' allocator setting (freed memory kept for reuse) and once with a purge delay an
// operator may set, to tell memory kept for reuse from memory still in use. The bound on bodies
// streaming at once is src/modules/portal-feed/bodies.ts.
//
// `serve` runs on core 0; the curls and the runner on core 1.
import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hashSecret } from "../../src/security/secrets.ts";
import { API_KEY, API_SECRET } from "./api.ts";
import { loadAverage } from "./paced.ts";
import { portalCurlArgv } from "./portal-feed-bench.ts";
import { freePort, rssKb, sampleRss, startServer, track } from "./proc.ts";
import { type Dataset, ensureDataset, OUT, ROOT, removeDatabase, serveArgv } from "./product.ts";
import { markedSection, writeMarkedSection } from "./sections.ts";

export const BURST_DATASET: Dataset = { label: "50k", properties: 50_000, leads: 1_000, seed: 42 };
export const BURST_DOWNLOADS = 100;
/** Seconds after each burst at which the settled RSS is read. */
const SETTLE_S = 15;
/** The purge delay an operator may set instead of the servers' default (src/allocator.ts). */
const OPERATOR_PURGE_DELAY = "250";

const PORTAL_KEY = "pk_live_bench_burst";
const PORTAL_SECRET = "sk_live_bench_burst_secret";

interface Download {
  status: number;
  lastByteS: number;
  bytes: number;
}

export interface Burst {
  downloads: Download[];
  wallS: number;
  /** RSS just before the burst, its peak during it, and SETTLE_S after it ended. */
  rssMiB: { before: number; peak: number; settled: number };
}

/** One server: a download alone, then two bursts, each followed by SETTLE_S of nothing. */
export interface BurstServer {
  /** MIMALLOC_PURGE_DELAY: null for the servers' default (never purge). */
  purgeDelay: string | null;
  startedRssMiB: number;
  alone: Download;
  aloneRssMiB: number;
  bursts: Burst[];
}

export interface BurstResult {
  servers: BurstServer[];
  serverCore: number;
  loadCore: number;
  commands: string[];
  loadAverage: { before: string; after: string };
}

/** One of the burst's portals: status, last byte, size. */
const curlArgv = (url: string, core: number) =>
  portalCurlArgv(url, core, `${PORTAL_KEY}:${PORTAL_SECRET}`, false, "%{http_code} %{time_total} %{size_download}");

async function download(url: string, core: number): Promise<Download> {
  const proc = Bun.spawn(curlArgv(url, core), { stdout: "pipe", stderr: "pipe" });
  track(proc);
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`curl exited ${code}: ${err.trim()}`);
  const [status, last, bytes] = out.trim().split(" ").map(Number);
  return { status: status!, lastByteS: last!, bytes: bytes! };
}

const rssMiB = (pid: number) => rssKb(pid).rss / 1024;

async function burstOn(url: string, pid: number, core: number): Promise<Burst> {
  const before = rssMiB(pid);
  const sampler = sampleRss(pid, 100);
  const started = performance.now();
  const downloads = await Promise.all(Array.from({ length: BURST_DOWNLOADS }, () => download(url, core)));
  const wallS = (performance.now() - started) / 1000;
  const peak = sampler.stop().rss / 1024;
  await Bun.sleep(SETTLE_S * 1000);
  return { downloads, wallS, rssMiB: { before, peak, settled: rssMiB(pid) } };
}

async function serverRuns(
  purgeDelay: string | null,
  db: string,
  config: string,
  settings: { serverCore: number; loadCore: number; log: (line: string) => void },
  commands: string[],
): Promise<BurstServer> {
  const { log } = settings;
  const port = freePort();
  const argv = serveArgv(config, port);
  // The server inherits the runner's environment: an operator's purge delay is set there for it alone.
  const inherited = process.env.MIMALLOC_PURGE_DELAY;
  if (purgeDelay === null) delete process.env.MIMALLOC_PURGE_DELAY;
  else process.env.MIMALLOC_PURGE_DELAY = purgeDelay;
  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer({
      name: "portal-feed-burst",
      argv,
      core: settings.serverCore,
      port,
      logFile: join(OUT, "portal-feed-burst.log"),
    });
  } finally {
    if (inherited === undefined) delete process.env.MIMALLOC_PURGE_DELAY;
    else process.env.MIMALLOC_PURGE_DELAY = inherited;
  }
  const url = `${server.base}/v1/feeds/vrsync.xml`;
  const label = purgeDelay === null ? "default" : `MIMALLOC_PURGE_DELAY=${purgeDelay}`;
  if (commands.length === 0)
    commands.push(server.command, `${BURST_DOWNLOADS} at once: ${curlArgv(url, settings.loadCore).join(" ")}`);
  else commands.push(`MIMALLOC_PURGE_DELAY=${purgeDelay} ${server.command}`);
  try {
    const startedRssMiB = rssMiB(server.pid);
    const alone = await download(url, settings.loadCore);
    await Bun.sleep(SETTLE_S * 1000);
    const aloneRssMiB = rssMiB(server.pid);
    log(
      `portal-feed-burst (${label}): one download alone: ${alone.status}, ${(alone.bytes / 1_048_576).toFixed(1)} MiB in ${alone.lastByteS.toFixed(2)} s; RSS ${startedRssMiB.toFixed(0)} MiB at start, ${aloneRssMiB.toFixed(0)} after`,
    );
    const bursts: Burst[] = [];
    for (let i = 0; i < 2; i++) {
      const burst = await burstOn(url, server.pid, settings.loadCore);
      bursts.push(burst);
      const served = burst.downloads.filter((d) => d.status === 200).length;
      log(
        `portal-feed-burst (${label}) burst ${i + 1}: ${served} of ${BURST_DOWNLOADS} served, ${burst.downloads.filter((d) => d.status === 503).length} asked to come back (503) in ${burst.wallS.toFixed(1)} s; ` +
          `RSS ${burst.rssMiB.before.toFixed(0)} MiB before, peak ${burst.rssMiB.peak.toFixed(0)}, ${burst.rssMiB.settled.toFixed(0)} ${SETTLE_S} s after`,
      );
    }
    return { purgeDelay, startedRssMiB, alone, aloneRssMiB, bursts };
  } finally {
    await server.stop();
  }
}

export async function runPortalFeedBurst(settings: {
  serverCore: number;
  loadCore: number;
  log: (line: string) => void;
}): Promise<BurstResult> {
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
        {
          id: "portal",
          apiKey: PORTAL_KEY,
          secretHash: hashSecret(PORTAL_SECRET),
          database: "bench",
          rateLimitPerMinute: 1_000_000,
        },
      ],
    }),
    { mode: 0o600 },
  );
  const before = loadAverage();
  const commands: string[] = [];
  try {
    const servers = [
      await serverRuns(null, db, config, settings, commands),
      await serverRuns(OPERATOR_PURGE_DELAY, db, config, settings, commands),
    ];
    return {
      servers,
      serverCore: settings.serverCore,
      loadCore: settings.loadCore,
      commands: commands.map((c) => c.replaceAll(ROOT + "/", "")),
      loadAverage: { before, after: loadAverage() },
    };
  } finally {
    removeDatabase(db);
  }
}

const MARKS = ["<!-- portal-feed-burst:start -->", "<!-- portal-feed-burst:end -->"] as const;

export function portalFeedBurstSection(
  result: BurstResult,
  context: { date: Date; version: string; machine: string },
): string {
  const s = (n: number) => `${n.toFixed(1)} s`;
  const m = (n: number) => `${n.toFixed(0)} MiB`;
  const rows = result.servers.flatMap((server) => {
    const label = server.purgeDelay === null ? "default (never purge)" : `MIMALLOC_PURGE_DELAY=${server.purgeDelay}`;
    return [
      `| ${label} | one download alone (${(server.alone.bytes / 1_048_576).toFixed(1)} MiB in ${s(server.alone.lastByteS)}) | ${server.alone.status === 200 ? 1 : 0} | – | ${m(server.startedRssMiB)} | – | ${m(server.aloneRssMiB)} |`,
      ...server.bursts.map((burst, i) => {
        const served = burst.downloads.filter((d) => d.status === 200);
        const refused = burst.downloads.filter((d) => d.status === 503).length;
        return `| ${label} | burst ${i + 1}: ${BURST_DOWNLOADS} at once, ${s(burst.wallS)} | ${served.length} | ${refused} | ${m(burst.rssMiB.before)} | **${m(burst.rssMiB.peak)}** | **${m(burst.rssMiB.settled)}** |`;
      }),
    ];
  });
  return markedSection(
    ...MARKS,
    [
      `## Portal feed burst: ${BURST_DOWNLOADS} downloads at once of a ${BURST_DATASET.properties.toLocaleString("en-US")}-listing feed`,
      "",
      `\`bun run bench --only portal-feed-burst\`, ${context.date.toISOString().slice(0, 10)}, ${context.version}, ${context.machine}; load average ${result.loadAverage.before} before, ${result.loadAverage.after} after.`,
      `\`serve\` on core ${result.serverCore}; ${BURST_DOWNLOADS} curls (Basic auth, no gzip, the body to /dev/null) started at once on core ${result.loadCore}, twice, ${SETTLE_S} s apart. At most 4 bodies stream at once per process; the others wait their turn (up to 64 waiting, 20 s each), past that they are answered 503 with Retry-After: 60 (src/modules/portal-feed/bodies.ts).`,
      `Two servers one after the other: with the servers' default allocator setting (freed memory kept for reuse, src/allocator.ts), and with the purge delay an operator may set (MIMALLOC_PURGE_DELAY=${OPERATOR_PURGE_DELAY}).`,
      "",
      `| allocator | what | served (200) | asked to come back (503) | RSS before | RSS peak | RSS ${SETTLE_S} s after (settled) |`,
      "|---|---|---|---|---|---|---|",
      ...rows,
      "",
      "Before the bound (the probe of issue 42, a 54 MB feed, same machine): 10, 40 and 100 downloads at once took RSS from 147 MB to 227, 369 and 605 MB, and it stayed there.",
      "Read it so: what a burst adds over one download alone is the bound's (4 bodies at once, not 100), and a second burst reuses it rather than adding as much again. What stays after the first download is the same with the purge delay set, so it is memory the process keeps in use (its JavaScript heap's capacity, its read connections' page caches), not freed memory the allocator holds for reuse.",
    ],
    result.commands,
  );
}

export function writePortalFeedBurstSection(section: string): void {
  writeMarkedSection(...MARKS, section);
}
