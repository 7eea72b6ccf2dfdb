// The portal-feed scenario (issue #25): a 100,000-listing VRSync feed served by `serve` to
// portals (curl, as a portal's fetcher: Basic auth, the body to /dev/null) while partners create
// leads and read lists at a steady pace. Time to the first and the last byte, MB/s, the server's
// peak RSS growth; lead and read p99 while one portal, then ten at once, download the feed, as
// a ratio of the same load with no download.
//
// `serve` runs on core 0; the portals (curl), wrk and the runner share core 1.
import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hashSecret } from "../../src/security/secrets.ts";
import { API_KEY, API_SECRET, issueToken } from "./api.ts";
import {
  DEFAULT_PACE,
  describeLoad,
  LOAD_TABLE_HEAD,
  type Load,
  loadAverage,
  loadRow,
  type PacedScenarioSettings,
  pacedPartners,
  READ_PATH,
  STALLS_NOTE,
} from "./paced.ts";
import { freePort, processCpuS, rssKb, sampleRss, startServer, track } from "./proc.ts";
import { type Dataset, ensureDataset, OUT, ROOT, removeDatabase, serveArgv } from "./product.ts";
import { markedSection, writeMarkedSection } from "./sections.ts";
import { lowerMedian as median } from "./stats.ts";
import { wrkCommandLine } from "./wrk.ts";

export const PORTAL_FEED_DATASET: Dataset = { label: "100k", properties: 100_000, leads: 10_000, seed: 42 };
/** The issue's goal: lead p99 during a download at most 1.5× the same load's without one. */
export const PORTAL_FEED_TARGETS = { leadP99Ratio: 1.5 } as const;
export const PORTALS_AT_ONCE = 10;
/** Downloads of one portal, one after another, while partners work: enough windows for a median a neighbour's burst does not decide. */
export const ONE_PORTAL_DOWNLOADS = 3;

const PORTAL_KEY = "pk_live_bench_portal";
const PORTAL_SECRET = "sk_live_bench_portal_secret";

export type PortalFeedSettings = PacedScenarioSettings;

/** As the feed-run scenario: partners at a steady pace, not a closed loop saturating the core. */
export const DEFAULT_PORTAL_FEED_PACE = DEFAULT_PACE;

export interface Download {
  /** Seconds from the request to the first body byte, and to the last. */
  firstByteS: number;
  lastByteS: number;
  bytes: number;
  status: number;
}

export interface PortalFeedResult {
  settings: Omit<PortalFeedSettings, "log">;
  published: number;
  /** The first request after start (a HEAD): finds the listings VRSync cannot carry in a pass over all of them. */
  firstHeadS: number;
  alone: { plain: Download; gzip: Download; plainRssGrowthMiB: number; gzipRssGrowthMiB: number; serverCpuS: number };
  quiet: Load;
  quietAfter: Load;
  one: { downloads: Download[]; windows: Load[]; rssGrowthMiB: number };
  ten: { downloads: Download[]; windows: Load[]; rssGrowthMiB: number; wallS: number };
  serverRssBeforeMiB: number;
  commands: string[];
  loadAverage: { before: string; after: string };
}

/** curl as a portal's fetcher, on `core`: Basic auth as `user` (key:secret), the body to /dev/null, `writeOut` of what it measured. */
export function portalCurlArgv(url: string, core: number, user: string, gzip: boolean, writeOut: string): string[] {
  return [
    "taskset",
    "-c",
    String(core),
    "curl",
    "-sS",
    "-o",
    "/dev/null",
    "-u",
    user,
    ...(gzip ? ["-H", "Accept-Encoding: gzip"] : []),
    "-w",
    writeOut,
    url,
  ];
}

/** This bench's portal, asking for what it times: status, first and last byte, size. */
const curlArgv = (url: string, core: number, gzip: boolean) =>
  portalCurlArgv(
    url,
    core,
    `${PORTAL_KEY}:${PORTAL_SECRET}`,
    gzip,
    "%{http_code} %{time_starttransfer} %{time_total} %{size_download}",
  );

/** One portal's download, as curl measured it. */
async function download(url: string, core: number, gzip: boolean): Promise<Download> {
  const proc = Bun.spawn(curlArgv(url, core, gzip), { stdout: "pipe", stderr: "pipe" });
  track(proc);
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`curl exited ${code}: ${err.trim()}`);
  const [status, first, last, bytes] = out.trim().split(" ").map(Number);
  return { status: status!, firstByteS: first!, lastByteS: last!, bytes: bytes! };
}

const mib = (bytes: number) => bytes / 1_048_576;
const rssMiB = (pid: number) => rssKb(pid).rss / 1024;

