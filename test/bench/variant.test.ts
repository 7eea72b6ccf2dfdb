// The bench's second column when it is this build changed: the config overlay merged as the
// product reads configs, and a console session that signs in and keeps loading a page on a real
// server (from source here; the bench runs the binary the same way).
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  mergeConfig,
  ownerControl,
  parseVariant,
  signedInConsole,
  writeColumnConfig,
} from "../../bench/lib/variant.ts";
import { validateConfig } from "../../src/config/load.ts";
import { seededDatabase } from "../helpers/app.ts";

const dir = mkdtempSync(join(tmpdir(), "pa-bench-variant-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the variant's config", () => {
  test("an overlay merges objects key by key and replaces anything else", () => {
    const base = { a: { b: 1, c: [1, 2] }, d: "x", keep: true };
    expect(mergeConfig(base, { a: { c: [3], e: 2 }, d: { f: 1 } })).toEqual({
      a: { b: 1, c: [3], e: 2 },
      d: { f: 1 },
      keep: true,
    });
    expect(base.a.c).toEqual([1, 2]); // the base is left as it was
  });

  test("flags that are not a JSON object are refused with the reason", () => {
    expect(parseVariant(undefined, false)).toBeNull();
    expect(() => parseVariant("{nope", false)).toThrow(/not JSON/);
    expect(() => parseVariant("[1]", false)).toThrow(/JSON object/);
    expect(parseVariant('{"requestLog":{"enabled":true}}', true)).toEqual({
      overlay: { requestLog: { enabled: true } },
      console: true,
    });
  });

  test("both columns' config files are configs the product accepts, the overlay in the variant's only", () => {
    const product = join(dir, "product.json");
    const variant = join(dir, "variant.json");
    writeColumnConfig(product, "/data/a.sqlite", "/data/c.sqlite", null);
    writeColumnConfig(variant, "/data/b.sqlite", "/data/d.sqlite", { logLevel: "warn" });
    const read = (path: string) => validateConfig(JSON.parse(readFileSync(path, "utf8")), path);
    expect(read(product).databases).toEqual({ bench: "/data/a.sqlite" });
    expect((read(product) as { logLevel?: string }).logLevel).not.toBe("warn");
    expect((read(variant) as { logLevel?: string }).logLevel).toBe("warn");
  });
});

describe("the signed-in console", () => {
  test("signs the owner in and loads the partners page and its API calls while it runs", async () => {
    const db = seededDatabase(dir, 50, 50);
    const config = join(dir, "console.json");
    writeColumnConfig(config, db, await ownerControl(dir, "test"), null);
    const port = 20000 + Math.floor(Math.random() * 20000);
    const server = Bun.spawn(
      [process.execPath, "src/main.ts", "serve", "--config", config, "--port", String(port), "--host", "127.0.0.1"],
      { stdout: "ignore", stderr: "pipe" },
    );
    try {
      const base = `http://127.0.0.1:${port}`;
      for (let i = 0; i < 200; i++) {
        const up = await fetch(`${base}/health`).catch(() => null);
        if (up?.status === 200) break;
        await Bun.sleep(100);
      }
      const session = await signedInConsole(base);
      await Bun.sleep(300);
      await session.stop();
      expect(session.loads.pages).toBeGreaterThanOrEqual(1);
      expect(session.loads.failures).toBe(0);
      // A session the server ended or never made would not read the admin API.
      const anonymous = await fetch(`${base}/admin/v1/me`);
      expect(anonymous.status).toBe(401);
    } finally {
      server.kill();
      await server.exited;
    }
  }, 60_000);
});
