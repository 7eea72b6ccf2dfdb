// bench/RESULTS.md and the stdout tables: medians with min–max, ratios to the ceiling and to
// the commit-per-request baseline, the issue's targets with a plain verdict, the filter table.

import { type ImportBenchResult, importSection } from "./import-bench.ts";
import type { Machine } from "./machine.ts";
import { CONTENDED, type Sample } from "./measure.ts";
import type { DatasetResult, RunSettings, ScenarioResult } from "./results.ts";
import type { Target } from "./scenarios.ts";
import { FACETS_GOAL_MS, LIST_GOAL_MS } from "./search-bench.ts";
import { MIX_GOALS, type Percentiles } from "./search-mix.ts";
import { ratio, type Spread, spread } from "./stats.ts";

const int = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "–");
const ms = (n: number) => (!Number.isFinite(n) ? "–" : n < 10 ? n.toFixed(2) : n < 100 ? n.toFixed(1) : n.toFixed(0));
const pct = (n: number) => (Number.isFinite(n) ? `${(n * 100).toFixed(0)} %` : "–");
const times = (n: number) => (Number.isFinite(n) ? `${n.toFixed(2)}×` : "–");
const mb = (kb: number) => (kb > 0 ? (kb / 1024).toFixed(0) : "–");

function withRange(s: Spread, format: (n: number) => string): string {
  return Number.isFinite(s.median) ? `${format(s.median)} (${format(s.min)}–${format(s.max)})` : "–";
}

const of = (samples: Sample[] | undefined, pick: (s: Sample) => number): Spread => spread((samples ?? []).map(pick));
const rps = (samples: Sample[] | undefined) => of(samples, (s) => s.rps);
const p50 = (samples: Sample[] | undefined) => of(samples, (s) => s.p50Ms);
const p99 = (samples: Sample[] | undefined) => of(samples, (s) => s.p99Ms);
const total = (samples: Sample[] | undefined, pick: (s: Sample) => number) =>
  (samples ?? []).reduce((sum, s) => sum + pick(s), 0);
const maxRss = (samples: Sample[] | undefined) => Math.max(0, ...(samples ?? []).map((s) => s.rssKb));
const maxAnon = (samples: Sample[] | undefined) => Math.max(0, ...(samples ?? []).map((s) => s.rssAnonKb ?? 0));

