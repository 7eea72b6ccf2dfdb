// A real redis-server for tests, started on a free loopback port in a temp folder, with no
// persistence. Absent on a fresh machine: the tests that need it skip with a notice (CI
// installs it and requires it).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./binary.ts";
import { toolForTests } from "./tools.ts";

export const REDIS_SERVER = toolForTests(
  "redis-server",
  ["redis-server", "/usr/bin/redis-server"],
  "install it with `apt-get install -y redis-server` to run the tests of shared limits",
);

export interface TestRedis {
  url: string;
  port: number;
  /** Stops it (SIGKILL: as a crash would); start() brings it back on the same port, empty. */
  kill(): Promise<void>;
  start(): Promise<void>;
  /** Freezes it (SIGSTOP): connections stay open and nothing answers, as a Redis stuck would. */
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

async function waitForPort(port: number, up: boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const open = await Bun.connect({ hostname: "127.0.0.1", port, socket: { data() {} } }).then(
      (socket) => {
        socket.end();
        return true;
      },
      () => false,
    );
    if (open === up) return;
    await Bun.sleep(20);
  }
  throw new Error(`redis on port ${port} did not ${up ? "start" : "stop"}`);
}

export async function startRedis(): Promise<TestRedis> {
  if (REDIS_SERVER === null) throw new Error("redis-server is not installed");
  const dir = mkdtempSync(join(tmpdir(), "pa-redis-"));
  const port = freePort();
  let proc: ReturnType<typeof Bun.spawn> | null = null;
  const start = async () => {
    proc = Bun.spawn(
      [REDIS_SERVER!, "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir],
      {
        stdout: "ignore",
        stderr: "ignore",
      },
    );
    await waitForPort(port, true);
  };
  const kill = async () => {
    proc?.kill("SIGKILL");
    await proc?.exited;
    proc = null;
    await waitForPort(port, false);
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}/0`,
    port,
    kill,
    start,
    pause: () => void proc?.kill("SIGSTOP"),
    resume: () => void proc?.kill("SIGCONT"),
    async close() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
