// The compiled sandbox (the repository's dist/partner-api, built when stale) on a free port with
// a temporary database, for the client's tests. With PARTNER_API_PRISM=1 the client talks to it
// through Stoplight Prism's validating proxy, and stop() returns what Prism found wrong.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBinary, startBinary } from "../../../test/helpers/binary.ts";
import { startPrism } from "../../../test/helpers/prism.ts";

export const SANDBOX_KEY = "pk_sandbox_demo";
export const SANDBOX_SECRET = "sk_sandbox_demo";
export const THROUGH_PRISM = process.env.PARTNER_API_PRISM === "1";

export interface Sandbox {
  /** Where the client sends: the sandbox, or Prism in front of it. */
  url: string;
  /** The sandbox itself (for what the test does beside the client). */
  direct: string;
  /** Stops everything; Prism's violations, if it ran. */
  stop(): Promise<string[]>;
}

export async function startSandbox(
  options: { rateLimit?: number; front?: (upstream: string) => { url: string; stop(): void } } = {},
): Promise<Sandbox> {
  const dir = mkdtempSync(join(tmpdir(), "pa-client-"));
  const args = [
    "sandbox",
    "--db",
    join(dir, "sandbox.sqlite"),
    ...(options.rateLimit ? ["--rate-limit", String(options.rateLimit)] : []),
  ];
  const server = await startBinary(ensureBinary(), args, dir);
  const front = options.front?.(server.url);
  const upstream = front?.url ?? server.url;
  const prism = THROUGH_PRISM ? await startPrism(upstream) : null;
  return {
    url: prism?.url ?? upstream,
    direct: server.url,
    async stop() {
      const violations = prism?.violations() ?? [];
      await prism?.stop();
      front?.stop();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
      return violations;
    },
  };
}
