// The compiled binary serving a small sandbox dataset, for the OWASP checks that need real
// sockets (transport limits, slow clients, headers Bun itself adds), with its RSS readable.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBinary, type RunningBinary, sandboxToken, startBinary } from "../helpers/binary.ts";

export interface LiveServer {
  url: string;
  port: number;
  token: string;
  server: RunningBinary;
  /** The server process's resident set, in MiB. */
  rssMiB(): Promise<number>;
  close(): Promise<void>;
}

export async function startSandboxBinary(rateLimit = 100_000): Promise<LiveServer> {
  const dir = mkdtempSync(join(tmpdir(), "pa-sec-bin-"));
  const binary = ensureBinary();
  const db = join(dir, "sandbox.sqlite");
  const seeded = Bun.spawnSync([binary, "seed", "--out", db, "--properties", "60", "--leads", "60"], { cwd: dir });
  if (seeded.exitCode !== 0) throw new Error(`seed failed: ${seeded.stderr.toString()}`);
  const server = await startBinary(binary, ["sandbox", "--db", db, "--rate-limit", String(rateLimit)], dir);
  return {
    url: server.url,
    port: Number(new URL(server.url).port),
    token: await sandboxToken(server.url),
    server,
    async rssMiB() {
      const status = await Bun.file(`/proc/${server.proc.pid}/status`).text();
      return Number(/VmRSS:\s+(\d+)/.exec(status)![1]) / 1024;
    },
    async close() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Writes raw bytes on a fresh TCP connection; resolves with everything read until it closes or `ms` pass. */
export function rawExchange(
  port: number,
  payload: string | Uint8Array,
  ms = 2_000,
): Promise<{ text: string; closed: boolean }> {
  return new Promise((resolve) => {
    let text = "";
    let settled = false;
    const done = (closed: boolean) => {
      if (settled) return;
      settled = true;
      resolve({ text, closed });
    };
    Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(socket) {
          socket.write(payload);
          setTimeout(() => {
            done(false);
            socket.end();
          }, ms);
        },
        data(_socket, data) {
          text += data.toString("latin1");
        },
        close: () => done(true),
        error: () => done(true),
      },
    }).catch(() => done(true));
  });
}
