// Tokens are bound to the credentials that obtained them (docs/reference/behaviour.md §5), with the compiled
// binary and a real SIGHUP: an agency that gives a partner a new key or secret revokes every
// token issued under the old pair at once, not an hour later.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hashSecret } from "../../src/security/secrets.ts";
import { binaryInNewFolder, startBinary } from "../helpers/binary.ts";

let dir: string;
let binary: string;

beforeAll(() => {
  ({ dir, binary } = binaryInNewFolder("pa-credentials-"));
  const seeded = Bun.spawnSync(
    [binary, "seed", "--out", join(dir, "agency.sqlite"), "--properties", "20", "--leads", "10"],
    { cwd: dir },
  );
  if (seeded.exitCode !== 0) throw new Error(seeded.stderr.toString());
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CONFIG = () => join(dir, "config.json");

function writeConfig(clients: { id: string; apiKey: string; secret: string }[]): void {
  writeFileSync(
    CONFIG(),
    JSON.stringify({
      jwtSecret: "a-jwt-secret-long-enough-for-the-credentials-test",
      databases: { agency: "agency.sqlite" },
      clients: clients.map(({ id, apiKey, secret }) => ({
        id,
        apiKey,
        secretHash: hashSecret(secret),
        database: "agency",
      })),
    }),
  );
}

async function tokenOf(url: string, apiKey: string, secret: string): Promise<string> {
  const response = await fetch(`${url}/v1/auth/token`, {
    method: "POST",
    headers: { "x-api-key": apiKey, "x-api-secret": secret },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { token: string } }).data.token;
}

describe("a new key or secret on SIGHUP", () => {
  test("revokes the tokens issued under the old pair at once; other clients' tokens and new tokens work", async () => {
    const c3 = { id: "c3", apiKey: "pk_live_c3_first", secret: "sk_live_c3_first" };
    const other = { id: "other", apiKey: "pk_live_other", secret: "sk_live_other" };
    writeConfig([c3, other]);
    const server = await startBinary(binary, ["serve", "--config", CONFIG()], dir);
    try {
      const fields = async (token: string) => {
        const response = await fetch(`${server.url}/v1/fields`, { headers: { authorization: `Bearer ${token}` } });
        return {
          status: response.status,
          code: response.status === 200 ? null : ((await response.json()) as { code: string }).code,
        };
      };
      const oldToken = await tokenOf(server.url, c3.apiKey, c3.secret);
      const otherToken = await tokenOf(server.url, other.apiKey, other.secret);
      expect(await fields(oldToken)).toEqual({ status: 200, code: null });

      // Same id, a new secret only: the old tokens die.
      const newSecret = { ...c3, secret: "sk_live_c3_second" };
      writeConfig([newSecret, other]);
      server.proc.kill("SIGHUP");
      let answer = await fields(oldToken);
      for (let i = 0; i < 40 && answer.status === 200; i++) {
        await Bun.sleep(50);
        answer = await fields(oldToken);
      }
      expect(answer).toEqual({ status: 401, code: "INVALID_TOKEN" });
      expect(await fields(otherToken)).toEqual({ status: 200, code: null });
      const secondToken = await tokenOf(server.url, newSecret.apiKey, newSecret.secret);
      expect(await fields(secondToken)).toEqual({ status: 200, code: null });

      // A new key only: the tokens of the second pair die too.
      writeConfig([{ ...newSecret, apiKey: "pk_live_c3_third" }, other]);
      server.proc.kill("SIGHUP");
      answer = await fields(secondToken);
      for (let i = 0; i < 40 && answer.status === 200; i++) {
        await Bun.sleep(50);
        answer = await fields(secondToken);
      }
      expect(answer).toEqual({ status: 401, code: "INVALID_TOKEN" });
      expect(await fields(await tokenOf(server.url, "pk_live_c3_third", newSecret.secret))).toEqual({
        status: 200,
        code: null,
      });
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});
