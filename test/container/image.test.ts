// The container image, built from the Dockerfile and run for real with podman, as an agency and a
// partner would: the sandbox behind a published port; production with a config mounted read-only
// and a seeded database on a named volume, under --read-only; a token that outlives its container;
// a clean stop; uid and gid 10001; a clear message for a root-owned bind mount; compose.yaml
// brought up by podman-compose. The image's build time and size are printed for the record.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashSecret } from "../../src/security/secrets.ts";
import { freePort, ROOT, waitHealthy } from "../helpers/binary.ts";
import { toolForTests } from "../helpers/tools.ts";
import { commandRunner, podmanEnvironment, type Ran } from "./podman.ts";

const podman = toolForTests(
  "podman",
  ["podman"],
  "install it (Debian: apt-get install podman); where no container registry is reachable, ../shared/tools/container/local-base-images makes the base images",
);
const podmanCompose =
  podman === null
    ? null
    : toolForTests("podman-compose", ["podman-compose"], "install it: apt-get install podman-compose");

const run_id = `pa-test-${process.pid}-${crypto.randomUUID().slice(0, 8)}`;
const IMAGE = `localhost/partner-api-test:${run_id}`;
const VOLUME = `${run_id}-data`;
const API_KEY = "pk_live_container_test";
const API_SECRET = "sk_live_container_test_secret";
/** Above the server's 10 s drain: what docs/operators/deploying.md and compose.yaml give podman and docker. */
const STOP_TIMEOUT_S = 15;

let work: string;
let run: (command: string[], env?: Record<string, string>) => Promise<Ran>;
const containers: string[] = [];

/** `podman …`, failing the test with podman's own words unless it exits 0. */
async function podmanOk(args: string[]): Promise<string> {
  const result = await run([podman!, ...args]);
  if (result.code !== 0) throw new Error(`podman ${args.join(" ")} exited ${result.code}:\n${result.stderr}`);
  return result.stdout;
}

/** Starts a detached container (removed in afterAll); resolves once its published /health answers 200. */
async function startContainer(name: string, args: string[], command: string[] = []): Promise<string> {
  const port = freePort();
  containers.push(name);
  // The image's health check stays in the container (`podman healthcheck run`), but no timer is
  // set up: this machine has no systemd to run one.
  await podmanOk([
    "run",
    "-d",
    "--name",
    name,
    "--health-interval",
    "disable",
    "-p",
    `127.0.0.1:${port}:8080`,
    ...args,
    IMAGE,
    ...command,
  ]);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitHealthy(url, 30_000);
  } catch (error) {
    const logs = await run([podman!, "logs", name]);
    throw new Error(`${(error as Error).message}\n${logs.stdout}${logs.stderr}`);
  }
  return url;
}

async function token(url: string, key: string, secret: string): Promise<string> {
  const response = await fetch(`${url}/v1/auth/token`, {
    method: "POST",
    headers: { "x-api-key": key, "x-api-secret": secret },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: { token: string } }).data.token;
}

/** A one-shot container: its exit code and output (podman's own noise included in stderr). */
function oneShot(args: string[], command: string[]): Promise<Ran> {
  return run([podman!, "run", "--rm", "--no-healthcheck", ...args, IMAGE, ...command]);
}

beforeAll(async () => {
  if (podman === null) return;
  run = commandRunner(podmanEnvironment());
  work = mkdtempSync(join(tmpdir(), "pa-container-"));
  chmodSync(work, 0o755);
  // --layers=false: no intermediate images left behind in the machine's shared image store.
  const started = performance.now();
  await podmanOk(["build", "--layers=false", "--format", "docker", "--network", "host", "-t", IMAGE, ROOT]);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const bytes = Number((await podmanOk(["image", "inspect", "--format", "{{.Size}}", IMAGE])).trim());
  process.stderr.write(`\ncontainer image: built in ${seconds} s, ${(bytes / 1e6).toFixed(0)} MB\n`);
}, 600_000);

afterAll(async () => {
  if (podman === null) return;
  for (const name of containers) await run([podman, "rm", "-f", "-v", "-t", "0", name]); // -v: and its anonymous volume
  await run([podman, "volume", "rm", "-f", VOLUME]);
  await run([podman, "rmi", "-f", IMAGE]);
  rmSync(work, { recursive: true, force: true });
}, 120_000);

