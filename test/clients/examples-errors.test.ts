// What the partner docs' examples do when something goes wrong, and where their receivers listen,
// against the compiled sandbox: a curl example shows the API's error body and fails (never a
// silent `curl -f`), and a webhook receiver listens on loopback unless HOST says otherwise.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBinary, freePort, ROOT, type RunningBinary, startBinary } from "../helpers/binary.ts";
import { toolForTests } from "../helpers/tools.ts";
import { command, documentedExamples, EXTENSION, type Example } from "./examples.ts";

const CLIENT = join(ROOT, "clients/typescript");
const JQ = toolForTests(
  "jq",
  ["/usr/bin/jq", "jq"],
  "install it with `apt-get install -y jq` to run the curl examples",
);
const PYTHON = toolForTests("python3", ["/usr/bin/python3", "python3"], "install it with `apt-get install -y python3`");
const linux = process.platform === "linux";

let dir: string;
let server: RunningBinary;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "pa-examples-errors-"));
  server = await startBinary(ensureBinary(), ["sandbox", "--db", join(dir, "sandbox.sqlite")], dir);
  // The TypeScript receiver imports the client by its package name, as partners do.
  if (!existsSync(join(CLIENT, "dist/index.js"))) {
    const build = Bun.spawnSync([process.execPath, "run", "build"], { cwd: CLIENT, stdout: "pipe", stderr: "pipe" });
    if (build.exitCode !== 0) throw new Error(`client build failed:\n${build.stdout}${build.stderr}`);
  }
  mkdirSync(join(dir, "node_modules/@partner-api"), { recursive: true });
  symlinkSync(CLIENT, join(dir, "node_modules/@partner-api/client"));
  symlinkSync(join(ROOT, "node_modules/standardwebhooks"), join(dir, "node_modules/standardwebhooks"));
}, 300_000);

afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const examples = documentedExamples();
const write = (example: Example, index: number) => {
  const file = join(dir, `example-${index}.${EXTENSION[example.language]}`);
  writeFileSync(file, example.code);
  return file;
};

/** The addresses something listens on at `port` (IPv4 and IPv6), read from the kernel's tables. */
function listeningAddresses(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  const named: Record<string, string> = {
    "0100007F": "127.0.0.1",
    "00000000": "0.0.0.0",
    "00000000000000000000000000000000": "::",
    "00000000000000000000000001000000": "::1",
  };
  return ["/proc/net/tcp", "/proc/net/tcp6"].flatMap((table) =>
    readFileSync(table, "utf8")
      .split("\n")
      .slice(1)
      .map((line) => line.trim().split(/\s+/))
      .filter((fields) => fields[1]?.endsWith(`:${hexPort}`) && fields[3] === "0A")
      .map((fields) => {
        const address = fields[1]!.split(":")[0]!;
        return named[address] ?? address;
      }),
  );
}

async function startReceiver(example: Example, index: number, env: Record<string, string>) {
  const port = freePort();
  const proc = Bun.spawn(command(example, write(example, index), port), {
    cwd: dir,
    env: {
      ...process.env,
      PORT: String(port),
      WEBHOOK_SECRET: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwCDKc+O0v6Wo=",
      PARTNER_API_WEBHOOK_SECRET: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwCDKc+O0v6Wo=",
      ...env,
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const deadline = Date.now() + 60_000;
  while (listeningAddresses(port).length === 0) {
    if (proc.exitCode !== null)
      throw new Error(`receiver exited with ${proc.exitCode}: ${await new Response(proc.stderr).text()}`);
    if (Date.now() > deadline) throw new Error("receiver never listened");
    await Bun.sleep(50);
  }
  return { port, proc };
}

describe("a curl example that gets an error shows the API's answer and fails", () => {
  examples.forEach((example, index) => {
    if (example.language !== "bash") return;
    test.skipIf(JQ === null)(
      `${example.where}: a wrong secret`,
      () => {
        const run = Bun.spawnSync(command(example, write(example, index)), {
          cwd: dir,
          env: { ...process.env, PARTNER_API_URL: server.url, PARTNER_API_SECRET: "sk_wrong" },
          stdout: "pipe",
          stderr: "pipe",
        });
        const output = `${run.stdout}${run.stderr}`;
        expect({ failed: run.exitCode !== 0, shows: output.includes('"code":"INVALID_API_SECRET"'), output }).toEqual({
          failed: true,
          shows: true,
          output,
        });
      },
      60_000,
    );
  });
});

describe("a webhook receiver listens on loopback by default, elsewhere when HOST says so", () => {
  examples.forEach((example, index) => {
    // The PHP receiver's address is on its command line (`php -S`): the docs show 127.0.0.1 there.
    if (!example.receiver || example.language === "php") return;
    test.skipIf(!linux || (example.language === "python" && PYTHON === null))(
      `${example.where}: the ${example.language} receiver`,
      async () => {
        for (const [env, expected] of [
          [{}, ["127.0.0.1"]],
          [{ HOST: "0.0.0.0" }, ["0.0.0.0"]],
        ] as const) {
          const { port, proc } = await startReceiver(example, index, env);
          try {
            expect({ env, listening: listeningAddresses(port) }).toEqual({ env, listening: [...expected] });
          } finally {
            proc.kill();
            await proc.exited;
          }
        }
      },
      120_000,
    );
  });

  test("no receiver is shown bound to every interface", () => {
    const bound = examples.filter(
      (e) => e.receiver && /php -S 0\.0\.0\.0|\("0\.0\.0\.0"|hostname: "0\.0\.0\.0"/.test(e.code),
    );
    expect(bound.map((e) => e.where)).toEqual([]);
  });
});