function table(header: string[], rows: string[][]): string {
  return [
    `| ${header.join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ].join("\n");
}

const SERVER_NAME: Record<Target, string> = {
  product: "product",
  ceiling: "ceiling (bare Bun.serve)",
  baseline: "commit-per-request",
  "limiter-on": "product from source, limiter on",
  "limiter-off": "product from source, limiter off",
  "limiter-redis": "product from source, limits in Redis",
  compare: "product, the --compare build", // or the variant: nameSecondColumn
  "workers-1": "serve (one process, core 0)",
  "workers-2": "serve --workers 2 (cores 0 and 1)",
};
const TARGETS = Object.keys(SERVER_NAME) as Target[];

function scenarioRows(result: ScenarioResult): string[][] {
  const ceiling = result.samples.ceiling;
  return TARGETS.flatMap((target) => {
    const samples = result.samples[target];
    if (!samples || samples.length === 0) return [];
    const vs = (target === "product" || target === "compare") && ceiling;
    return [
      [
        target === result.scenario.targets[0] ? `**${result.scenario.id}**` : "",
        SERVER_NAME[target],
        withRange(rps(samples), int),
        withRange(p50(samples), ms),
        withRange(p99(samples), ms),
        int(total(samples, (s) => s.non2xx)),
        int(total(samples, (s) => s.socketErrors)),
        `${mb(maxRss(samples))} (${mb(maxAnon(samples))})`,
        vs ? pct(ratio(rps(samples).median, rps(ceiling).median)) : "",
        vs ? times(ratio(p50(samples).median, p50(ceiling).median)) : "",
        vs ? times(ratio(p99(samples).median, p99(ceiling).median)) : "",
        `${pct(Math.max(...samples.map((s) => s.foreign)))} / ${pct(Math.max(...samples.map((s) => s.foreignLoad)))}`,
      ],
    ];
  });
}

/** What the second column is, in the report's words: the --compare build, or this build changed (a variant). */
let secondColumn = "the --compare build";

/** Names the second column when it is not another build: this one with a config overlay, a signed-in console… */
export function nameSecondColumn(label: string): void {
  secondColumn = `the variant (this build with ${label})`;
  SERVER_NAME.compare = `product, ${secondColumn}`;
}

/**
 * This build against the --compare build, scenario by scenario: each round measures both, one
 * right after the other, so the ratio is taken per round (product ÷ compare) and its median
 * and range given. req/s above 1× is faster than the compared build; p50 and p99 above 1× slower.
 */
export function compareTable(result: DatasetResult): string {
  const perRound = (product: Sample[], compare: Sample[], pick: (s: Sample) => number) =>
    spread(product.flatMap((s, i) => (compare[i] ? [ratio(pick(s), pick(compare[i]!))] : [])));
  // What the server itself spent per answered request: far steadier than req/s on a shared machine.
  const cpuUs = (s: Sample) => ((s.serverCpuS ?? Number.NaN) * 1e6) / s.requests;
  const bytes = (s: Sample) => (s.serverWriteBytes ?? Number.NaN) / s.requests;
  const rows = result.scenarios.flatMap((r) => {
    const product = r.samples.product;
    const compare = r.samples.compare;
    if (!product?.length || !compare?.length) return [];
    return [
      [
        r.scenario.id,
        withRange(rps(product), int),
        withRange(rps(compare), int),
        withRange(
          perRound(product, compare, (s) => s.rps),
          times,
        ),
        withRange(
          perRound(product, compare, (s) => s.p50Ms),
          times,
        ),
        withRange(
          perRound(product, compare, (s) => s.p99Ms),
          times,
        ),
        `${ms(p50(product).median)} / ${ms(p50(compare).median)}`,
        `${ms(p99(product).median)} / ${ms(p99(compare).median)}`,
        `${withRange(of(product, cpuUs), int)} / ${withRange(of(compare, cpuUs), int)}`,
        withRange(perRound(product, compare, cpuUs), times),
        `${withRange(of(product, bytes), int)} / ${withRange(of(compare, bytes), int)}`,
        withRange(perRound(product, compare, bytes), times),
      ],
    ];
  });
  if (rows.length === 0) return "";
  return table(
    [
      "scenario",
      "product req/s",
      "compare req/s",
      "req/s product ÷ compare (per round)",
      "p50 ÷ (per round)",
      "p99 ÷ (per round)",
      "p50 ms product / compare",
      "p99 ms product / compare",
      "server CPU µs per request, product / compare",
      "CPU per request ÷ (per round)",
      "bytes written per request, product / compare",
      "bytes per request ÷ (per round)",
    ],
    rows,
  );
}

/** RESULTS.md's section of the last --compare run: this build ÷ the compared one, per scenario and dataset. */
export function compareSection(
  results: DatasetResult[],
  context: {
    date: Date;
    version: string;
    commit: string;
    compareBinary: string;
    compareCommit: string | null;
    settings: RunSettings;
    argv: string[];
    /** The load average (1, 5, 15 minutes) as the run started and ended. */
    load: { start: string; end: string };
  },
  marks: { start: string; end: string },
): string {
  const s = context.settings;
  const parts = [
    marks.start,
    "## Before/after (`--compare`)",
    "",
    `Run ${context.date.toISOString()}: \`bun bench/run.ts ${context.argv.join(" ")}\`, ${s.rounds} rounds of ${s.durationS} s, wrk -t1 -c${s.connections} on core ${s.loadCore}, servers on core ${s.serverCore}. ` +
      `This build: ${context.version}, commit ${context.commit}; compared: \`${context.compareBinary}\`${context.compareCommit ? ` (its worktree at commit ${context.compareCommit})` : ""}, serving its own copy of the dataset seeded by itself. ` +
      "In each round both are measured one right after the other (alternating which goes first); the ratios are per round, median (min–max): req/s above 1× is faster than the compared build, p50, p99, CPU and bytes per request above 1× dearer. " +
      "CPU per request is the server process's user and system time (/proc/<pid>/stat, every thread) over the run ÷ its answered requests; bytes per request, what it sent towards the disk (/proc/<pid>/io write_bytes: WAL, checkpoints) ÷ the same. " +
      `Load average (1, 5, 15 min): ${context.load.start} at the start, ${context.load.end} at the end.`,
  ];
  for (const r of results) {
    const t = compareTable(r);
    if (!t) continue;
    const loads = r.scenarios.flatMap((x) =>
      Object.values(x.samples).flatMap((l) => l.map((m) => m.load1 ?? Number.NaN)),
    );
    const load = spread(loads.filter(Number.isFinite));
    parts.push(
      "",
      `${r.dataset.label} dataset (1-minute load average as each measurement ended: ${withRange(load, (n) => n.toFixed(2))}):`,
      "",
      t,
    );
  }
  parts.push(marks.end);
  return parts.join("\n");
}

