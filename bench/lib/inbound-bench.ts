// The inbound scenario (`--only inbound`): portal lead posts (POST /v1/inbound/<client>, Grupo
// ZAP's JSON with Basic auth, a new portal lead id each, a real listing linked) against POST
// /v1/leads with a bearer token, on the same product, in interleaved rounds of the same length
// and connections. Goal: inbound at least 0.9 of POST /v1/leads's requests per second, and a
// p99 far inside the portals' 5-second timeout. Writes its own section of RESULTS.md.
import { join } from "node:path";
import { SANDBOX_API_SECRET, SANDBOX_INBOUND } from "../../src/docs/examples.ts";
import { getJson, issueToken } from "./api.ts";
import { type LoadSettings, measureQuietly, type Sample, wrkRunFor } from "./measure.ts";
import { freePort, startServer } from "./proc.ts";
import { DATASET_1K, OUT, ROOT, removeDatabase, sandboxArgv, workingCopy } from "./product.ts";
import type { Scenario } from "./scenarios.ts";
import { markedSection, writeMarkedSection } from "./sections.ts";
import { wrkCommandLine } from "./wrk.ts";

export const INBOUND_TARGETS = { rpsRatio: 0.9, p99Ms: 5_000 } as const;

const INBOUND_PATH = `/v1/inbound/${SANDBOX_INBOUND.grupozap.clientId}`;
const AUTHORIZATION = `Basic ${Buffer.from(`${SANDBOX_INBOUND.grupozap.username}:${SANDBOX_API_SECRET}`).toString("base64")}`;

const LEADS: Scenario & { env: Record<string, string> } = {
  id: "post-leads",
  title: "POST /v1/leads (bearer)",
  script: "post-leads.lua",
  path: "/v1/leads",
  captures: [],
  targets: ["product"],
  writes: true,
  env: {},
};
const INBOUND: Scenario & { env: Record<string, string> } = {
  id: "inbound",
  title: `POST ${INBOUND_PATH} (Basic, Grupo ZAP JSON)`,
  script: "inbound.lua",
  path: INBOUND_PATH,
  captures: [],
  targets: ["product"],
  writes: true,
  env: {},
};

