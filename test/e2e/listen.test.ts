// Where the binary listens (docs/reference/behaviour.md §1): the sandbox, whose credentials are public, only on
// 127.0.0.1 unless --host says otherwise; a port already in use is an error, never shared.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hashSecret } from "../../src/security/secrets.ts";
import { binaryInNewFolder, sandboxToken, startBinary } from "../helpers/binary.ts";

let dir: string;
let binary: string;

beforeAll(() => {
  ({ dir, binary } = binaryInNewFolder("pa-listen-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Local addresses (hex, as /proc/net/tcp writes them) of the sockets listening on `port`. */
function listeningAddresses(port: number): string[] {
  const portHex = port.toString(16).toUpperCase().padStart(4, "0");
  return ["/proc/net/tcp", "/proc/net/tcp6"].flatMap((file) =>
    readFileSync(file, "utf8")
      .split("\n")
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      // field 1: local address:port; field 3: state, 0A = LISTEN
      .filter((fields) => fields[3] === "0A" && fields[1]?.endsWith(`:${portHex}`))
      .map((fields) => fields[1]!.split(":")[0]!),
  );
}

describe("the sandbox's address", () => {
  test("listens on 127.0.0.1 by default", async () => {
    const server = await startBinary(binary, ["sandbox", "--db", join(dir, "default.sqlite")], dir);
    try {
      expect(listeningAddresses(Number(new URL(server.url).port))).toEqual(["0100007F"]);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  test("--host 0.0.0.0 listens on every interface and says so", async () => {
    const server = await startBinary(binary, ["sandbox", "--host", "0.0.0.0", "--db", join(dir, "any.sqlite")], dir);
    try {
      expect(listeningAddresses(Number(new URL(server.url).port))).toEqual(["00000000"]);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(await server.stderr()).toContain("anyone who can reach this address");
  });

  test("a malformed --host is a usage error (exit 2)", () => {
    const result = Bun.spawnSync([binary, "sandbox", "--host", "bad host!", "--db", join(dir, "x.sqlite")], {
      cwd: dir,
      stderr: "pipe",
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.toString()).toContain("--host");
  });
});

describe("a busy port", () => {
  test("a second sandbox on the first one's port exits 1 saying so, and the first keeps every request", async () => {
    const first = await startBinary(binary, ["sandbox", "--db", join(dir, "first.sqlite")], dir);
    try {
      const port = new URL(first.url).port;
      const second = Bun.spawn([binary, "sandbox", "--db", join(dir, "second.sqlite"), "--port", port], {
        cwd: dir,
        stdout: "ignore",
        stderr: "pipe",
      });
      const code = await second.exited;
      expect(code).toBe(1);
      expect(await new Response(second.stderr).text()).toMatch(new RegExp(`port ${port} .*already in use`));

      // Every request reaches the first server: its token is good on all of them.
      const token = await sandboxToken(first.url);
      const statuses = await Promise.all(
        Array.from({ length: 40 }, () =>
          fetch(`${first.url}/v1/fields`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status),
        ),
      );
      expect(new Set(statuses)).toEqual(new Set([200]));
    } finally {
      expect(await first.stop()).toBe(0);
    }
  });

  test("serve on a port another server holds exits 1 saying so, serving nothing", async () => {
    const first = await startBinary(binary, ["sandbox", "--db", join(dir, "held.sqlite")], dir);
    try {
      const port = new URL(first.url).port;
      const config = join(dir, "busy-serve.json");
      writeFileSync(
        config,
        JSON.stringify({
          jwtSecret: "a-jwt-secret-long-enough-for-the-listen-test-0123",
          databases: { agency: join(dir, "held.sqlite") },
          clients: [
            {
              id: "portal",
              apiKey: "pk_live_portal_listen",
              secretHash: hashSecret("sk_live_portal_listen"),
              database: "agency",
            },
          ],
        }),
      );
      const second = Bun.spawnSync([binary, "serve", "--config", config, "--host", "127.0.0.1", "--port", port], {
        cwd: dir,
        stderr: "pipe",
      });
      expect(second.exitCode).toBe(1);
      expect(second.stderr.toString()).toMatch(new RegExp(`port ${port} .*already in use`));
      // The production client is unknown to the sandbox that holds the port: no request reached a second server.
      const refused = await fetch(`${first.url}/v1/auth/token`, {
        method: "POST",
        headers: { "x-api-key": "pk_live_portal_listen", "x-api-secret": "sk_live_portal_listen" },
      });
      expect(((await refused.json()) as { code: string }).code).toBe("INVALID_API_KEY");
    } finally {
      expect(await first.stop()).toBe(0);
    }
  });
});
