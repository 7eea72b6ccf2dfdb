// Stoplight Prism's validating proxy sees no violation of the published document while the typed
// client's tests, and then every example of the partner docs, run through it against the
// compiled sandbox: what the docs teach and what the client sends are what the document says,
// and so is every answer they get.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBinary, freePort, ROOT, type RunningBinary, startBinary } from "../helpers/binary.ts";
import { type RunningPrism, startPrism } from "../helpers/prism.ts";
import { toolForTests } from "../helpers/tools.ts";
import { command, documentedExamples, EXTENSION, type Example } from "./examples.ts";

const CLIENT = join(ROOT, "clients/typescript");
const PHP = toolForTests(
  "php",
  ["/usr/bin/php", "php"],
  "install it with `apt-get install -y php-cli php-curl` to run the PHP examples",
);
const JQ = toolForTests(
  "jq",
  ["/usr/bin/jq", "jq"],
  "install it with `apt-get install -y jq` to run the curl examples",
);
const SANDBOX = { key: "pk_sandbox_demo", secret: "sk_sandbox_demo" };

let dir: string;
let server: RunningBinary;
let prism: RunningPrism;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "pa-examples-"));
  server = await startBinary(ensureBinary(), ["sandbox", "--db", join(dir, "sandbox.sqlite")], dir);
  prism = await startPrism(server.url);
  // The TypeScript examples import the client as partners do, by its package name: its build.
  const build = Bun.spawnSync([process.execPath, "run", "build"], { cwd: CLIENT, stdout: "pipe", stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(`client build failed:\n${build.stdout}${build.stderr}`);
  mkdirSync(join(dir, "node_modules/@partner-api"), { recursive: true });
  symlinkSync(CLIENT, join(dir, "node_modules/@partner-api/client"));
  // An example may verify webhooks with the standardwebhooks package directly, as the docs suggest.
  symlinkSync(join(ROOT, "node_modules/standardwebhooks"), join(dir, "node_modules/standardwebhooks"));
}, 300_000);

afterAll(async () => {
  await prism?.stop();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function skipped(example: Example): boolean {
  return (example.language === "php" && PHP === null) || (example.language === "bash" && JQ === null);
}

const env = (extra: Record<string, string> = {}) => ({
  ...process.env,
  PARTNER_API_URL: prism.url,
  // A subscription made by an example points nowhere that answers: its deliveries fail quietly.
  WEBHOOK_URL: "http://127.0.0.1:9/webhooks",
  ...extra,
});

function write(example: Example, index: number): string {
  const file = join(dir, `example-${index}.${EXTENSION[example.language]}`);
  writeFileSync(file, example.code);
  return file;
}

async function call(path: string, init: RequestInit = {}): Promise<any> {
  const token = await fetch(`${prism.url}/v1/auth/token`, {
    method: "POST",
    headers: {
      authorization: `Basic ${btoa(`${SANDBOX.key}:${SANDBOX.secret}`)}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: "grant_type=client_credentials",
  });
  const { access_token } = (await token.json()) as { access_token: string };
  const headers = new Headers(init.headers);
  headers.set("authorization", `Bearer ${access_token}`);
  const response = await fetch(`${prism.url}${path}`, { ...init, headers });
  return response.status === 204 ? null : response.json();
}

/** Waits until something accepts connections on the port (the receiver has started). */
async function listening(port: number, proc: ReturnType<typeof Bun.spawn>): Promise<void> {
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`receiver exited with ${proc.exitCode}`);
    try {
      await fetch(`http://127.0.0.1:${port}/`, { method: "GET" });
      return;
    } catch {
      await Bun.sleep(50);
    }
  }
}

describe("no violation of the document in Prism's validating proxy", () => {
  test("the typed client's tests pass through Prism (each of its sandboxes behind a Prism of its own)", () => {
    const run = Bun.spawnSync([process.execPath, "test"], {
      cwd: CLIENT,
      env: { ...process.env, PARTNER_API_PRISM: "1" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const output = `${run.stdout}${run.stderr}`;
    expect({ exitCode: run.exitCode, output: run.exitCode === 0 ? "" : output }).toEqual({ exitCode: 0, output: "" });
    expect(output).toMatch(/\b0 fail\b/);
  }, 600_000);

  const examples = documentedExamples();

  test("the partner docs hold examples in curl, TypeScript, PHP and Python, receivers included", () => {
    expect(new Set(examples.map((e) => e.language))).toEqual(new Set(["bash", "ts", "php", "python"]));
    expect(new Set(examples.filter((e) => e.receiver).map((e) => e.language))).toEqual(
      new Set(["php", "python", "ts"]),
    );
  });

  examples.forEach((example, index) => {
    if (example.receiver) {
      test.skipIf(skipped(example))(
        `${example.where}: the ${example.language} receiver accepts a real delivery and refuses a forged one`,
        async () => {
          const port = freePort();
          const created = await call("/v1/webhooks", {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ url: `http://127.0.0.1:${port}/webhooks`, events: ["lead.created"] }),
          });
          const { id, secret } = created.data as { id: string; secret: string };
          const proc = Bun.spawn(command(example, write(example, index), port), {
            cwd: dir,
            env: env({ PORT: String(port), WEBHOOK_SECRET: secret, PARTNER_API_WEBHOOK_SECRET: secret }),
            stdout: "pipe",
            stderr: "pipe",
          });
          try {
            await listening(port, proc);
            const tested = await call(`/v1/webhooks/${id}/test`, { method: "POST" });
            expect({ state: tested.data.state, lastStatus: tested.data.lastStatus }).toEqual({
              state: "succeeded",
              lastStatus: 204,
            });
            const forged = await fetch(`http://127.0.0.1:${port}/webhooks`, {
              method: "POST",
              headers: {
                "content-type": "application/json",
                "webhook-id": "msg_forged",
                "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
                "webhook-signature": `v1,${btoa("not the signature")}`,
              },
              body: JSON.stringify({
                type: "lead.created",
                timestamp: new Date().toISOString(),
                data: { sequence: 1, id: crypto.randomUUID(), record: null },
              }),
            });
            expect({ forged: forged.status >= 400 && forged.status < 500 }).toEqual({ forged: true });
          } finally {
            proc.kill();
            await proc.exited;
            await call(`/v1/webhooks/${id}`, { method: "DELETE" });
          }
        },
        120_000,
      );
      return;
    }
    test.skipIf(skipped(example))(
      `${example.where}: the ${example.language} example runs`,
      () => {
        const run = Bun.spawnSync(command(example, write(example, index)), {
          cwd: dir,
          env: env(),
          stdout: "pipe",
          stderr: "pipe",
        });
        const output = `${run.stdout}${run.stderr}`;
        expect({ exitCode: run.exitCode, output: run.exitCode === 0 ? "" : output }).toEqual({
          exitCode: 0,
          output: "",
        });
      },
      120_000,
    );
  });

  test("Prism reported no violation for any of them", () => {
    expect(prism.violations()).toEqual([]);
  });
});
