// Retention's worst day (docs/operators/personal-data.md#retention): a database of 1,000,000
// leads whose oldest 100,000 have passed the retention period. The compiled binary starts with
// `retention` set so that they expire, anonymizes them at start through the one anonymization
// path, while a feeder creates leads at a steady rate and /health is asked every 100 ms; the run
// reports how long the anonymization took (the server's own log line) and the lead creations'
// and /health's latencies meanwhile.
//
//   taskset -c 1 bun bench/anonymize.ts [--leads 1000000] [--expire 100000] [--per-second 200]
//
// Prints its Markdown section and records it for bench/RESULTS.md (bench/results/43-anonymize.md).
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ANONYMIZE_BATCH } from "../src/modules/admin/privacy/service.ts";
import { hashSecret } from "../src/security/secrets.ts";
import { ensureBinary, freePort, waitHealthy } from "../test/helpers/binary.ts";
import { recordSection } from "./lib/sections.ts";

const { values } = parseArgs({
  options: {
    leads: { type: "string", default: "1000000" },
    expire: { type: "string", default: "100000" },
    "per-second": { type: "string", default: "200" },
  },
});
const LEADS = Number(values.leads);
const EXPIRE = Number(values.expire);
const PER_SECOND = Number(values["per-second"]);
const DAY = 86_400_000;

const binary = ensureBinary();
const dir = mkdtempSync(join(tmpdir(), "pa-bench-anonymize-"));
const db = join(dir, "agency.sqlite");
const log = (text: string) => process.stderr.write(`${new Date().toISOString()} ${text}\n`);

try {
  const asOf = new Date().toISOString();
  log(`seeding ${LEADS} leads…`);
  const seedStart = performance.now();
  const seeded = Bun.spawnSync(
    [binary, "seed", "--out", db, "--properties", "1000", "--leads", String(LEADS), "--as-of", asOf],
    { stdout: "pipe", stderr: "pipe" },
  );
  if (seeded.exitCode !== 0) throw new Error(seeded.stderr.toString());
  log(`seeded in ${((performance.now() - seedStart) / 1000).toFixed(0)} s`);

  // The period in days that makes about EXPIRE leads expire (whole days: a few hundred more).
  const file = new Database(db, { readonly: true });
  const nth = file
    .query<{ updated_at: string }, [number]>("SELECT updated_at FROM leads ORDER BY updated_at LIMIT 1 OFFSET ?")
    .get(EXPIRE - 1)!.updated_at;
  file.close();
  const days = Math.floor((Date.now() - Date.parse(nth)) / DAY);
  log(`retention ${days} days (the ${EXPIRE}th oldest lead was updated ${nth})`);

  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({
      jwtSecret: "a-jwt-secret-long-enough-for-the-anonymize-bench",
      databases: { agency: db },
      clients: [
        {
          id: "feeder",
          apiKey: "pk_live_feeder_bench",
          secretHash: hashSecret("sk_live_feeder_bench"),
          database: "agency",
          rateLimitPerMinute: 1_000_000,
        },
      ],
      retention: { agency: { leads: `${days} days` } },
    }),
  );
  const port = freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = Bun.spawn([binary, "serve", "--config", join(dir, "config.json"), "--port", String(port)], {
    stdout: "pipe",
    stderr: "pipe",
  });
  let done: { anonymized: number; ms: number } | null = null;
  // The server's log lines, read as they come: the retention run's line ends the measurement.
  void (async () => {
    const decoder = new TextDecoder();
    let buffered = "";
    for await (const chunk of server.stdout as ReadableStream<Uint8Array>) {
      buffered += decoder.decode(chunk);
      let at = buffered.indexOf("\n");
      for (; at >= 0; at = buffered.indexOf("\n")) {
        const line = buffered.slice(0, at);
        buffered = buffered.slice(at + 1);
        if (line.includes("retention: leads anonymized")) {
          const entry = JSON.parse(line) as { anonymized: number; ms: number };
          done = { anonymized: entry.anonymized, ms: entry.ms };
        }
      }
    }
  })();
  await waitHealthy(base, 60_000);
  const token = (
    (await (
      await fetch(`${base}/v1/auth/token`, {
        method: "POST",
        headers: { "x-api-key": "pk_live_feeder_bench", "x-api-secret": "sk_live_feeder_bench" },
      })
    ).json()) as { data: { token: string } }
  ).data.token;

  const creations: number[] = [];
  const health: number[] = [];
  let failures = 0;
  const started = performance.now();
  const feeder = (async () => {
    let sent = 0;
    while (done === null) {
      const due = Math.floor(((performance.now() - started) / 1000) * PER_SECOND);
      const batch: Promise<void>[] = [];
      for (; sent < due; sent++) {
        const at = performance.now();
        batch.push(
          fetch(`${base}/v1/leads`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: JSON.stringify({
              name: `Bench ${sent}`,
              email: `bench.${sent}@example.com`,
              phone: "+55 11 91234-5678",
              message: "Tenho interesse.",
            }),
          }).then(async (response) => {
            await response.arrayBuffer();
            if (response.status !== 201) failures++;
            else creations.push(performance.now() - at);
          }),
        );
      }
      await Promise.all(batch);
      await Bun.sleep(5);
    }
  })();
  const prober = (async () => {
    while (done === null) {
      const at = performance.now();
      const response = await fetch(`${base}/health`);
      await response.arrayBuffer();
      health.push(performance.now() - at);
      await Bun.sleep(100);
    }
  })();
  await Promise.all([feeder, prober]);
  server.kill("SIGTERM");
  await server.exited;

  const pct = (list: number[], p: number) => {
    const sorted = [...list].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
  };
  const result = done as { anonymized: number; ms: number } | null;
  const lines = [
    "## Anonymization: retention's worst day (`bench/anonymize.ts`)",
    "",
    `- Date: ${new Date().toISOString()}; ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), load average at end ${loadavg()
      .map((n) => n.toFixed(2))
      .join(
        " ",
      )}. The machine is shared with other work; the whole run (server, feeder) was pinned to one core with taskset.`,
    `- A database of ${LEADS.toLocaleString("en")} leads (seed), retention set to ${days} days so that the oldest ~${EXPIRE.toLocaleString("en")} expire; the server anonymizes them at start, in writes of ${ANONYMIZE_BATCH} leads, while ${PER_SECOND} lead creations per second are posted and /health is asked every 100 ms.`,
    "",
    "| measure | value |",
    "|---|---|",
    `| leads anonymized | ${result?.anonymized.toLocaleString("en") ?? "?"} |`,
    `| anonymization time (the server's log line) | ${result === null ? "?" : (result.ms / 1000).toFixed(1)} s |`,
    `| lead creations meanwhile (201) / failed | ${creations.length} / ${failures} |`,
    `| lead creation p50 / p99 / max | ${pct(creations, 50).toFixed(1)} / ${pct(creations, 99).toFixed(1)} / ${Math.max(...creations).toFixed(1)} ms |`,
    `| /health p99 / max | ${pct(health, 99).toFixed(1)} / ${Math.max(...health).toFixed(1)} ms |`,
    "",
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  // Recorded as bench/results/43-anonymize.md, and bench/RESULTS.md rendered again.
  recordSection("anonymize", lines.join("\n"));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