describe.skipIf(podman === null)("the image", () => {
  test("runs as uid and gid 10001, the secret kept on the data volume", async () => {
    const config = JSON.parse(await podmanOk(["image", "inspect", "--format", "{{json .Config}}", IMAGE])) as {
      User: string;
      Env: string[];
      Volumes: Record<string, unknown>;
    };
    expect(config.User).toBe("10001:10001");
    expect(config.Env).toContain("PARTNER_API_JWT_SECRET_FILE=/app/data/jwt-secret");
    expect(Object.keys(config.Volumes)).toEqual(["/app/data"]);
  });

  test("the sandbox listens on every interface in the container: reachable through -p 127.0.0.1:…", async () => {
    const url = await startContainer(`${run_id}-sandbox`, ["--read-only"], ["sandbox"]);
    const bearer = { authorization: `Bearer ${await token(url, "pk_sandbox_demo", "sk_sandbox_demo")}` };
    const page = await fetch(`${url}/v1/properties?fields=id,title&limit=2`, { headers: bearer });
    expect(page.status).toBe(200);
    expect(((await page.json()) as { data: unknown[] }).data).toHaveLength(2);
    expect((await run([podman!, "logs", `${run_id}-sandbox`])).stderr).toContain("Listening on 0.0.0.0");
  });
});

describe.skipIf(podman === null)(
  "production: a config mounted read-only, a seeded database on a named volume, --read-only",
  () => {
    let configFile: string;
    let firstUrl: string;
    let firstToken: string;
    let leadId: string;
    const production = () => [
      "--read-only",
      "--stop-timeout",
      String(STOP_TIMEOUT_S),
      "-v",
      `${VOLUME}:/app/data`,
      "-v",
      `${configFile}:/app/config.json:ro`,
    ];

    beforeAll(async () => {
      if (podman === null) return;
      configFile = join(work, "config.json");
      // No jwtSecret: the secret is made at first start, on the volume.
      writeFileSync(
        configFile,
        JSON.stringify({
          databases: { agency: "data/agency.sqlite" },
          clients: [{ id: "portal", apiKey: API_KEY, secretHash: hashSecret(API_SECRET), database: "agency" }],
        }),
      );
      chmodSync(configFile, 0o644);
      await podmanOk(["volume", "create", VOLUME]);
      const seeded = await oneShot(
        ["-v", `${VOLUME}:/app/data`],
        ["seed", "--out", "/app/data/agency.sqlite", "--properties", "100", "--leads", "20"],
      );
      expect(seeded.code).toBe(0);
    }, 120_000);

    test("serves: health, a token, a lead created and read back; the health check command answers", async () => {
      const name = `${run_id}-prod-1`;
      firstUrl = await startContainer(name, production());
      firstToken = await token(firstUrl, API_KEY, API_SECRET);
      const bearer = { authorization: `Bearer ${firstToken}` };
      const created = await fetch(`${firstUrl}/v1/leads`, {
        method: "POST",
        headers: { ...bearer, "content-type": "application/json" },
        body: JSON.stringify({
          name: "Maria Oliveira",
          email: "maria@example.com",
          phone: "+55 11 98765-4321",
          message: "Quero visitar",
        }),
      });
      expect(created.status).toBe(201);
      leadId = ((await created.json()) as { data: { id: string } }).data.id;
      expect((await fetch(`${firstUrl}/v1/leads/${leadId}?fields=id,name`, { headers: bearer })).status).toBe(200);
      expect((await run([podman!, "healthcheck", "run", name])).code).toBe(0);
    });

    test("the server itself is uid and gid 10001 (PID 1, no shell left in between), its files on the volume too", async () => {
      const name = `${run_id}-prod-1`;
      const status = await podmanOk(["exec", name, "cat", "/proc/1/status"]);
      expect(status).toMatch(/^Uid:\s+10001\s+10001\s+10001\s+10001$/m);
      expect(status).toMatch(/^Gid:\s+10001\s+10001\s+10001\s+10001$/m);
      expect((await podmanOk(["exec", name, "cat", "/proc/1/cmdline"])).split("\0")).toEqual([
        "partner-api",
        "serve",
        "--config",
        "/app/config.json",
        "",
      ]);
      const files = await podmanOk([
        "exec",
        name,
        "stat",
        "-c",
        "%u:%g %a %n",
        "/app/data/jwt-secret",
        "/app/data/agency.sqlite",
      ]);
      expect(files.trim().split("\n")).toEqual([
        "10001:10001 600 /app/data/jwt-secret",
        "10001:10001 644 /app/data/agency.sqlite",
      ]);
      const write = await run([podman!, "exec", name, "touch", "/app/x"]);
      expect(write.stderr).toContain("Read-only file system");
    });

    test("podman stop: exit 0 within the grace period (SIGTERM, never a kill), the lead on disk", async () => {
      const name = `${run_id}-prod-1`;
      const stopped = await run([podman!, "stop", "-t", String(STOP_TIMEOUT_S), name]);
      expect(stopped.code).toBe(0);
      expect(stopped.stderr).not.toContain("SIGKILL");
      expect((await podmanOk(["inspect", "--format", "{{.State.ExitCode}}", name])).trim()).toBe("0");
      const exported = await oneShot(
        ["-v", `${VOLUME}:/app/data`],
        ["export", "--db", "/app/data/agency.sqlite", "--entity", "leads"],
      );
      expect(exported.code).toBe(0);
      const lead = exported.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { id: string; name: string })
        .find((row) => row.id === leadId);
      expect(lead?.name).toBe("Maria Oliveira");
    });

    test("a new container on the same volume accepts the token the old one issued", async () => {
      await podmanOk(["rm", `${run_id}-prod-1`]);
      const url = await startContainer(`${run_id}-prod-2`, production());
      const response = await fetch(`${url}/v1/leads/${leadId}?fields=id,name`, {
        headers: { authorization: `Bearer ${firstToken}` },
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as { data: { name: string } }).data.name).toBe("Maria Oliveira");
      expect((await run([podman!, "stop", "-t", String(STOP_TIMEOUT_S), `${run_id}-prod-2`])).code).toBe(0);
    });
  },
);