function contention(result: DatasetResult): string {
  const all = [
    ...result.scenarios.flatMap((r) => Object.values(r.samples).flat()),
    ...result.filters.flatMap((f) => f.warm),
  ];
  const hit = all.filter((s) => s.foreign > CONTENDED || s.foreignLoad > CONTENDED).length;
  const retried = all.filter((s) => s.attempts > 1).length;
  return `${retried} of ${all.length} measurements were retried because other processes took more than ${pct(CONTENDED)} of the server's or wrk's core; ${hit} stayed above that after every retry (the least disturbed attempt is the one kept).`;
}

export function scenarioTable(result: DatasetResult): string {
  const header = [
    "scenario",
    "server",
    "req/s median (min–max)",
    "p50 ms",
    "p99 ms",
    "non-2xx",
    "socket errors",
    "RSS max MB (anon)",
    "req/s vs ceiling",
    "p50 vs ceiling",
    "p99 vs ceiling",
    "others on server / wrk core (max)",
  ];
  return table(header, result.scenarios.flatMap(scenarioRows));
}

function probeTable(result: DatasetResult): string {
  const alone = find(result, "post-leads");
  const rows = result.scenarios.flatMap((r) => {
    const probes = (r.samples.product ?? []).flatMap((s) => (s.probe ? [s.probe] : []));
    if (probes.length === 0) return [];
    return [
      [
        r.scenario.id,
        alone ? withRange(rps(alone.samples.product), int) : "–",
        alone ? withRange(rps(alone.samples.baseline), int) : "–",
        alone ? times(ratio(rps(alone.samples.product).median, rps(alone.samples.baseline).median)) : "–",
        withRange(rps(r.samples.product), int),
        `\`${r.scenario.probe}\``,
        withRange(spread(probes.map((p) => p.rps)), int),
        withRange(spread(probes.map((p) => p.p50Ms)), ms),
        withRange(spread(probes.map((p) => p.p99Ms)), ms),
        int(probes.reduce((sum, p) => sum + p.non2xx + p.socketErrors, 0)),
      ],
    ];
  });
  if (rows.length === 0) return "";
  return table(
    [
      "scenario",
      "creations/s alone",
      "commit-per-request/s",
      "alone vs commit-per-request",
      "creations/s while lists are read",
      "read probe (2 connections, same time)",
      "probe req/s",
      "probe p50 ms",
      "probe p99 ms",
      "probe errors",
    ],
    rows,
  );
}

function singleTable(result: DatasetResult): string {
  const rows = result.scenarios.flatMap((r) =>
    r.single ? [[r.scenario.id, withRange(r.single.cold, ms), withRange(r.single.warm, ms)]] : [],
  );
  return table(["scenario", "cold: first request after a write, ms", "warm: same request again, ms"], rows);
}

/**
 * The website's search queries: medians of uncached single requests against the plain page-1 list
 * and the goals; with --compare, the compared build's beside them (its total too, when it differs).
 */
