// `partner-api healthcheck [--port P] [--host H]`: exit 0 when GET /health on this machine answers
// 200, else 1 saying why. For container health checks: the image has no curl, and needs none.
import { choosePort, hostFlag, parseFlags, urlHost } from "./args.ts";

const TIMEOUT_MS = 3_000;

export async function healthcheckCommand(args: string[]): Promise<number> {
  const { values } = parseFlags(args, { port: { type: "string" }, host: { type: "string" } });
  const host = hostFlag(values.host) ?? "127.0.0.1";
  const url = `http://${urlHost(host)}:${choosePort(values.port, null)}/health`;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (response.status === 200) return 0;
    process.stderr.write(
      `partner-api healthcheck: ${url} answered ${response.status}: ${(await response.text()).slice(0, 500)}\n`,
    );
  } catch (error) {
    process.stderr.write(`partner-api healthcheck: ${url}: ${(error as Error).message}\n`);
  }
  return 1;
}
