// Work that must give way to the server without being starved by it (src/background-priority.ts):
// a process and its threads moved to SCHED_BATCH, as read back from /proc; and such a
// process, on one core that a normal process keeps busy, still gets through its work.
import { afterEach, describe, expect, test } from "bun:test";
import { lowerToBackground } from "../src/background-priority.ts";
import { SCHED_BATCH, scheduling, threadPolicies } from "./helpers/sched.ts";
import { toolForTests } from "./helpers/tools.ts";

const TASKSET = toolForTests("taskset", ["taskset"], "it comes with util-linux");

const spawned: Bun.Subprocess[] = [];
afterEach(() => {
  while (spawned.length > 0) spawned.pop()!.kill("SIGKILL");
});

/** A Bun process that idles: several threads, like a feed run's. */
async function idler(): Promise<number> {
  const proc = Bun.spawn([process.execPath, "-e", "setInterval(() => {}, 1000)"], {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "ignore",
  });
  spawned.push(proc);
  // Bun starts its threads as it boots: wait until there are several, as a running process has.
  for (let tries = 0; threadPolicies(proc.pid).length < 2 && tries < 100; tries++) await Bun.sleep(20);
  return proc.pid;
}

describe("lowerToBackground", () => {
  test("a process goes to SCHED_BATCH with every thread it has, at the nice value it had", async () => {
    const pid = await idler();
    expect(scheduling(`/proc/${pid}`)).toEqual({ policy: 0, nice: 0 });
    expect(await lowerToBackground(pid)).toEqual([]);
    expect(scheduling(`/proc/${pid}`)).toEqual({ policy: SCHED_BATCH, nice: 0 });
    const policies = threadPolicies(pid);
    expect(policies.length).toBeGreaterThan(1);
    expect(policies.every((policy) => policy === SCHED_BATCH)).toBe(true);
  });

  test("without chrt, or with chrt refused, it says why, and the process stays as it was", async () => {
    const pid = await idler();
    expect(await lowerToBackground(pid, null)).toEqual(["chrt not found, so no SCHED_BATCH"]);
    expect(scheduling(`/proc/${pid}`)).toEqual({ policy: 0, nice: 0 });
    expect(await lowerToBackground(pid, Bun.which("false"))).toEqual(["chrt: exit code 1"]);
    expect(scheduling(`/proc/${pid}`)).toEqual({ policy: 0, nice: 0 });
  });

  test.skipIf(TASKSET === null)(
    "on one core a normal process keeps busy, a lowered process still finishes its work while the busy one runs on",
    async () => {
      const core = String(navigator.hardwareConcurrency - 1);
      // A third of a second of CPU, started once it has been lowered. Under SCHED_IDLE it got
      // about 0.3 % of the core and did not finish before the test's timeout.
      const work =
        "for await (const _ of console) break; const end = process.cpuUsage().user + 300_000; while (process.cpuUsage().user < end) {} console.log('done');";
      const worker = Bun.spawn([TASKSET!, "-c", core, process.execPath, "-e", work], {
        stdin: "pipe",
        stdout: "pipe",
        stderr: "ignore",
      });
      spawned.push(worker);
      for (let tries = 0; threadPolicies(worker.pid).length < 2 && tries < 100; tries++) await Bun.sleep(20);
      await lowerToBackground(worker.pid);
      const busy = Bun.spawn([TASKSET!, "-c", core, process.execPath, "-e", "console.log('spinning'); for (;;) {}"], {
        stdout: "pipe",
        stderr: "ignore",
      });
      spawned.push(busy);
      const reader = busy.stdout.getReader();
      await reader.read(); // the busy process is spinning
      worker.stdin.write("go\n");
      await worker.stdin.end();
      expect(await new Response(worker.stdout).text()).toBe("done\n");
      expect(await worker.exited).toBe(0);
      expect(busy.exitCode).toBeNull();
    },
    60_000,
  );
});
