// The docs work from the compiled binary alone, with no network: the binary, copied to an empty
// folder, serves the Scalar bundle it embeds, and headless Chromium, with every host but the
// server unreachable, renders the reference with all the endpoints.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { binaryInNewFolder, type RunningBinary, startBinary } from "../../helpers/binary.ts";
import { toolForTests } from "../../helpers/tools.ts";

/** Absent on a fresh machine: the browser test is then skipped with a notice (CI requires it). */
const CHROMIUM = toolForTests(
  "chromium",
  ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome", "chromium"],
  "install it with `apt-get install -y chromium` to run the docs page test",
);
const SCALAR_SOURCE = join(import.meta.dir, "../../../node_modules/@scalar/api-reference/dist/browser/standalone.js");

let dir: string;
let server: RunningBinary;

beforeAll(async () => {
  const made = binaryInNewFolder("pa-docs-offline-");
  dir = made.dir;
  const binary = made.binary;
  server = await startBinary(binary, ["sandbox", "--db", join(dir, "sandbox.sqlite")], dir);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The page's DOM after scripts ran, loaded by Chromium with only the server reachable. */
async function renderedDom(url: string): Promise<string> {
  const profile = mkdtempSync(join(dir, "chromium-"));
  const proc = Bun.spawn(
    [
      CHROMIUM!,
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      `--user-data-dir=${profile}`,
      // Network blocked: no name resolves, and anything not for the server goes to a dead proxy.
      "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
      "--proxy-server=127.0.0.1:9",
      "--proxy-bypass-list=127.0.0.1",
      // Lets the page's scripts fetch /openapi.json and render before the DOM is dumped.
      "--virtual-time-budget=15000",
      "--dump-dom",
      url,
    ],
    { stdout: "pipe", stderr: "ignore" },
  );
  const timer = setTimeout(() => proc.kill("SIGKILL"), 90_000);
  try {
    const dom = await new Response(proc.stdout).text();
    await proc.exited;
    return dom;
  } finally {
    clearTimeout(timer);
  }
}

describe("the docs from the compiled binary", () => {
  test("the binary serves the Scalar bundle it embeds, byte for byte", async () => {
    const response = await fetch(`${server.url}/docs/scalar.js`, { headers: { "accept-encoding": "identity" } });
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(readFileSync(SCALAR_SOURCE))).toBe(true);
  });

  test.skipIf(CHROMIUM === null)(
    "headless Chromium with the network blocked renders the reference with every endpoint",
    async () => {
      const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
        paths: Record<string, Record<string, { summary: string }>>;
        webhooks: Record<string, { post: { summary: string } }>;
      };
      const dom = await renderedDom(`${server.url}/docs`);
      // Rendered by Scalar, not merely the page's markup: its sections hold the document's content.
      expect(dom).toContain("Partner API");
      for (const [path, item] of Object.entries(document.paths)) {
        expect({ path, rendered: dom.includes(path) }).toEqual({ path, rendered: true });
        for (const op of Object.values(item))
          expect({ summary: op.summary, rendered: dom.includes(op.summary) }).toEqual({
            summary: op.summary,
            rendered: true,
          });
      }
      // The webhook events a receiver gets are shown too.
      expect(Object.keys(document.webhooks).sort()).toEqual([
        "lead.anonymized",
        "lead.created",
        "lead.updated",
        "property.removed",
        "property.upserted",
        "webhook.test",
      ]);
      for (const { post } of Object.values(document.webhooks)) {
        expect({ summary: post.summary, rendered: dom.includes(post.summary) }).toEqual({
          summary: post.summary,
          rendered: true,
        });
      }
    },
    120_000,
  );
});
