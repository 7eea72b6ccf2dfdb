// The `inbound` key of a client (docs/operators/portal-leads.md): read from the config file,
// validated at start with every problem named, and the scope it needs.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, loadConfigFile } from "../../../src/config/load.ts";
import { hashSecret } from "../../../src/security/secrets.ts";

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const portal = { id: "zap", apiKey: "pk_live_zap_7Hq2", secretHash: hashSecret("sk_live_x") };
const inbound = { format: "grupozap", username: "vivareal", passwordHash: hashSecret("chosen-in-canal-pro") };

function load(clients: unknown[]) {
  dir = mkdtempSync(join(tmpdir(), "pa-inbound-config-"));
  const path = join(dir, "config.json");
  writeFileSync(path, JSON.stringify({ jwtSecret: "x".repeat(32), clients }));
  return loadConfigFile(path);
}

function problemsOf(clients: unknown[]): string[] {
  try {
    load(clients);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error("expected the config to be refused");
}

describe("a client's inbound config", () => {
  test("is resolved whole; without a username any user may send the password; absent, the client takes no portal leads", () => {
    const config = load([
      { ...portal, inbound },
      {
        ...portal,
        id: "cnm",
        apiKey: "pk_live_cnm_1234",
        inbound: { format: "chavesnamao", passwordHash: inbound.passwordHash },
      },
      { ...portal, id: "site", apiKey: "pk_live_site_1234" },
    ]);
    expect(config.clients.get("zap")!.inbound).toEqual({
      format: "grupozap",
      username: "vivareal",
      passwordHash: inbound.passwordHash,
    });
    expect(config.clients.get("cnm")!.inbound).toEqual({
      format: "chavesnamao",
      username: null,
      passwordHash: inbound.passwordHash,
    });
    expect(config.clients.get("site")!.inbound).toBeNull();
  });

  test("a client that takes portal leads needs leads:create: the config refuses to load, naming it", () => {
    expect(problemsOf([{ ...portal, scopes: ["leads:read:own", "feed:read"], inbound }])).toEqual([
      '/clients/0/inbound: client "zap" takes portal leads, so it needs the scope leads:create',
    ]);
    expect(load([{ ...portal, scopes: ["leads:create"], inbound }]).clients.get("zap")!.inbound).not.toBeNull();
  });

  test("an unknown format, a password in clear, an unknown key, a missing password: each named by its path", () => {
    expect(problemsOf([{ ...portal, inbound: { ...inbound, format: "imovelweb" } }])[0]).toStartWith(
      "/clients/0/inbound/format: ",
    );
    expect(problemsOf([{ ...portal, inbound: { ...inbound, passwordHash: "chosen-in-canal-pro" } }])[0]).toStartWith(
      "/clients/0/inbound/passwordHash: ",
    );
    expect(problemsOf([{ ...portal, inbound: { ...inbound, password: "x" } }])).toContain(
      "/clients/0/inbound/password: unknown key",
    );
    const { passwordHash: _, ...withoutPassword } = inbound;
    expect(problemsOf([{ ...portal, inbound: withoutPassword }])[0]).toStartWith("/clients/0/inbound/passwordHash: ");
  });
});
