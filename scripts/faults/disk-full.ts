// Disk full under load: the database lives on a small tmpfs mounted for the run (needs root);
// a filler file takes every free byte while leads keep arriving. Expected: creations answer 503
// SERVICE_UNAVAILABLE with Retry-After (never another 5xx), reads go on, the process survives,
// and creation recovers on its own once the filler is deleted; nothing acknowledged is lost.
//   bun scripts/faults/disk-full.ts [--size-mb 24] [--full-seconds 8] [--cycles 2]
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { MixedLoad } from "./lib/load.ts";
import { finish, log } from "./lib/report.ts";
import { Server } from "./lib/server.ts";
import { leadFigures, verified, verifyLeads } from "./lib/verify.ts";
import { makeWorkspace } from "./lib/workspace.ts";

const { values } = parseArgs({
  options: {
    "size-mb": { type: "string", default: "24" },
    "full-seconds": { type: "string", default: "8" },
    cycles: { type: "string", default: "2" },
  },
});

const mountPoint = mkdtempSync(join(tmpdir(), "pa-diskfull-mnt-"));
const mount = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", `size=${values["size-mb"]}m`, "tmpfs", mountPoint]);
if (mount.exitCode !== 0) throw new Error(`mount failed (root needed): ${mount.stderr.toString()}`);
const filler = join(mountPoint, "filler.bin");

/** Writes zeros until the file system refuses; returns the bytes written. */
function fillDisk(): number {
  const fd = openSync(filler, "a");
  const chunk = new Uint8Array(64 * 1024);
  let written = 0;
  try {
    for (;;) written += writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
  } finally {
    closeSync(fd);
  }
  return written;
}

const tally = (load: MixedLoad) => ({ ...Object.fromEntries(load.byStatus), sent: load.sent });
const delta = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(after)
      .map(([k, v]) => [k, v - (before[k] ?? 0)])
      .filter(([, v]) => v !== 0),
  );

let server: Server | null = null;
try {
  const workspace = makeWorkspace("diskfull", { properties: 200, leads: 200, clients: 3, dbDir: mountPoint });
  server = await Server.start(workspace);
  const runId = crypto.randomUUID().slice(0, 8);
  const load = new MixedLoad({
    target: () => server?.url ?? null,
    clients: workspace.clients,
    concurrency: 8,
    runId,
    sourceAddresses: 500,
    createShare: 0.5,
    allow503: true,
  });
  log(`disk-full: database on a ${values["size-mb"]} MiB tmpfs at ${mountPoint}`);
  load.start();
  await Bun.sleep(2_000);
  const cycles: Record<string, unknown>[] = [];
  for (let cycle = 1; cycle <= Number(values.cycles); cycle++) {
    const beforeFull = tally(load);
    const filled = fillDisk();
    log(`cycle ${cycle}: disk filled (${(filled / 2 ** 20).toFixed(1)} MiB of filler)`);
    await Bun.sleep(Number(values["full-seconds"]) * 1000);
    const duringFull = delta(beforeFull, tally(load));
    const health = (await fetch(`${server.url}/health`)).status;
    rmSync(filler);
    const freedAt = performance.now();
    // Recovery: the first creation that succeeds after space returns.
    let recoveredMs: number | null = null;
    while (recoveredMs === null && performance.now() - freedAt < 30_000) {
      const before = load.acknowledged.size;
      await Bun.sleep(50);
      if (load.acknowledged.size > before) recoveredMs = Math.round(performance.now() - freedAt);
    }
    cycles.push({
      cycle,
      fillerMiB: Math.round(filled / 2 ** 20),
      statusesWhileFull: duringFull,
      healthWhileFull: health,
      recoveredAfterMs: recoveredMs,
      alive: server.alive,
    });
    log(`cycle ${cycle}: while full`, { statuses: duringFull, health, recoveredMs });
    await Bun.sleep(2_000);
  }
  await load.stop();
  server.signal("SIGTERM");
  const exit = await server.exit();
  const check = verifyLeads(workspace.dbPath, runId, load.acknowledged, load.uncertain);
  const other5xx = [...load.byStatus].filter(([s]) => s >= 500 && s !== 503).reduce((n, [, c]) => n + c, 0);
  const saw503 = cycles.every((c) => ((c.statusesWhileFull as Record<string, number>)["503"] ?? 0) > 0);
  const recovered = cycles.every((c) => c.recoveredAfterMs !== null && c.alive === true);
  finish(
    "disk-full",
    verified(check) && other5xx === 0 && saw503 && recovered && exit === 0 && load.problems.length === 0,
    {
      method: `tmpfs of ${values["size-mb"]} MiB mounted for the run, filled with a filler file until ENOSPC, then the filler deleted`,
      faultsInjected: cycles.length,
      cycles,
      load: load.summary(),
      other5xx,
      ...leadFigures(check),
      sigtermExit: exit,
      problems: load.problems.slice(0, 20),
    },
    workspace.dir,
  );
} finally {
  if (server?.alive) server.signal("SIGKILL");
  await server?.exit();
  Bun.spawnSync(["umount", mountPoint]);
  rmSync(mountPoint, { recursive: true, force: true });
}