function searchTable(result: DatasetResult): string {
  const plain = result.search.find((s) => s.query.kind === "plain");
  const compared = result.search.some((s) => s.compare);
  const rows = result.search.map((s) => {
    const goal = s.query.kind === "facets" ? FACETS_GOAL_MS : LIST_GOAL_MS;
    const row = [
      s.query.kind,
      s.query.name,
      s.total.toLocaleString("en-US"),
      withRange(s.ms, ms),
      times(ratio(s.ms.median, plain?.ms.median)),
      `${s.ms.median <= goal ? "met" : "missed"} (≤ ${goal} ms)`,
    ];
    if (!compared) return row;
    const c = s.compare;
    const total = c && c.total !== s.total ? ` (total ${c.total.toLocaleString("en-US")})` : "";
    return [...row, c ? `${withRange(c.ms, ms)}${total}` : "–", c ? times(ratio(s.ms.median, c.ms.median)) : "–"];
  });
  const header = ["kind", "query", "total", "median ms (min–max)", "vs plain page 1", "goal"];
  return table(compared ? [...header, "compared build ms (min–max)", "this ÷ compared"] : header, rows);
}

/** The drawn searches' percentiles beside the plain page 1's, §25's goals, the worst requests and /health under load. */
function searchMixSection(result: DatasetResult): string {
  const mix = result.searchMix!;
  const atGoal = result.dataset.label === "1M";
  const verdict = (value: number, goal: number) =>
    `${value <= goal ? "met" : "missed"} (≤ ${goal} ms${atGoal ? "" : ", a goal at 1M"})`;
  const row = (name: string, p: Percentiles, goal?: { p99: number; max: number }) => [
    name,
    String(p.n),
    ms(p.p50),
    ms(p.p95),
    ms(p.p99),
    ms(p.max),
    times(ratio(p.p99, mix.plain.p99)),
    goal ? `p99 ${verdict(p.p99, goal.p99)}; max ${verdict(p.max, goal.max)}` : "",
  ];
  const worst = [...mix.requests]
    .filter((r) => r.kind !== "plain")
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 10)
    .map((r) => [r.kind, ms(r.ms), String(r.status), `\`${r.path.replaceAll("|", "%7C")}\``]);
  const { health, page, dearAnswered } = mix.underLoad;
  return [
    table(
      ["requests", "n", "p50 ms", "p95 ms", "p99 ms", "max ms", "p99 vs plain page 1", "§25 goal"],
      [
        row("lists", mix.lists, MIX_GOALS.list),
        row("facets", mix.facets, MIX_GOALS.facets),
        row("plain page 1 (same run)", mix.plain),
      ],
    ),
    "",
    `Answers other than 200: ${Object.keys(mix.statuses).length === 0 ? "none" : JSON.stringify(mix.statuses)} (422: cut at the deadline).`,
    "",
    "The ten slowest requests:",
    "",
    table(["kind", "ms", "status", "request"], worst),
    "",
    `While four of the dearest searches loop (bench/lib/search-mix.ts, DEAR_LOOP; answered ${JSON.stringify(dearAnswered)}): ` +
      `/health p50 ${ms(health.p50)} ms, p99 ${ms(health.p99)} ms, max ${ms(health.max)} ms over ${health.n} samples ` +
      `(${verdict(health.p99, MIX_GOALS.health.p99)}); a plain page p50 ${ms(page.p50)} ms, p99 ${ms(page.p99)} ms, max ${ms(page.max)} ms.`,
  ].join("\n");
}

function filterTable(results: DatasetResult[]): string {
  const [small, large] = results;
  if (!small || small.filters.length === 0) return "(not measured in this run)";
  const header = ["filter", "page"];
  for (const r of results)
    header.push(
      `${r.dataset.label} warm req/s`,
      `${r.dataset.label} warm p99 ms`,
      `${r.dataset.label} cold ms`,
      `${r.dataset.label} warm single ms`,
    );
  if (large)
    header.push(
      `req/s ${large.dataset.label}/${small.dataset.label}`,
      `cold ${large.dataset.label}/${small.dataset.label}`,
    );
  const rows = small.filters.map((f, i) => {
    const row = [f.query.filter, String(f.query.page)];
    for (const r of results) {
      const g = r.filters[i]!;
      row.push(
        withRange(rps(g.warm), int),
        withRange(p99(g.warm), ms),
        g.single ? withRange(g.single.cold, ms) : "–",
        g.single ? withRange(g.single.warm, ms) : "–",
      );
    }
    const big = large?.filters[i];
    if (big)
      row.push(
        times(ratio(rps(big.warm).median, rps(f.warm).median)),
        times(ratio(big.single?.cold.median, f.single?.cold.median)),
      );
    return row;
  });
  return table(header, rows);
}

