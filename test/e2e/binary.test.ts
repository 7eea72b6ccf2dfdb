// The compiled binary on its own: copied alone to an empty folder it seeds, serves the sandbox,
// refuses bad configs with exit 2, reloads on SIGHUP and stops gracefully on SIGTERM.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hashSecret } from "../../src/security/secrets.ts";
import { binaryInNewFolder, freePort, sandboxToken, startBinary } from "../helpers/binary.ts";

let dir: string;
let binary: string;

beforeAll(() => {
  ({ dir, binary } = binaryInNewFolder("pa-e2e-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[], cwd = dir) => {
  const result = Bun.spawnSync([binary, ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  return { code: result.exitCode, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
};

describe("the binary alone in an empty folder", () => {
  test("--version and --help", () => {
    expect(run(["--version"]).stdout).toMatch(/^partner-api \d+\.\d+\.\d+/);
    expect(run(["--help"]).stdout).toContain("partner-api sandbox");
  });

  test("seed writes a dataset", () => {
    const result = run(["seed", "--out", "seeded.sqlite", "--properties", "50", "--leads", "80"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ properties: 50, leads: 80 });
  });

  test("sandbox builds its dataset, prints credentials and serves with them; SIGTERM exits 0", async () => {
    const folder = mkdtempSync(join(dir, "sandbox-"));
    const server = await startBinary(binary, ["sandbox"], folder, {}, { captureStdout: true });
    const token = await sandboxToken(server.url);
    const response = await fetch(`${server.url}/v1/properties?fields=id,title&limit=3`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { meta: { total: number } }).meta.total).toBeGreaterThan(800);
    const missing = await fetch(`${server.url}/v1/properties?fields=nope`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(missing.status).toBe(400);
    expect(await server.stop()).toBe(0);
    const banner = await server.stderr();
    expect(banner).toContain("pk_sandbox_demo");
    expect(banner).toContain("curl -s -X POST");

    // Every log line is JSON, the buffered ones included (flushed on SIGTERM): one per request
    // with its id, client, route, status and duration, and never the token.
    const log = await server.stdout();
    expect(log).not.toContain(token);
    const lines = log
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const requestLine = (id: string | null) => lines.find((line) => line.reqId === id);
    for (const [answered, status] of [
      [response, 200],
      [missing, 400],
    ] as const) {
      expect(requestLine(answered.headers.get("x-request-id"))).toMatchObject({
        level: 30,
        clientId: "sandbox",
        method: "GET",
        route: "/v1/properties",
        status,
      });
      expect(typeof requestLine(answered.headers.get("x-request-id"))!.ms).toBe("number");
    }
    expect(lines.some((line) => line.msg === "listening")).toBe(true);
    expect(lines.at(-1)).toMatchObject({ msg: "stopped" });
  });
});

/** A variable of a running process's environment, read from /proc (Linux). */
function environmentOf(pid: number, name: string): string | undefined {
  const entries = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
  return entries.find((entry) => entry.startsWith(`${name}=`))?.slice(name.length + 1);
}

describe("the servers keep the memory they free (src/allocator.ts)", () => {
  test("sandbox runs as the same process with MIMALLOC_PURGE_DELAY=-1, serves, and exits 0 on SIGTERM", async () => {
    const server = await startBinary(binary, ["sandbox", "--db", join(dir, "allocator.sqlite")], dir);
    try {
      // The process the test started is the one serving: it replaced itself, it did not fork.
      expect(environmentOf(server.proc.pid, "MIMALLOC_PURGE_DELAY")).toBe("-1");
      // With the command line it was given, argv[0] included (what ps and a container's PID 1 show).
      const port = new URL(server.url).port;
      const cmdline = readFileSync(`/proc/${server.proc.pid}/cmdline`, "utf8").split("\0").slice(0, -1);
      expect(cmdline).toEqual([binary, "sandbox", "--db", join(dir, "allocator.sqlite"), "--port", port]);
      const token = await sandboxToken(server.url);
      const list = await fetch(`${server.url}/v1/properties?fields=id&limit=1`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(list.status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  test("an operator's own MIMALLOC_PURGE_DELAY is kept", async () => {
    const server = await startBinary(binary, ["sandbox", "--db", join(dir, "allocator-own.sqlite")], dir, {
      MIMALLOC_PURGE_DELAY: "250",
    });
    try {
      expect(environmentOf(server.proc.pid, "MIMALLOC_PURGE_DELAY")).toBe("250");
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});

describe("checkpoints off the event loop (src/db/checkpointer.ts)", () => {
  test("the executable's own checkpointer thread copies lead commits into the database file", async () => {
    const folder = mkdtempSync(join(dir, "checkpoints-"));
    const server = await startBinary(binary, ["sandbox"], folder, {}, { captureStdout: true });
    try {
      const token = await sandboxToken(server.url);
      const file = join(folder, "data/sandbox.sqlite");
      // The first request opens the database (and starts the thread); in WAL mode the file itself
      // changes only when a checkpoint copies pages into it.
      expect(
        (
          await fetch(`${server.url}/v1/properties?fields=id&limit=1`, {
            headers: { authorization: `Bearer ${token}` },
          })
        ).status,
      ).toBe(200);
      const before = statSync(file).mtimeMs;
      for (let i = 0; i < 3; i++) {
        const created = await fetch(`${server.url}/v1/leads`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({
            name: "Maria Oliveira",
            email: "maria@example.com",
            phone: "+55 11 98765-4321",
            message: "Quero visitar",
          }),
        });
        expect(created.status).toBe(201);
      }
      // Three leads are far below SQLite's own threshold (1,000 pages): only the thread copies them.
      const deadline = performance.now() + 10_000;
      while (statSync(file).mtimeMs === before && performance.now() < deadline) await Bun.sleep(50);
      expect(statSync(file).mtimeMs).toBeGreaterThan(before);
      expect(await server.stop()).toBe(0);
      const lines = (await server.stdout())
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { level: number; msg: string });
      expect(lines.filter((line) => line.level >= 40)).toEqual([]); // no failed checkpoint, no dead thread
    } finally {
      server.proc.kill("SIGKILL");
    }
  });
});

describe("bad flags and bad configs exit 2 naming the problem, serving nothing", () => {
  const config = (body: unknown) => {
    const path = join(mkdtempSync(join(dir, "cfg-")), "config.json");
    writeFileSync(path, typeof body === "string" ? body : JSON.stringify(body));
    return path;
  };
  const client = { id: "a", apiKey: "pk_live_aaaaaaaa", secretHash: hashSecret("s") };
  const cases: [string, unknown, string][] = [
    ["malformed JSON", "{ nope", "not valid JSON"],
    ["an unknown key", { clients: [client], colour: "x" }, "/colour: unknown key"],
    ["a bad CIDR", { clients: [{ ...client, ipWhitelist: ["10.0.0.0/40"] }] }, "/clients/0/ipWhitelist/0"],
    [
      "a duplicate client id",
      { clients: [client, { ...client, apiKey: "pk_live_bbbbbbbb" }] },
      'duplicate client id "a"',
    ],
  ];
  for (const [name, body, mention] of cases) {
    test(name, () => {
      const result = run(["serve", "--config", config(body), "--port", String(freePort())]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(mention);
    });
  }

  test("a feeds block with a problem in each feed names every one, and never a header's value (docs/reference/behaviour-extensions.md §14)", () => {
    const folder = mkdtempSync(join(dir, "feeds-"));
    const header = "Bearer s3cret-never-shown";
    const feed = {
      id: "crm",
      database: "agency",
      url: "https://crm.example.com/feed.xml",
      headers: { Authorization: header },
    };
    const path = config({
      jwtSecret: "x".repeat(32),
      databases: { agency: join(folder, "agency.sqlite") },
      clients: [{ ...client, database: "agency" }],
      feeds: [
        { ...feed, every: "30s" },
        { ...feed, database: "nowhere" },
        { ...feed, id: "b", url: "ftp://crm.example.com/feed.xml" },
        { ...feed, id: "c", headers: { Authorization: `${header}\r\nX-Evil: 1` } },
      ],
    });
    const result = run(["serve", "--config", path, "--port", String(freePort())], folder);
    expect(result.code).toBe(2);
    for (const problem of [
      "/feeds/0/every: 30s is shorter than the minimum, 1m (30s in the sandbox)",
      '/feeds/1/id: duplicate feed id "crm" (also /feeds/0/id)',
      '/feeds/1/database: "nowhere" is not a name in databases',
      "/feeds/2/url: must be an http(s) URL, not ftp (ftp://crm.example.com/feed.xml)",
      "/feeds/3/headers/Authorization: must not contain line breaks or NUL",
    ]) {
      expect({ problem, named: result.stderr.includes(problem) }).toEqual({ problem, named: true });
    }
    expect(result.stderr).not.toContain("s3cret");
    expect(result.stdout).not.toContain("listening");
  });

  test("an unknown flag and an unknown command", () => {
    expect(run(["sandbox", "--colour", "red"]).code).toBe(2);
    expect(run(["launch"]).code).toBe(2);
  });
});

describe("production serve", () => {
  test("SIGHUP disables a client's live token; a broken config on SIGHUP keeps the old one", async () => {
    const folder = mkdtempSync(join(dir, "prod-"));
    expect(run(["seed", "--out", join(folder, "agency.sqlite"), "--properties", "20", "--leads", "10"]).code).toBe(0);
    const entry = {
      id: "portal",
      apiKey: "pk_live_portal_1",
      secretHash: hashSecret("sk_live_portal_1"),
      database: "agency",
    };
    const base = { databases: { agency: "agency.sqlite" }, clients: [entry] };
    const configPath = join(folder, "config.json");
    writeFileSync(configPath, JSON.stringify(base));
    const server = await startBinary(binary, ["serve", "--config", configPath], folder);
    const tokenResponse = await fetch(`${server.url}/v1/auth/token`, {
      method: "POST",
      headers: { "x-api-key": entry.apiKey, "x-api-secret": "sk_live_portal_1" },
    });
    const token = ((await tokenResponse.json()) as { data: { token: string } }).data.token;
    const fields = () => fetch(`${server.url}/v1/fields`, { headers: { authorization: `Bearer ${token}` } });
    expect((await fields()).status).toBe(200);

    writeFileSync(configPath, "{ broken");
    server.proc.kill("SIGHUP");
    await Bun.sleep(300);
    expect((await fields()).status).toBe(200);

    writeFileSync(configPath, JSON.stringify({ ...base, clients: [{ ...entry, enabled: false }] }));
    server.proc.kill("SIGHUP");
    let status = 200;
    for (let i = 0; i < 40 && status === 200; i++) {
      await Bun.sleep(50);
      status = (await fields()).status;
    }
    expect(status).toBe(403);
    expect(await server.stop()).toBe(0);
  });

  test("SIGTERM lets an in-flight request finish before exiting 0", async () => {
    const folder = mkdtempSync(join(dir, "drain-"));
    const server = await startBinary(binary, ["sandbox"], folder);
    const token = await sandboxToken(server.url);
    // A body that arrives slowly keeps the request in flight while the signal lands.
    let push!: (chunk: string | null) => void;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        push = (chunk) => (chunk === null ? controller.close() : controller.enqueue(new TextEncoder().encode(chunk)));
      },
    });
    const pending = fetch(`${server.url}/v1/leads`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body,
      duplex: "half",
    });
    push('{"name":"Slow","email":"slow@example.com",');
    await Bun.sleep(200);
    server.proc.kill("SIGTERM");
    await Bun.sleep(200);
    push('"phone":"1","message":"devagar"}');
    push(null);
    const response = await pending;
    expect(response.status).toBe(201);
    expect(await server.proc.exited).toBe(0);
  });

  test("a client limited to 5/min gets 429 on the sixth request", async () => {
    const folder = mkdtempSync(join(dir, "limit-"));
    const server = await startBinary(binary, ["sandbox", "--rate-limit", "5"], folder);
    const token = await sandboxToken(server.url);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await fetch(`${server.url}/v1/fields`, { headers: { authorization: `Bearer ${token}` } })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    await server.stop();
  });
});