describe.skipIf(podman === null)("a root-owned bind mount at /app/data: the folder, the reason and the fix", () => {
  let rootOwned: string;
  beforeAll(() => {
    if (podman === null) return;
    rootOwned = join(work, "root-owned");
    mkdirSync(rootOwned, { mode: 0o755 }); // root's under rootful podman; the user's (root inside) under rootless
  });

  const expectClearMessage = (result: Ran, target: string) => {
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      `${target}: the folder /app/data is not writable by this process (uid 10001, gid 10001); it belongs to uid 0, gid 0`,
    );
    expect(result.stderr).toContain("Fix: on the host, chown -R 10001:10001 the folder mounted at /app/data");
    expect(result.stderr).not.toContain("unable to open database file");
  };

  test("sandbox", async () => {
    expectClearMessage(
      await oneShot(["-v", `${rootOwned}:/app/data`], ["sandbox"]),
      "cannot write the sandbox database /app/data/sandbox.sqlite",
    );
  });

  test("seed", async () => {
    expectClearMessage(
      await oneShot(["-v", `${rootOwned}:/app/data`], ["seed", "--out", "/app/data/agency.sqlite"]),
      "cannot write the database /app/data/agency.sqlite",
    );
  });

  test("serve, whose generated token secret goes there, says how to set jwtSecret instead", async () => {
    const config = join(work, "config-no-secret.json");
    writeFileSync(config, JSON.stringify({ databases: { agency: "data/agency.sqlite" }, clients: [] }));
    chmodSync(config, 0o644);
    const result = await oneShot(
      ["--read-only", "-v", `${rootOwned}:/app/data`, "-v", `${config}:/app/config.json:ro`],
      [],
    );
    expectClearMessage(result, "cannot write the generated token secret /app/data/jwt-secret");
    expect(result.stderr).toContain('Either set "jwtSecret" in the config');
  });
});

describe.skipIf(podmanCompose === null)("compose.yaml with podman-compose", () => {
  test("a first load through `run --no-deps`, then `up -d`: /health answers, the health check passes, read-only root, restart policy; `down` removes it", async () => {
    const folder = join(work, "compose");
    mkdirSync(folder);
    copyFileSync(join(ROOT, "compose.yaml"), join(folder, "compose.yaml"));
    writeFileSync(
      join(folder, "config.json"),
      JSON.stringify({
        databases: { agency: "data/agency.sqlite" },
        clients: [{ id: "portal", apiKey: API_KEY, secretHash: hashSecret(API_SECRET), database: "agency" }],
      }),
    );
    chmodSync(join(folder, "config.json"), 0o644);
    const port = freePort();
    const project = `${run_id}-compose`;
    const env = { PARTNER_API_IMAGE: IMAGE, PARTNER_API_PUBLISH: `127.0.0.1:${port}` };
    const compose = (args: string[]) =>
      run([podmanCompose!, "-f", join(folder, "compose.yaml"), "-p", project, ...args], env);
    try {
      const seeded = await compose([
        "run",
        "--rm",
        "--no-deps",
        "partner-api",
        "seed",
        "--out",
        "/app/data/agency.sqlite",
        "--properties",
        "50",
        "--leads",
        "10",
      ]);
      expect(seeded.code).toBe(0);
      const up = await compose(["up", "-d"]);
      expect(up.code).toBe(0);
      const url = `http://127.0.0.1:${port}`;
      await waitHealthy(url, 30_000);
      expect((await token(url, API_KEY, API_SECRET)).length).toBeGreaterThan(20);
      const container = `${project}_partner-api_1`;
      expect((await run([podman!, "healthcheck", "run", container])).code).toBe(0);
      const settings = JSON.parse(await podmanOk(["inspect", "--format", "{{json .HostConfig}}", container])) as {
        ReadonlyRootfs: boolean;
        RestartPolicy: { Name: string };
      };
      expect(settings.ReadonlyRootfs).toBe(true);
      expect(settings.RestartPolicy.Name).toBe("unless-stopped");
    } finally {
      const down = await compose(["down", "-t", String(STOP_TIMEOUT_S), "-v"]);
      expect(down.code).toBe(0);
    }
  }, 180_000);
});