function writeConfig(path: string, db: string): void {
  writeFileSync(
    path,
    JSON.stringify({
      environment: "sandbox",
      jwtSecret: "bench-secret-long-enough-for-the-portal-feed-scenario",
      databases: { bench: db },
      clients: [
        {
          id: "sandbox",
          apiKey: API_KEY,
          secretHash: hashSecret(API_SECRET),
          database: "bench",
          rateLimitPerMinute: 1_000_000_000,
        },
        {
          id: "portal",
          apiKey: PORTAL_KEY,
          secretHash: hashSecret(PORTAL_SECRET),
          database: "bench",
          rateLimitPerMinute: 1_000_000,
        },
      ],
    }),
  );
}

export async function runPortalFeedBench(settings: PortalFeedSettings): Promise<PortalFeedResult> {
  const { log } = settings;
  const source = ensureDataset(PORTAL_FEED_DATASET, log);
  const db = join(OUT, "portal-feed-100k.sqlite");
  removeDatabase(db);
  copyFileSync(source, db);
  Bun.spawnSync(["sync"]);
  const config = join(OUT, "portal-feed.json");
  writeConfig(config, db);
  const port = freePort();
  const argv = serveArgv(config, port);
  const server = await startServer({
    name: "portal-feed",
    argv,
    core: settings.serverCore,
    port,
    logFile: join(OUT, "portal-feed.log"),
  });
  const feedUrl = `${server.base}/v1/feeds/vrsync.xml`;
  const token = await issueToken(server.base);
  const partners = pacedPartners({
    base: server.base,
    token,
    core: settings.loadCore,
    label: "portal-feed",
    leads: settings.leads,
    reads: settings.reads,
  });
  const load = partners.load;
  /** Paced windows while `downloads` run, until they have all ended. */
  const windowsDuring = async (downloads: Promise<unknown>): Promise<Load[]> => {
    let done = false;
    void downloads.finally(() => (done = true));
    const windows: Load[] = [];
    while (!done) {
      windows.push(await load(settings.windowS));
      log(`portal-feed window ${windows.length}: ${describe(windows.at(-1)!)}`);
    }
    return windows;
  };
  const describe = describeLoad;
  const describeDownload = (d: Download) =>
    `${d.status}, ${mib(d.bytes).toFixed(1)} MiB, first byte ${d.firstByteS.toFixed(2)} s, last byte ${d.lastByteS.toFixed(2)} s, ${(mib(d.bytes) / d.lastByteS).toFixed(1)} MiB/s`;
  const before = loadAverage();
  try {
    const published = Number(
      (
        (await (
          await fetch(`${server.base}/v1/properties?fields=id&limit=1`, {
            headers: { authorization: `Bearer ${token}` },
          })
        ).json()) as { meta: { total: number } }
      ).meta.total,
    );
    // The first feed after start finds the listings VRSync cannot carry in one pass over all of
    // them (later feeds read only what the change log says changed): timed apart, once.
    const firstHeadStarted = performance.now();
    await (
      await fetch(feedUrl, {
        method: "HEAD",
        headers: { authorization: `Basic ${btoa(`${PORTAL_KEY}:${PORTAL_SECRET}`)}` },
      })
    ).arrayBuffer();
    const firstHeadS = (performance.now() - firstHeadStarted) / 1000;
    log(`portal-feed: ${published} published listings; the first HEAD after start took ${firstHeadS.toFixed(2)} s`);

    await load(2); // warm-up, unmeasured
    const serverRssBeforeMiB = rssMiB(server.pid);
    // One portal alone, nothing else running: plain, then gzip.
    const alone = async (gzip: boolean) => {
      const rss = sampleRss(server.pid);
      const baseline = rssMiB(server.pid);
      const cpu = processCpuS(server.pid);
      const d = await download(feedUrl, settings.loadCore, gzip);
      return { d, growth: rss.stop().rss / 1024 - baseline, cpuS: processCpuS(server.pid) - cpu };
    };
    const plain = await alone(false);
    log(
      `portal-feed alone, plain: ${describeDownload(plain.d)}; server CPU ${plain.cpuS.toFixed(1)} s, RSS +${plain.growth.toFixed(0)} MiB`,
    );
    const gzip = await alone(true);
    log(`portal-feed alone, gzip: ${describeDownload(gzip.d)}; RSS +${gzip.growth.toFixed(0)} MiB`);

    const quiet = await load(settings.quietS);
    log(`portal-feed quiet: ${describe(quiet)}`);

    // One portal while partners work.
    let rss = sampleRss(server.pid);
    let baseline = rssMiB(server.pid);
    const oneDownloads = (async () => {
      const done: Download[] = [];
      for (let i = 0; i < ONE_PORTAL_DOWNLOADS; i++) done.push(await download(feedUrl, settings.loadCore, false));
      return done;
    })();
    const oneWindows = await windowsDuring(oneDownloads);
    const one = { downloads: await oneDownloads, windows: oneWindows, rssGrowthMiB: rss.stop().rss / 1024 - baseline };
    log(
      `portal-feed one portal, ${ONE_PORTAL_DOWNLOADS} times: ${one.downloads.map(describeDownload).join("; ")}; RSS +${one.rssGrowthMiB.toFixed(0)} MiB`,
    );

    // Ten portals at once while partners work.
    rss = sampleRss(server.pid);
    baseline = rssMiB(server.pid);
    const tenStarted = performance.now();
    const tenDownloads = Promise.all(
      Array.from({ length: PORTALS_AT_ONCE }, () => download(feedUrl, settings.loadCore, false)),
    );
    const tenWindows = await windowsDuring(tenDownloads);
    const ten = {
      downloads: await tenDownloads,
      windows: tenWindows,
      rssGrowthMiB: rss.stop().rss / 1024 - baseline,
      wallS: (performance.now() - tenStarted) / 1000,
    };
    log(`portal-feed ten portals: all done in ${ten.wallS.toFixed(1)} s; RSS +${ten.rssGrowthMiB.toFixed(0)} MiB`);

    const quietAfter = await load(settings.quietS);
    log(`portal-feed quiet after: ${describe(quietAfter)}`);
    return {
      settings: {
        serverCore: settings.serverCore,
        loadCore: settings.loadCore,
        leads: settings.leads,
        reads: settings.reads,
        quietS: settings.quietS,
        windowS: settings.windowS,
      },
      published,
      firstHeadS,
      alone: {
        plain: plain.d,
        gzip: gzip.d,
        plainRssGrowthMiB: plain.growth,
        gzipRssGrowthMiB: gzip.growth,
        serverCpuS: plain.cpuS,
      },
      quiet,
      quietAfter,
      one,
      ten,
      serverRssBeforeMiB,
      commands: [
        server.command,
        curlArgv(feedUrl, settings.loadCore, false)
          .map((a) => (/[\s%]/.test(a) ? `'${a}'` : a))
          .join(" "),
        wrkCommandLine(partners.run("leads", settings.windowS)),
        wrkCommandLine(partners.run("reads", settings.windowS)),
      ].map((c) => c.replaceAll(ROOT + "/", "")),
      loadAverage: { before, after: loadAverage() },
    };
  } finally {
    await server.stop();
    removeDatabase(db);
  }
}