interface Verdict {
  target: string;
  measured: string;
  ok: boolean | null;
}

const find = (r: DatasetResult | undefined, id: string) => r?.scenarios.find((s) => s.scenario.id === id);

function verdicts(results: DatasetResult[]): Verdict[] {
  const out: Verdict[] = [];
  const small = results.find((r) => r.dataset.label === "1k");
  const large = results.find((r) => r.dataset.label === "1M");
  const few = find(small, "props-few");
  if (few) {
    const share = ratio(rps(few.samples.product).median, rps(few.samples.ceiling).median);
    out.push({
      target: "props-few 1k: ≥ 50 % of the ceiling's req/s",
      measured: `${int(rps(few.samples.product).median)} vs ${int(rps(few.samples.ceiling).median)} req/s = ${pct(share)}`,
      ok: share >= 0.5,
    });
    const tail = p99(few.samples.product).median;
    out.push({ target: "props-few 1k: p99 ≤ 5 ms at 50 connections", measured: `${ms(tail)} ms`, ok: tail <= 5 });
  }
  const fewLarge = find(large, "props-few");
  if (few && fewLarge) {
    const slower = ratio(rps(few.samples.product).median, rps(fewLarge.samples.product).median);
    const tail = ratio(p99(fewLarge.samples.product).median, p99(few.samples.product).median);
    out.push({
      target: "props-few 1M: req/s within 1.5× of 1k",
      measured: `${int(rps(fewLarge.samples.product).median)} req/s, 1k/1M = ${times(slower)}`,
      ok: slower <= 1.5,
    });
    out.push({
      target: "props-few 1M: p99 within 1.5× of 1k (and ≤ 5 ms)",
      measured: `${ms(p99(fewLarge.samples.product).median)} ms, 1M/1k = ${times(tail)}`,
      ok: tail <= 1.5 && p99(fewLarge.samples.product).median <= 5,
    });
  }
  for (const r of results) {
    const leads = find(r, "post-leads");
    const withReads = find(r, "post-leads-reads");
    if (!leads) continue;
    const made = rps(leads.samples.product).median;
    const base = rps(leads.samples.baseline).median;
    const errors = total(leads.samples.product, (s) => s.non2xx + s.socketErrors);
    const probes = (withReads?.samples.product ?? []).flatMap((s) => (s.probe ? [s.probe] : []));
    out.push({
      target: `post-leads ${r.dataset.label}: ≥ 10,000 durable creations/s (50 connections, one core)`,
      measured: `${int(made)}/s, ${int(errors)} errors`,
      ok: made >= 10_000 && errors === 0,
    });
    out.push({
      target: `post-leads ${r.dataset.label}: ≥ 3× one-commit-per-request`,
      measured: `${int(made)} vs ${int(base)}/s = ${times(ratio(made, base))}`,
      ok: ratio(made, base) >= 3,
    });
    if (withReads) {
      out.push({
        target: `post-leads ${r.dataset.label}: lists keep answering during creations (p99 stated)`,
        measured: `list p99 ${ms(spread(probes.map((p) => p.p99Ms)).median)} ms at ${int(spread(probes.map((p) => p.rps)).median)} req/s, while ${int(rps(withReads.samples.product).median)} creations/s`,
        ok: null,
      });
    }
  }
  for (const r of results) {
    const limiter = find(r, "limiter");
    if (!limiter) continue;
    const on = rps(limiter.samples["limiter-on"]).median;
    const off = rps(limiter.samples["limiter-off"]).median;
    out.push({
      target: `limiter ${r.dataset.label}: whole hot path (props-few) with the limiter on vs off (stated)`,
      measured: `${int(on)} vs ${int(off)} req/s = ${pct(ratio(on, off))}`,
      ok: null,
    });
    const redis = rps(limiter.samples["limiter-redis"]).median;
    if (Number.isFinite(redis)) {
      out.push({
        target: `limiter ${r.dataset.label}: limits in Redis vs in memory (props-few) ≥ 0.8`,
        measured: `${int(redis)} vs ${int(on)} req/s = ${times(ratio(redis, on))}`,
        ok: ratio(redis, on) >= 0.8,
      });
    }
  }
  for (const r of results) {
    const workers = find(r, "workers");
    if (!workers) continue;
    const one = rps(workers.samples["workers-1"]).median;
    const two = rps(workers.samples["workers-2"]).median;
    out.push({
      target: `workers ${r.dataset.label}: serve --workers 2 vs 1 (props-few; wrk shares the second core, stated)`,
      measured: `${int(two)} vs ${int(one)} req/s = ${times(ratio(two, one))}`,
      ok: null,
    });
  }
  for (const r of results) {
    if (!r.seed) continue;
    const { seconds, peakRssMb } = r.seed;
    const bounded = r.dataset.label === "1M";
    out.push({
      target: `seed ${r.dataset.label}${bounded ? ": < 90 s" : " (stated)"}`,
      measured: `${seconds.toFixed(1)} s`,
      ok: bounded ? seconds < 90 : null,
    });
    out.push({
      target: `seed ${r.dataset.label}${bounded ? ": peak RSS < 1 GiB" : ": peak RSS (stated)"}`,
      measured: `${peakRssMb.toFixed(0)} MiB`,
      ok: bounded ? peakRssMb < 1024 : null,
    });
  }
  for (const r of results) {
    const mix = r.searchMix;
    if (!mix) continue;
    // §25's goals hold at 1M; at other sizes the figures are stated.
    const bounded = r.dataset.label === "1M";
    const goals: [string, number, number][] = [
      ["lists p99", mix.lists.p99, MIX_GOALS.list.p99],
      ["lists max", mix.lists.max, MIX_GOALS.list.max],
      ["facets p99", mix.facets.p99, MIX_GOALS.facets.p99],
      ["facets max", mix.facets.max, MIX_GOALS.facets.max],
      ["/health p99 while four dear searches loop", mix.underLoad.health.p99, MIX_GOALS.health.p99],
    ];
    for (const [what, value, goal] of goals)
      out.push({
        target: `search-mix ${r.dataset.label}: ${what}${bounded ? ` ≤ ${goal} ms` : " (stated; a goal at 1M)"}`,
        measured: `${ms(value)} ms`,
        ok: bounded ? value <= goal : null,
      });
  }
  if (large) {
    out.push({
      target: "server RSS < 200 MB during the 1M scenarios",
      measured: `${mb(large.productRssMaxKb)} MB max (VmRSS)`,
      ok: large.productRssMaxKb < 200 * 1024,
    });
  }
  return out;
}

