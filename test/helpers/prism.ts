// Stoplight Prism's validating proxy in front of a running server: every request and answer
// that passes through is checked against an OpenAPI document, and with --errors a violation
// becomes an error answer. violations() reads what Prism reported.
import { join } from "node:path";
import { freePort, ROOT, waitHealthy } from "./binary.ts";

export const PRISM = join(ROOT, "node_modules/.bin/prism");
export const CLIENT_DOCUMENT = join(ROOT, "clients/typescript/openapi.json");

export interface RunningPrism {
  url: string;
  /** Lines in which Prism reported a request or response that breaks the document. */
  violations(): string[];
  stop(): Promise<void>;
}

export async function startPrism(upstream: string, document = CLIENT_DOCUMENT): Promise<RunningPrism> {
  const port = freePort();
  const proc = Bun.spawn(
    [PRISM, "proxy", document, upstream, "--port", String(port), "--host", "127.0.0.1", "--errors"],
    {
      cwd: ROOT,
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  let log = "";
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const reader = stream.getReader();
    const decoder = new TextDecoder();
    for (let read = await reader.read(); !read.done; read = await reader.read())
      log += decoder.decode(read.value, { stream: true });
  };
  void collect(proc.stdout);
  void collect(proc.stderr);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitHealthy(url, 60_000);
  } catch (error) {
    proc.kill("SIGKILL");
    throw new Error(`${(error as Error).message}\n${log}`);
  }
  return {
    url,
    violations: () =>
      log
        .split("\n")
        // Prism's validator names each violation; --errors also turns them into error answers.
        .filter((line) => /violation|✖|UNPROCESSABLE_ENTITY|VIOLATIONS/i.test(line)),
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}
