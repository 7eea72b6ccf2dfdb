// A client that hangs up in the middle of its request body is not a server error (issue #27,
// item 5): no error line, no 500 in the access line, no status="500" in /metrics, so nobody can
// trip the 5xx alerts by closing sockets. Driven through a real socket against the compiled binary.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLIENT_CLOSED_REQUEST } from "../../src/metrics/requests.ts";
import { ensureBinary, type RunningBinary, sandboxToken, startBinary } from "../helpers/binary.ts";
import { hangUpMidBody } from "../helpers/hang-up.ts";
import { parseExposition, type Sample, sampleValue } from "../metrics/parse.ts";

let dir: string;
let server: RunningBinary;
let token: string;
let logLines: Record<string, unknown>[] = [];
let samples: Sample[] = [];

async function scrape() {
  return parseExposition(await (await fetch(`${server.url}/metrics`)).text());
}

const leadPosts = (samples: Sample[]) =>
  samples.filter(
    (s) => s.name === "partner_api_http_requests_total" && s.labels.route === "/v1/leads" && s.labels.method === "POST",
  );

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "pa-hangup-"));
  server = await startBinary(
    ensureBinary(),
    ["sandbox", "--db", join(dir, "sandbox.sqlite")],
    dir,
    {},
    { captureStdout: true },
  );
  token = await sandboxToken(server.url);

  await hangUpMidBody(server.url, token, "hangup-declared", "Content-Length: 400\r\n");
  await hangUpMidBody(server.url, token, "hangup-chunked", "Transfer-Encoding: chunked\r\n");
  // The server finishes with each request after the hang-up: wait until both are recorded.
  for (let i = 0; i < 100; i++) {
    samples = await scrape();
    if (leadPosts(samples).reduce((sum, s) => sum + s.value, 0) >= 2) break;
    await Bun.sleep(50);
  }
  expect(await server.stop()).toBe(0); // flushes the buffered log lines
  logLines = (await server.stdout())
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a client hanging up mid-body", () => {
  test("is never logged as an error", () => {
    const errors = logLines.filter((line) => (line.level as number) >= 50);
    expect(errors.map((line) => [line.msg, (line.err as { message?: string } | undefined)?.message])).toEqual([]);
  });

  test("its access line says the client closed the request, not 500", () => {
    for (const reqId of ["hangup-declared", "hangup-chunked"]) {
      expect(logLines.find((line) => line.reqId === reqId && "status" in line)).toMatchObject({
        method: "POST",
        route: "/v1/leads",
        status: CLIENT_CLOSED_REQUEST,
      });
    }
  });

  test("/metrics counts it under its own status, never as 5xx", () => {
    expect(leadPosts(samples).filter((s) => s.labels.status!.startsWith("5"))).toEqual([]);
    expect(
      sampleValue(samples, "partner_api_http_requests_total", {
        route: "/v1/leads",
        method: "POST",
        status: String(CLIENT_CLOSED_REQUEST),
      }),
    ).toBe(2);
  });

  test("no lead is created from half a body", () => {
    expect(sampleValue(samples, "partner_api_leads_created_total", {})).toBe(0);
  });
});