export function verdictTable(results: DatasetResult[]): string {
  const mark = (ok: boolean | null) => (ok === null ? "stated" : ok ? "**met**" : "**missed**");
  return table(
    ["target", "measured (medians)", "verdict"],
    verdicts(results).map((v) => [v.target, v.measured, mark(v.ok)]),
  );
}

export function renderReport(options: {
  date: Date;
  machine: Machine;
  loadEnd: string;
  version: string;
  settings: RunSettings;
  argv: string[];
  commands: string[];
  results: DatasetResult[];
  imported?: ImportBenchResult | null;
  durationS: number;
}): string {
  const { machine, settings, results } = options;
  const s = settings;
  const parts = [
    "# Benchmark results",
    "",
    "Written by `bun run bench` (bench/run.ts); bench/README.md says how to read every column. Latest run only.",
    "",
    `- Date: ${options.date.toISOString()} (run took ${Math.round(options.durationS)} s)`,
    `- Machine: ${machine.nproc} cores (nproc), ${machine.cpu}, ${machine.memoryGiB} GiB, Linux ${machine.kernel}`,
    `- Bun ${machine.bun}; product ${options.version}, commit ${machine.commit}`,
    `- Load average (1/5/15 min) at start: ${machine.loadStart}; at end: ${options.loadEnd}. The machine is shared with other work; the last column of each scenario table is the share of the server's core, and of wrk's core, that other processes took during the worst round (a few % is the kernel's loopback networking, charged to no process).`,
    `- Settings: \`bun bench/run.ts ${options.argv.join(" ")}\`: ${s.rounds} interleaved rounds per server, ${s.durationS} s per wrk run (${s.filterDurationS} s for each filter query), wrk -t1 -c${s.connections}, server on core ${s.serverCore}, wrk on core ${s.loadCore}, ${s.coldSamples} cold samples per query; before each measurement the runner waits (up to 5 s) for both cores to be nearly idle, and measures a scenario again (up to ${s.retries} more time(s); filter queries never) when others took more than ${pct(CONTENDED)} of a core.`,
    "",
    "## Targets",
    "",
    verdictTable(results),
  ];
  for (const r of results) {
    parts.push(
      "",
      `## Scenarios: ${r.dataset.label} dataset (${r.dataset.properties.toLocaleString("en-US")} properties, ${r.dataset.leads.toLocaleString("en-US")} leads)`,
      "",
      scenarioTable(r),
      ...(compareTable(r)
        ? [
            "",
            `This build ÷ ${secondColumn}, per round (both measured in each round, one right after the other):`,
            "",
            compareTable(r),
          ]
        : []),
      "",
      `Product VmRSS max over every round on this dataset: ${mb(r.productRssMaxKb)} MB. ${contention(r)}`,
      "",
      "Durable lead creation alone against the one-commit-per-request baseline, then again while 2 connections read a lead list:",
      "",
      probeTable(r),
      "",
      "Single requests (one at a time, timed by the runner): cold = the query computed from the database, right after a lead creation (which empties SQLite's page cache of the read connection) and written in a way the server has never seen, one more space before the first field name (so no cached page can answer); warm = the same request again, from the page cache.",
      "",
      singleTable(r),
    );
  }
  for (const r of results) {
    if (r.search.length === 0) continue;
    parts.push(
      "",
      `## Website search: ${r.dataset.label} dataset`,
      "",
      "Each query of bench/lib/search-bench.ts (bench/README.md, `search`) as single requests one at a time on the server's core, each with a parameter never sent before so no cached page answers: the median and min–max of the samples, the exact total the answer carried, and the ratio of the median to the plain page-1 list's measured the same way in the same run. With `--compare`, the compared build (its own copy of the dataset, seeded by itself) answers each query too, its requests taking turns with this build's (alternating which goes first): its median and this build's ÷ its are beside.",
      "",
      searchTable(r),
    );
  }
  for (const r of results) {
    if (!r.searchMix) continue;
    parts.push(
      "",
      `## Website search mix: ${r.dataset.label} dataset`,
      "",
      "Requests drawn by bench/lib/search-mix.ts (bench/README.md, `search-mix`) from the values the server lists, sent one at a time, each with its fields in a new order so no cached page answers; the plain page 1 timed the same way between every fourth. Goals: behaviour §25, at 1M.",
      "",
      searchMixSection(r),
    );
  }
  if (options.imported) parts.push("", importSection(options.imported));
  parts.push(
    "",
    "## Each filter: page 1 and page 5000 (`fields=id,title,pricing&limit=100`)",
    "",
    "Warm = wrk at 50 connections on one query (after its first request the product answers from its page cache, exact while the database is unchanged). Cold = single requests right after a lead creation, the cost of a query nobody asked since the last write. Ratios are 1M/1k of the medians (req/s: below 1× is slower; cold: above 1× is slower).",
    "",
    filterTable(results),
    "",
    "## Commands",
    "",
    "```sh",
    ...options.commands,
    "```",
    "",
  );
  return parts.join("\n");
}
