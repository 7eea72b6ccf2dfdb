// The shipped Postman collection, run as it is by Newman (Postman's command-line runner) against
// the compiled sandbox: it fetches its own token, authenticates the portal's lead post, chains the
// ids it creates, and every assertion it carries passes on every request.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBinary, ROOT, type RunningBinary, startBinary } from "../helpers/binary.ts";

const POSTMAN = join(ROOT, "clients/postman");
const NEWMAN = join(ROOT, "node_modules/newman");

type Json = Record<string, any>;

let dir: string;
let server: RunningBinary;
let receiver: ReturnType<typeof Bun.serve>;
const delivered: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "pa-newman-"));
  server = await startBinary(ensureBinary(), ["sandbox", "--db", join(dir, "sandbox.sqlite")], dir);
  // The subscription the collection makes sends its test event here.
  receiver = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: async (request) => {
      delivered.push(JSON.parse(await request.text()).type);
      return new Response(null, { status: 204 });
    },
  });
}, 300_000);

afterAll(async () => {
  receiver?.stop(true);
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs the collection once with the sandbox environment (`collection`: another copy of it);
 * Newman's JSON report. Asynchronous: the receiver in this process must answer meanwhile.
 */
async function newman(collection = join(POSTMAN, "partner-api.postman_collection.json")) {
  const report = join(dir, `report-${Math.random().toString(36).slice(2)}.json`);
  const options = {
    collection,
    environment: join(POSTMAN, "sandbox.postman_environment.json"),
    envVar: [
      { key: "baseUrl", value: server.url },
      { key: "webhookUrl", value: `http://127.0.0.1:${receiver.port}/hooks` },
    ],
    reporters: ["cli", "json"],
    reporter: { json: { export: report } },
    color: "off",
  };
  // Newman's own command waits for idle keep-alive connections to close before it exits (half a
  // minute); its library's callback comes as soon as the run and its report are done.
  const script = `require(${JSON.stringify(NEWMAN)}).run(${JSON.stringify(options)}, (error, summary) => {
    if (error) console.error(error);
    process.exit(error || summary.run.failures.length > 0 ? 1 : 0);
  });`;
  const run = Bun.spawn(["node", "-e", script], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  const output = (await new Response(run.stdout).text()) + (await new Response(run.stderr).text());
  const exitCode = await run.exited;
  return { exitCode, output, report: JSON.parse(readFileSync(report, "utf8")) as Json };
}

/** What a run must show: no failure, every request answered 2xx and asserted. */
function expectClean(run: Awaited<ReturnType<typeof newman>>): Json[] {
  const { exitCode, output, report } = run;
  const failures = (report.run.failures as Json[]).map(
    (f) => `${f.source?.name}: ${f.error?.test ?? ""} ${f.error?.message}`,
  );
  expect({ exitCode, failures, output: exitCode === 0 ? "" : output }).toEqual({
    exitCode: 0,
    failures: [],
    output: "",
  });
  const executions = report.run.executions as Json[];
  // No 4xx hiding behind a passing test.
  expect(executions.map((e) => `${e.item.name}: ${e.response?.code}`).filter((s) => !/: 2\d\d$/.test(s))).toEqual([]);
  // Every request of the collection ran, in order (the token's own request is recorded under the
  // request that needed it, so a name may come twice).
  expect([...new Set(executions.map((e) => e.item.name))]).toEqual(
    (report.collection.item as Json[]).flatMap((f) => f.item ?? [f]).map((i: Json) => i.name),
  );
  // Each asserted its status and headers, and its shape where the body is JSON.
  for (const execution of executions)
    expect({ request: execution.item.name, asserted: (execution.assertions ?? []).length >= 2 }).toEqual({
      request: execution.item.name,
      asserted: true,
    });
  expect(report.run.stats.assertions.failed).toBe(0);
  return executions;
}

/** How many times the run asked for a token: the pre-request script's assertion, once per fetch. */
const tokenFetches = (executions: Json[]) =>
  [...new Map(executions.map((e) => [e.id, e])).values()]
    .flatMap((e) => (e.assertions ?? []) as Json[])
    .filter((a) => a.assertion === "a token is obtained by client credentials").length;

/** A copy of the collection that starts with `accessToken` and its expiry already set. */
function withToken(token: string, expiresAt: number): string {
  const collection = JSON.parse(readFileSync(join(POSTMAN, "partner-api.postman_collection.json"), "utf8"));
  for (const variable of collection.variable as Json[]) {
    if (variable.key === "accessToken") variable.value = token;
    if (variable.key === "accessTokenExpiresAt") variable.value = String(expiresAt);
  }
  const path = join(dir, `collection-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify(collection));
  return path;
}

describe("the Postman collection in Newman against the compiled sandbox", () => {
  test("every request runs and passes its assertions; one token serves the whole run; the test event arrives", async () => {
    const run = await newman();
    const executions = expectClean(run);
    expect(tokenFetches(executions)).toBe(1);
    expect(delivered).toContain("webhook.test");
  }, 300_000);

  test("a token that expires within a minute is renewed before the first request that needs it", async () => {
    // The stale token is no token at all: sent as it is, every bearer request would be a 401.
    const stale = withToken("stale.token.value", Date.now() + 30_000);
    const executions = expectClean(await newman(stale));
    expect(tokenFetches(executions)).toBe(1);
    // The same token with an hour left is used as it is: the check has teeth.
    const kept = await newman(withToken("stale.token.value", Date.now() + 3_600_000));
    expect(kept.exitCode).not.toBe(0);
    expect(tokenFetches(kept.report.run.executions)).toBe(0);
    expect((kept.report.run.executions as Json[]).some((e) => e.response?.code === 401)).toBe(true);
  }, 300_000);
});
