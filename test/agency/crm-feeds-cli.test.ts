// `partner-api feeds status` and `feeds run` as an agency runs them (docs/reference/behaviour-extensions.md §14), through the
// real entry point in a child process, against a real local feed server: exit codes, the
// reason of a guarded or failed run on stderr, the state in the database, headers never
// printed; and /metrics showing the same state.
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { claimRun } from "../../src/agency/crm-feeds/store.ts";
import { closeDatabase, openExistingDatabase } from "../../src/db/open.ts";
import { hashSecret } from "../../src/security/secrets.ts";
import { emptyDatabase, listing, startFeedServer } from "./crm-feed-server.ts";
import { apiOverConfig } from "./crm-feeds-helpers.ts";
import { publishedProperties, tempDir } from "./helpers.ts";

const dir = tempDir();
const crm = startFeedServer();
afterAll(() => {
  crm.stop();
  dir.cleanup();
});
const MAIN = join(import.meta.dir, "../../src/main.ts");
const SECRET = "Bearer header-value-never-printed";

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn(["bun", MAIN, ...args], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, NO_COLOR: "1" },
  });
  const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
  return { code: await child.exited, stdout, stderr };
}

let counter = 0;
function setup(feedExtra: Record<string, unknown> = {}): { config: string; db: string } {
  const n = ++counter;
  const db = emptyDatabase(dir.path(`cli-${n}.sqlite`));
  const config = dir.path(`config-${n}.json`);
  writeFileSync(
    config,
    JSON.stringify({
      environment: "sandbox",
      databases: { agency: db },
      clients: [{ id: "crm", apiKey: "pk_live_crm_key1", secretHash: hashSecret("sk_live_crm"), database: "agency" }],
      feeds: [
        {
          id: "crm",
          database: "agency",
          url: crm.url(),
          every: "15m",
          headers: { Authorization: SECRET },
          ...feedExtra,
        },
      ],
    }),
  );
  return { config, db };
}

describe("partner-api feeds run", () => {
  test("a run now: exit 0 and the summary; again: 304, nothing to do; --json is the report", async () => {
    crm.set(["A", "B", "C"].map((code) => listing(code)));
    const { config, db } = setup();
    const first = await cli("feeds", "run", "--config", config);
    expect(first).toMatchObject({ code: 0, stderr: "" });
    expect(first.stdout).toMatch(
      /^crm: success in \d+\.\d s\n {2}3 created, 0 updated, 0 unchanged, 0 unpublished, 0 rejected, 0 warnings\n$/,
    );
    expect(publishedProperties(db)).toHaveLength(3);
    const second = await cli("feeds", "run", "--config", config, "--id", "crm", "--json");
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({
      feed: "crm",
      outcome: "not_modified",
      error: null,
      recorded: true,
    });
    expect(crm.requests.at(-1)!.headers.authorization).toBe(SECRET);
  });

  test("a guarded run: exit 1 with the reason on stderr, nothing changed", async () => {
    crm.set(["A", "B", "C"].map((code) => listing(code)));
    const { config, db } = setup();
    expect((await cli("feeds", "run", "--config", config)).code).toBe(0);
    crm.set([listing("A")]);
    const guarded = await cli("feeds", "run", "--config", config);
    expect(guarded.code).toBe(1);
    expect(guarded.stderr).toBe(
      "partner-api feeds run: crm: guarded: the feed would unpublish 2 of the 3 published listings (66.7 %), more than maxUnpublishRatio allows (50 %); nothing was changed\n",
    );
    expect(publishedProperties(db)).toHaveLength(3);
  });

  test("a failed download: exit 1 with the reason; while another process holds the lease: exit 1, nothing done", async () => {
    crm.set([listing("A")]);
    const { config, db } = setup();
    crm.behaviour = "error";
    try {
      const failed = await cli("feeds", "run", "--config", config);
      expect(failed.code).toBe(1);
      expect(failed.stderr).toBe(
        `partner-api feeds run: crm: failed: cannot fetch ${crm.url()}: HTTP 500 Internal Server Error\n`,
      );
    } finally {
      crm.behaviour = "ok";
    }
    const conn = openExistingDatabase(db);
    try {
      claimRun(conn, "crm", "full", "host:123:crm:abcd", Date.now(), 60_000, null);
    } finally {
      closeDatabase(conn);
    }
    const busy = await cli("feeds", "run", "--config", config);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toStartWith(
      "partner-api feeds run: crm: running in another process (host:123:crm:abcd, lease until ",
    );
    expect(publishedProperties(db)).toEqual([]);
  });

  test("bad usage exits 2: no --config, an unknown feed id, an invalid feed in the config", async () => {
    const { config } = setup();
    expect((await cli("feeds", "run")).code).toBe(2);
    const unknown = await cli("feeds", "run", "--config", config, "--id", "nope");
    expect(unknown).toMatchObject({
      code: 2,
      stderr: 'partner-api feeds: no feed "nope" in the config (it has: crm)\n',
    });
    const invalid = setup({ every: "10s" });
    const refused = await cli("feeds", "status", "--config", invalid.config);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("/feeds/0/every: 10s is shorter than the minimum, 30s in the sandbox");
    expect((await cli("feeds", "nonsense")).code).toBe(2);
  });
});