const MARK_START = "<!-- portal-feed:start -->";
const MARK_END = "<!-- portal-feed:end -->";

/** The scenario's section of RESULTS.md, with the goal's verdicts. */
export function portalFeedSection(
  result: PortalFeedResult,
  context: { date: Date; version: string; machine: string },
): string {
  const verdict = (ok: boolean) => (ok ? "**met**" : "**missed**");
  const quietLead = Math.min(result.quiet.leads.p99Ms, result.quietAfter.leads.p99Ms);
  const quietRead = Math.min(result.quiet.reads.p99Ms, result.quietAfter.reads.p99Ms);
  const ratios = (windows: Load[], pick: (l: Load) => number, reference: number) => {
    const values = windows.map(pick);
    return {
      worst: Math.max(...values),
      median: median(values),
      worstRatio: Math.max(...values) / reference,
      medianRatio: median(values) / reference,
    };
  };
  const errors = (windows: Load[]) =>
    windows.reduce((sum, w) => sum + w.leads.non2xx + w.leads.socketErrors + w.reads.non2xx + w.reads.socketErrors, 0);
  const row = loadRow;
  const dl = (label: string, d: Download, rss: number | null) =>
    `| ${label} | ${d.status} | ${mib(d.bytes).toFixed(1)} | ${d.firstByteS.toFixed(2)} | ${d.lastByteS.toFixed(2)} | ${(mib(d.bytes) / d.lastByteS).toFixed(1)} | ${rss === null ? "" : `+${rss.toFixed(0)}`} |`;
  const oneLead = ratios(result.one.windows, (l) => l.leads.p99Ms, quietLead);
  const tenLead = ratios(result.ten.windows, (l) => l.leads.p99Ms, quietLead);
  const oneRead = ratios(result.one.windows, (l) => l.reads.p99Ms, quietRead);
  const tenRead = ratios(result.ten.windows, (l) => l.reads.p99Ms, quietRead);
  const lastBytes = result.ten.downloads.map((d) => d.lastByteS);
  const { leads, reads } = result.settings;
  return markedSection(
    MARK_START,
    MARK_END,
    [
      `## Portal feed: a ${PORTAL_FEED_DATASET.label}-listing VRSync feed served while partners work (issue #25)`,
      "",
      `\`bun run bench --only portal-feed\`, ${context.date.toISOString().slice(0, 10)}, ${context.version}, ${context.machine}; load average ${result.loadAverage.before} before, ${result.loadAverage.after} after.`,
      `\`serve\` on core ${result.settings.serverCore}; the portals (curl with Basic auth, the body to /dev/null), wrk and the runner on core ${result.settings.loadCore}. ` +
        `The database: the seeded ${PORTAL_FEED_DATASET.label} dataset (${result.published.toLocaleString("en-US")} published listings, 5–6 photos each). Server RSS before the downloads: ${result.serverRssBeforeMiB.toFixed(0)} MiB.`,
      `Partners at a steady pace: lead creations from ${leads.connections} connections pausing ${leads.pauseMs} ms after each answer, reads of \`${READ_PATH}\` from ${reads.connections} pausing ${reads.pauseMs} ms.`,
      `The first feed request after start finds the listings VRSync cannot carry in one pass over them all (later ones read again only what the change log names): a HEAD made before the measurements took ${result.firstHeadS.toFixed(1)} s.`,
      "",
      "| download | status | MiB | first byte s | last byte s | MiB/s | server RSS growth MiB |",
      "|---|---|---|---|---|---|---|",
      dl("one portal alone, plain", result.alone.plain, result.alone.plainRssGrowthMiB),
      dl("one portal alone, gzip", result.alone.gzip, result.alone.gzipRssGrowthMiB),
      ...result.one.downloads.map((d, i) =>
        dl(
          `one portal while partners work (${i + 1} of ${ONE_PORTAL_DOWNLOADS}, one after another)`,
          d,
          i === 0 ? result.one.rssGrowthMiB : null,
        ),
      ),
      ...result.ten.downloads.map((d, i) =>
        dl(`portal ${i + 1} of ${PORTALS_AT_ONCE} at once`, d, i === 0 ? result.ten.rssGrowthMiB : null),
      ),
      "",
      `Server CPU for one plain download alone: ${result.alone.serverCpuS.toFixed(1)} s. Ten at once: all done in ${result.ten.wallS.toFixed(1)} s (last bytes ${Math.min(...lastBytes).toFixed(1)}–${Math.max(...lastBytes).toFixed(1)} s; the RSS growth is the whole run's).`,
      "",
      ...LOAD_TABLE_HEAD,
      row(`quiet before (${result.settings.quietS} s)`, result.quiet),
      ...result.one.windows.map((w, i) => row(`one portal ${i + 1} (${result.settings.windowS} s)`, w)),
      ...result.ten.windows.map((w, i) => row(`ten portals ${i + 1} (${result.settings.windowS} s)`, w)),
      row(`quiet after (${result.settings.quietS} s)`, result.quietAfter),
      "",
      STALLS_NOTE,
      "",
      `- Lead p99 while one portal downloads (${ONE_PORTAL_DOWNLOADS} downloads one after another): median window ${oneLead.median.toFixed(1)} ms, worst ${oneLead.worst.toFixed(1)} ms, quiet ${quietLead.toFixed(1)} ms (the quieter side): **${oneLead.medianRatio.toFixed(2)}×** median, ${oneLead.worstRatio.toFixed(2)}× worst; goal ≤ ${PORTAL_FEED_TARGETS.leadP99Ratio}×: ${verdict(oneLead.medianRatio <= PORTAL_FEED_TARGETS.leadP99Ratio)} (median), ${verdict(oneLead.worstRatio <= PORTAL_FEED_TARGETS.leadP99Ratio)} (worst).`,
      `- Lead p99 while ten portals download at once: median window ${tenLead.median.toFixed(1)} ms, worst ${tenLead.worst.toFixed(1)} ms: **${tenLead.medianRatio.toFixed(2)}×** median, ${tenLead.worstRatio.toFixed(2)}× worst; goal ≤ ${PORTAL_FEED_TARGETS.leadP99Ratio}×: ${verdict(tenLead.medianRatio <= PORTAL_FEED_TARGETS.leadP99Ratio)} (median), ${verdict(tenLead.worstRatio <= PORTAL_FEED_TARGETS.leadP99Ratio)} (worst).`,
      `- Read p99: one portal ${oneRead.median.toFixed(1)} ms median window (${oneRead.medianRatio.toFixed(2)}×), ten ${tenRead.median.toFixed(1)} ms (${tenRead.medianRatio.toFixed(2)}×), quiet ${quietRead.toFixed(1)} ms.`,
      `- Errors during the downloads (non-2xx and socket errors of leads and reads): ${errors([...result.one.windows, ...result.ten.windows])}.`,
    ],
    result.commands,
  );
}

export function writePortalFeedSection(section: string): void {
  writeMarkedSection(MARK_START, MARK_END, section);
}
