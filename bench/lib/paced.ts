// Partners at a steady pace (bench/wrk/paced.lua): lead creations and list reads from a few
// connections that pause after each answer, the load the feed-run and portal-feed scenarios run
// beside their own work, measured with the machine's CPU and I/O stalls over the same window.
import { readFileSync } from "node:fs";
import { runWrk, type WrkResult, type WrkRun } from "./wrk.ts";

export interface Pace {
  connections: number;
  /** Each connection's pause after an answer. */
  pauseMs: number;
}

/** The settings of a scenario measured beside paced partners (feed-run, portal-feed). */
export interface PacedScenarioSettings {
  serverCore: number;
  loadCore: number;
  leads: Pace;
  reads: Pace;
  /** The quiet measurements, and each window of a measurement while the scenario's work runs. */
  quietS: number;
  windowS: number;
  log: (line: string) => void;
}

/** What an agency's partners do meanwhile: about 150 leads and 850 page reads a second on the 2-core machine. */
export const DEFAULT_PACE = { leads: { connections: 4, pauseMs: 20 }, reads: { connections: 8, pauseMs: 8 } } as const;
export const READ_PATH = "/v1/properties?fields=id,title,pricing&limit=20";

export interface Load {
  leads: WrkResult;
  reads: WrkResult;
  /** Share of the window some task stalled on I/O, and on CPU (Linux PSI, whole machine). */
  ioPressure: number;
  cpuPressure: number;
}

/** The `some` stall total of a PSI file, in microseconds. */
function stalled(resource: "io" | "cpu"): number {
  try {
    return Number(/^some .* total=(\d+)/m.exec(readFileSync(`/proc/pressure/${resource}`, "utf8"))?.[1] ?? NaN);
  } catch {
    return NaN;
  }
}

export function loadAverage(): string {
  return readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
}

/** wrk runs of the paced partners against one server, wrk on `core`. */
export function pacedPartners(options: {
  base: string;
  token: string;
  core: number;
  label: string;
  leads: Pace;
  reads: Pace;
}) {
  const run = (mode: "leads" | "reads", durationS: number): WrkRun => {
    const pace = mode === "leads" ? options.leads : options.reads;
    return {
      url: `${options.base}${mode === "reads" ? READ_PATH : "/v1/leads"}`,
      script: "paced.lua",
      args: [mode, String(pace.pauseMs)],
      connections: pace.connections,
      durationS,
      core: options.core,
      env: { BENCH_TOKEN: options.token, BENCH_RUN: `${options.label}-${Date.now().toString(36)}` },
    };
  };
  return {
    run,
    /** Both for `durationS` seconds at once. */
    async load(durationS: number): Promise<Load> {
      const [io, cpu, started] = [stalled("io"), stalled("cpu"), performance.now()];
      const [leads, reads] = await Promise.all([runWrk(run("leads", durationS)), runWrk(run("reads", durationS))]);
      const elapsedUs = (performance.now() - started) * 1000;
      return {
        leads,
        reads,
        ioPressure: (stalled("io") - io) / elapsedUs,
        cpuPressure: (stalled("cpu") - cpu) / elapsedUs,
      };
    },
  };
}

export function describeLoad(l: Load): string {
  return (
    `leads ${l.leads.rps.toFixed(0)}/s p99 ${l.leads.p99Ms.toFixed(1)} ms (non-2xx ${l.leads.non2xx}), reads ${l.reads.rps.toFixed(0)}/s p99 ${l.reads.p99Ms.toFixed(1)} ms (non-2xx ${l.reads.non2xx}), ` +
    `io stalls ${(l.ioPressure * 100).toFixed(0)} %, cpu stalls ${(l.cpuPressure * 100).toFixed(0)} %`
  );
}

const pct = (share: number) => (Number.isNaN(share) ? "–" : `${(share * 100).toFixed(0)} %`);

/** A row of a window table: leads, reads, stalls. */
export function loadRow(label: string, l: Load): string {
  return `| ${label} | ${l.leads.rps.toFixed(0)} | ${l.leads.p50Ms.toFixed(1)} | ${l.leads.p99Ms.toFixed(1)} | ${l.leads.non2xx} | ${l.reads.rps.toFixed(0)} | ${l.reads.p50Ms.toFixed(1)} | ${l.reads.p99Ms.toFixed(1)} | ${l.reads.non2xx} | ${pct(l.ioPressure)} | ${pct(l.cpuPressure)} |`;
}

export const LOAD_TABLE_HEAD = [
  "| window | leads/s | lead p50 ms | lead p99 ms | lead non-2xx | reads/s | read p50 ms | read p99 ms | read non-2xx | io stalls | cpu stalls |",
  "|---|---|---|---|---|---|---|---|---|---|---|",
];

export const STALLS_NOTE =
  "io stalls, cpu stalls: the share of the window in which some task of the machine waited for the disk, or for a core (Linux pressure stall information; the whole machine, other engineers' work included).";
