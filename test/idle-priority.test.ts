// Work that must give way to the server (src/idle-priority.ts): a process and its threads moved
// to SCHED_IDLE at nice 10, as read back from /proc.
import { afterEach, describe, expect, test } from "bun:test";
import { lowerToIdle } from "../src/idle-priority.ts";
import { SCHED_IDLE, scheduling, threadPolicies } from "./helpers/sched.ts";

const spawned: Bun.Subprocess[] = [];
afterEach(() => {
  while (spawned.length > 0) spawned.pop()!.kill("SIGKILL");
});

/** A Bun process that idles: several threads, like a feed run's. */
async function idler(): Promise<number> {
  const proc = Bun.spawn([process.execPath, "-e", "setInterval(() => {}, 1000)"], { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  spawned.push(proc);
  // Bun starts its threads as it boots: wait until there are several, as a running process has.
  for (let tries = 0; threadPolicies(proc.pid).length < 2 && tries < 100; tries++) await Bun.sleep(20);
  return proc.pid;
}

describe("lowerToIdle", () => {
  test("a process goes to SCHED_IDLE at nice 10 with every thread it has", async () => {
    const pid = await idler();
    expect(scheduling(`/proc/${pid}`)).toEqual({ policy: 0, nice: 0 });
    expect(await lowerToIdle(pid)).toEqual([]);
    expect(scheduling(`/proc/${pid}`)).toEqual({ policy: SCHED_IDLE, nice: 10 });
    const policies = threadPolicies(pid);
    expect(policies.length).toBeGreaterThan(1);
    expect(policies.every((policy) => policy === SCHED_IDLE)).toBe(true);
  });

  test("without chrt, or with chrt refused, it says why, and nice 10 still takes", async () => {
    const pid = await idler();
    expect(await lowerToIdle(pid, null)).toEqual(["chrt not found, so no SCHED_IDLE"]);
    expect(scheduling(`/proc/${pid}`)).toEqual({ policy: 0, nice: 10 });
    expect(await lowerToIdle(pid, Bun.which("false"))).toEqual(["chrt: exit code 1"]);
    expect(scheduling(`/proc/${pid}`)).toEqual({ policy: 0, nice: 10 });
  });
});