export interface InboundResult {
  rounds: number;
  settings: LoadSettings;
  leads: Sample[];
  inbound: Sample[];
  /** Leads the inbound posts made, read back from the product (all new: no resend in the load). */
  inboundLeads: number;
  commands: string[];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;

export async function runInboundBench(options: {
  source: string;
  settings: LoadSettings;
  rounds: number;
  log: (line: string) => void;
}): Promise<InboundResult> {
  const { settings, rounds, log } = options;
  const db = workingCopy(DATASET_1K, options.source);
  const port = freePort();
  const server = await startServer({
    name: "product",
    argv: sandboxArgv(db, port),
    core: settings.serverCore,
    port,
    logFile: join(OUT, "product-inbound.log"),
    readyTimeoutMs: 120_000,
  });
  try {
    let token = await issueToken(server.base);
    const listing = (
      await getJson<{ data: { code: string | null }[] }>(server.base, token, "/v1/properties?fields=code&limit=100")
    ).data.find((p) => p.code)!.code!;
    // Both link each lead to the same published listing: the same work but for the portal's format and auth.
    INBOUND.env = { BENCH_INBOUND_AUTHORIZATION: AUTHORIZATION, BENCH_LISTING: listing };
    LEADS.env = { BENCH_PROPERTY_CODE: listing };
    // A run id per round: the lead bodies and portal lead ids of two rounds never coincide.
    const measureOne = (scenario: Scenario, round: string, durationS = settings.durationS) =>
      measureQuietly(server, scenario, token, { ...settings, durationS, runId: round }, false);
    log("[inbound] warm-up …");
    await measureOne(LEADS, `${settings.runId}-warm`, 1);
    await measureOne(INBOUND, `${settings.runId}-warm`, 1);
    const leads: Sample[] = [];
    const inbound: Sample[] = [];
    for (let round = 0; round < rounds; round++) {
      token = await issueToken(server.base);
      const order = round % 2 === 0 ? [LEADS, INBOUND] : [INBOUND, LEADS];
      for (const scenario of order) {
        const sample = await measureOne(scenario, `${settings.runId}-r${round}`);
        (scenario === LEADS ? leads : inbound).push(sample);
        log(
          `[inbound r${round + 1}/${rounds}] ${scenario.id.padEnd(10)} ${Math.round(sample.rps).toLocaleString("en-US").padStart(7)} req/s  p50 ${sample.p50Ms.toFixed(2)} ms  p99 ${sample.p99Ms.toFixed(2)} ms  non-2xx ${sample.non2xx}  others ${(sample.foreign * 100).toFixed(0)}/${(sample.foreignLoad * 100).toFixed(0)} %`,
        );
      }
    }
    const page = await getJson<{ meta: { total: number } }>(
      server.base,
      token,
      `/v1/leads?fields=id&limit=1&createdBy=${SANDBOX_INBOUND.grupozap.clientId}`,
    );
    const wrkLine = (scenario: Scenario) =>
      wrkCommandLine(wrkRunFor(server, { ...scenario, env: {} }, token, settings)) +
      (scenario === INBOUND
        ? `   # with BENCH_INBOUND_AUTHORIZATION='Basic <base64 of vivareal:${SANDBOX_API_SECRET}>' BENCH_LISTING=<a property code>`
        : "   # with BENCH_PROPERTY_CODE=<the same property code>");
    return {
      rounds,
      settings,
      leads,
      inbound,
      inboundLeads: page.meta.total,
      commands: [server.command, wrkLine(LEADS), wrkLine(INBOUND)].map((c) => c.replaceAll(ROOT + "/", "")),
    };
  } finally {
    await server.stop();
    removeDatabase(db);
  }
}

const MARK_START = "<!-- inbound:start -->";
const MARK_END = "<!-- inbound:end -->";

export function inboundSection(
  result: InboundResult,
  context: { date: Date; version: string; machine: string; load: string },
): string {
  const verdict = (ok: boolean) => (ok ? "**met**" : "**missed**");
  /** The server's own CPU per answered request: what the core's other tenants cannot change much. */
  const cpuUs = (s: Sample) => ((s.serverCpuS ?? Number.NaN) * 1e6) / Math.max(1, s.requests);
  const row = (label: string, samples: Sample[]) =>
    `| ${label} | ${samples.map((s) => Math.round(s.rps).toLocaleString("en-US")).join(" / ")} | ${Math.round(median(samples.map((s) => s.rps))).toLocaleString("en-US")} | ${median(samples.map(cpuUs)).toFixed(0)} | ${median(samples.map((s) => s.p50Ms)).toFixed(2)} | ${median(samples.map((s) => s.p99Ms)).toFixed(2)} | ${Math.max(...samples.map((s) => s.p99Ms)).toFixed(2)} | ${samples.reduce((n, s) => n + s.non2xx + s.socketErrors, 0)} | ${samples.map((s) => `${(s.foreign * 100).toFixed(0)}/${(s.foreignLoad * 100).toFixed(0)}`).join(" ")} |`;
  const ratio = median(result.inbound.map((s) => s.rps)) / median(result.leads.map((s) => s.rps));
  const pairRatios = result.inbound.map((s, i) => s.rps / result.leads[i]!.rps);
  // Requests per CPU second of the server: the rate each would reach with its core to itself.
  const cpuRatio = median(result.leads.map(cpuUs)) / median(result.inbound.map(cpuUs));
  const worstP99 = Math.max(...result.inbound.map((s) => s.p99Ms));
  const { settings } = result;
  return markedSection(
    MARK_START,
    MARK_END,
    [
      "## Portal leads: POST /v1/inbound against POST /v1/leads (issue #38)",
      "",
      `\`bun run bench --only inbound\`, ${context.date.toISOString().slice(0, 10)}, ${context.version}, ${context.machine}; load average at the end ${context.load}.`,
      `The product (\`partner-api sandbox\`, the 1k dataset, limits never reached) pinned to core ${settings.serverCore}; wrk (\`-t1 -c${settings.connections}\`) and the runner to core ${settings.loadCore}. ` +
        `${result.rounds} rounds of ${settings.durationS} s per scenario, interleaved (the order swaps each round). Both write durably: each answer waits for its group commit's fsync.`,
      `POST /v1/leads: a website form's lead with a bearer token and a \`propertyCode\`. Inbound: Grupo ZAP's JSON (13 keys) with Basic auth to \`${INBOUND_PATH}\`, a new \`originLeadId\` on every post (so each makes a lead: ${result.inboundLeads.toLocaleString("en-US")} made in all, one per 201). Both link every lead to the same published listing.`,
      "",
      "| scenario | req/s per round | median req/s | server CPU µs per request (median) | median p50 ms | median p99 ms | worst p99 ms | non-2xx + socket errors | others' share of server/load core % per round |",
      "|---|---|---|---|---|---|---|---|---|",
      row("POST /v1/leads", result.leads),
      row(`POST ${INBOUND_PATH}`, result.inbound),
      "",
      `- Inbound / POST /v1/leads, median req/s: **${ratio.toFixed(2)}** (per round: ${pairRatios.map((r) => r.toFixed(2)).join(", ")}); goal ≥ ${INBOUND_TARGETS.rpsRatio}: ${verdict(ratio >= INBOUND_TARGETS.rpsRatio)}.`,
      `- The same from the server's own CPU per request (requests per CPU second, which the core's other tenants change far less than req/s): **${cpuRatio.toFixed(2)}**; goal ≥ ${INBOUND_TARGETS.rpsRatio}: ${verdict(cpuRatio >= INBOUND_TARGETS.rpsRatio)}.`,
      `- Inbound p99 at ${settings.connections} connections: ${median(result.inbound.map((s) => s.p99Ms)).toFixed(1)} ms median, ${worstP99.toFixed(1)} ms worst, against the portals' 5-second timeout: ${verdict(worstP99 < INBOUND_TARGETS.p99Ms)}.`,
    ],
    result.commands,
  );
}

export function writeInboundSection(section: string): void {
  writeMarkedSection(MARK_START, MARK_END, section);
}