describe("partner-api feeds status", () => {
  test("each feed's last run, last success and summary, and next run; never the headers", async () => {
    crm.set(["A", "B"].map((code) => listing(code)));
    const { config } = setup();
    const never = await cli("feeds", "status", "--config", config);
    expect(never.code).toBe(0);
    expect(never.stdout).toContain(
      `crm: full feed of database "agency", every 15m, from ${crm.url()}\n  last run:     never\n  last success: never\n  next run:     `,
    );
    await cli("feeds", "run", "--config", config);
    crm.behaviour = "error";
    await cli("feeds", "run", "--config", config);
    crm.behaviour = "ok";
    const text = await cli("feeds", "status", "--config", config);
    expect(text.stdout).toMatch(
      / {2}last run: +\S+Z, took \d+\.\d s: failed: cannot fetch .*: HTTP 500 Internal Server Error\n/,
    );
    expect(text.stdout).toMatch(
      / {2}last success: \S+Z\n +2 created, 0 updated, 0 unchanged, 0 unpublished, 0 rejected, 0 warnings\n {2}next run: +\S+Z\n/,
    );
    const json = JSON.parse((await cli("feeds", "status", "--config", config, "--json")).stdout);
    expect(json.feeds[0]).toMatchObject({
      id: "crm",
      database: "agency",
      url: crm.url(),
      every: "15m",
      mode: "full",
      running: null,
      lastRun: { outcome: "failed", error: `cannot fetch ${crm.url()}: HTTP 500 Internal Server Error` },
      lastSummary: { created: 2 },
    });
    expect(Date.parse(json.feeds[0].nextRunAt) - Date.parse(json.feeds[0].lastRun.startedAt)).toBe(15 * 60_000);
    for (const output of [never.stdout, text.stdout, JSON.stringify(json)])
      expect(output).not.toContain("never-printed");
  });

  test("a run under way: how long it has been running, and the last finished run without a made-up duration", async () => {
    crm.set(["A"].map((code) => listing(code)));
    const { config, db } = setup();
    await cli("feeds", "run", "--config", config);
    // That run ended two minutes ago; another process claimed the next one 49.5 s ago and is still at it.
    const startedAt = Date.now() - 49_500;
    const conn = openExistingDatabase(db);
    try {
      conn.run(
        "UPDATE feed_runs SET last_started_at = last_started_at - 120000, last_finished_at = last_finished_at - 120000, last_success_at = last_success_at - 120000",
      );
      expect(claimRun(conn, "crm", `full ${crm.url()}`, "host:123:crm:abcd1234", startedAt, 10 * 60_000, null)).toBe(
        true,
      );
    } finally {
      closeDatabase(conn);
    }
    const text = (await cli("feeds", "status", "--config", config)).stdout;
    expect(text).not.toContain("took -");
    expect(text).toMatch(/\n {2}last run: +finished \S+Z: success\n/);
    const running =
      /\n {2}running now: +for (\d+\.\d) s \(since (\S+Z)\), in host:123:crm:abcd1234 \(lease until \S+Z\)\n/.exec(
        text,
      );
    expect(running).not.toBeNull();
    expect(Number(running![1])).toBeGreaterThanOrEqual(49.5);
    expect(running![2]).toBe(new Date(startedAt).toISOString());
    const json = JSON.parse((await cli("feeds", "status", "--config", config, "--json")).stdout);
    expect(json.feeds[0].running).toMatchObject({
      owner: "host:123:crm:abcd1234",
      startedAt: new Date(startedAt).toISOString(),
    });
    expect(json.feeds[0].running.forMs).toBeGreaterThanOrEqual(49_500);
    expect(json.feeds[0].lastRun).toMatchObject({ startedAt: null, outcome: "success" });
  });

  test("/metrics carries each feed's last success, last outcome and the counts of its last run", async () => {
    crm.set(["A", "B", "C"].map((code) => listing(code)));
    const { config } = setup();
    await cli("feeds", "run", "--config", config);
    const api = apiOverConfig(config);
    try {
      const scrape = await (await api.handle(new Request("http://localhost/metrics"))).text();
      const labels = 'feed="crm",database="agency"';
      expect(scrape).toMatch(
        new RegExp(`partner_api_feed_last_success_timestamp_seconds\\{${labels}\\} \\d{10}(\\.\\d+)?\\n`),
      );
      expect(scrape).toContain(`partner_api_feed_last_outcome{${labels},outcome="success"} 1\n`);
      expect(scrape).toContain(`partner_api_feed_last_outcome{${labels},outcome="failed"} 0\n`);
      expect(scrape).toContain(`partner_api_feed_last_run_listings{${labels},count="created"} 3\n`);
      expect(scrape).toContain(`partner_api_feed_last_run_listings{${labels},count="unpublished"} 0\n`);
      expect(scrape).toContain(`partner_api_feed_running{${labels}} 0\n`);
      expect(scrape).toContain(`partner_api_feed_interval_seconds{${labels}} 900\n`);
      expect(scrape).toContain(`partner_api_feed_stale{${labels}} 0\n`);
      expect(scrape).not.toContain("never-printed");
    } finally {
      api.close();
    }
  });

  test("a feed whose last success is older than three intervals is stale in /metrics", async () => {
    crm.set(["A"].map((code) => listing(code)));
    const { config } = setup();
    const staleAt = async (ms: number) => {
      const api = apiOverConfig(config, { now: () => ms });
      try {
        const scrape = await (await api.handle(new Request("http://localhost/metrics"))).text();
        return /partner_api_feed_stale\{feed="crm",database="agency"\} (\d)\n/.exec(scrape)?.[1];
      } finally {
        api.close();
      }
    };
    expect(await staleAt(Date.now())).toBe("0"); // never run: nothing to say yet
    crm.behaviour = "error";
    await cli("feeds", "run", "--config", config);
    crm.behaviour = "ok";
    expect(await staleAt(Date.now())).toBe("1"); // runs end, none ever succeeded
    await cli("feeds", "run", "--config", config);
    const succeeded = Date.now();
    expect(await staleAt(succeeded + 3 * 15 * 60_000 - 60_000)).toBe("0");
    expect(await staleAt(succeeded + 3 * 15 * 60_000 + 60_000)).toBe("1");
  });
});
