// A real Prometheus scrapes the compiled binary in production mode with the shipped scrape
// config (deploy/prometheus/prometheus.yml, the metrics token as its credentials file) and the
// shipped alert rules. After real traffic: every family of the scrape is ingested with its
// labels, `promtool check metrics` finds nothing to fix, and every expression of the Grafana
// dashboard and of the alert rules evaluates without error on series that exist.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashSecret } from "../../src/security/secrets.ts";
import { ensureBinary, freePort, ROOT, type RunningBinary, startBinary } from "../helpers/binary.ts";
import { hangUpMidBody } from "../helpers/hang-up.ts";
import { REDIS_SERVER, startRedis, type TestRedis } from "../helpers/redis.ts";
import { toolForTests } from "../helpers/tools.ts";
import { familyTypes, parseExposition, type Sample } from "./parse.ts";

const INSTALL = "apt-get install prometheus (Debian's package carries promtool too)";
const PROMETHEUS = toolForTests("prometheus", ["prometheus"], INSTALL);
const PROMTOOL = toolForTests("promtool", ["promtool"], INSTALL);

const SCRAPE_CONFIG = join(ROOT, "deploy/prometheus/prometheus.yml");
const ALERT_RULES = join(ROOT, "deploy/prometheus/alerts.yml");
const DASHBOARD = join(ROOT, "deploy/grafana/partner-api.json");

const METRICS_TOKEN = "metrics-token-0123456789abcdef";
const SETUP_MS = 90_000;

/** The label names every partner_api family carries (job and instance are Prometheus's). */
const FAMILY_LABELS: Record<string, string[]> = {
  partner_api_http_requests_total: ["method", "route", "status"],
  partner_api_http_request_duration_seconds_bucket: ["le", "method", "route"],
  partner_api_rate_limited_total: ["client"],
  partner_api_auth_failures_total: ["code"],
  partner_api_leads_created_total: [],
  partner_api_database_size_bytes: ["database", "file"],
  partner_api_build_info: ["environment", "version"],
  partner_api_gc_collections_total: [],
  partner_api_group_commit_batch_size_bucket: ["le"],
  partner_api_group_commit_wait_seconds_bucket: ["le"],
  partner_api_group_commit_duration_seconds_bucket: ["le"],
  partner_api_page_cache_lookups_total: ["result"],
  process_resident_memory_bytes: [],
  process_cpu_seconds_total: [],
  process_open_fds: [],
  nodejs_eventloop_lag_p99_seconds: [],
  partner_api_webhook_attempts_total: ["event", "outcome"],
  partner_api_webhook_deliveries_total: ["event", "state"],
  partner_api_webhook_attempt_duration_seconds_bucket: ["event", "le"],
  partner_api_webhook_oldest_pending_seconds: ["database"],
  partner_api_feed_last_success_timestamp_seconds: ["database", "feed"],
  partner_api_feed_last_outcome: ["database", "feed", "outcome"],
  partner_api_feed_last_run_listings: ["count", "database", "feed"],
  partner_api_portal_feed_answers_total: ["client", "outcome"],
  partner_api_portal_feed_skipped_listings_total: ["client"],
  partner_api_portal_feed_bytes_total: ["client"],
  partner_api_inbound_posts_total: ["client", "outcome"],
};

/** Grafana's variables, as the dashboard's expressions use them. */
function grafanaToPromQL(expr: string): string {
  return expr.replaceAll("$__rate_interval", "15s").replaceAll('instance=~"$instance"', 'instance=~".*"');
}

/** Each alert's expression as Prometheus's rule files hold it. */
function alertExpressions(): { alert: string; expr: string }[] {
  const rules = Bun.YAML.parse(readFileSync(ALERT_RULES, "utf8")) as {
    groups: { rules: { alert: string; expr: string }[] }[];
  };
  return rules.groups.flatMap((group) => group.rules.map(({ alert, expr }) => ({ alert, expr: expr.trim() })));
}

function dashboardExpressions(): { panel: string; expr: string }[] {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, "utf8")) as {
    panels: { title: string; targets?: { expr: string }[] }[];
  };
  return dashboard.panels.flatMap((panel) =>
    (panel.targets ?? []).map(({ expr }) => ({ panel: panel.title, expr: grafanaToPromQL(expr) })),
  );
}

/** The metric names an expression reads. */
function metricNames(expr: string): string[] {
  const names = new Set(expr.match(/\b(?:partner_api|process|nodejs)_[a-z0-9_]+\b/g) ?? []);
  if (/\bup\{/.test(expr)) names.add("up");
  return [...names];
}

/** The two sides of a top-level comparison (`a > b`), or the expression alone. */
function comparisonSides(expr: string): string[] {
  let depth = 0;
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i]!;
    if (c === "(" || c === "{" || c === "[") depth++;
    else if (c === ")" || c === "}" || c === "]") depth--;
    else if (depth === 0) {
      const op = /^(==|!=|>=|<=|>|<)/.exec(expr.slice(i))?.[0];
      if (op !== undefined) return [expr.slice(0, i).trim(), expr.slice(i + op.length).trim()];
    }
  }
  return [expr];
}

test("promtool check rules accepts the alert rules", () => {
  if (PROMTOOL === null) return;
  const result = Bun.spawnSync([PROMTOOL, "check", "rules", ALERT_RULES], { stdout: "pipe", stderr: "pipe" });
  expect({ exitCode: result.exitCode, stderr: result.stderr.toString() }).toEqual({ exitCode: 0, stderr: "" });
  expect(result.stdout.toString()).toContain(`SUCCESS: ${alertExpressions().length} rules found`);
});

// With a Redis in the config, so the shared-limit families are there to be ingested and graphed.
const describeWithPrometheus =
  PROMETHEUS === null || PROMTOOL === null || REDIS_SERVER === null ? describe.skip : describe;

describeWithPrometheus("a real Prometheus scraping the binary", () => {
  let dir: string;
  let server: RunningBinary;
  let prometheus: ReturnType<typeof Bun.spawn>;
  /** The agency CRM's feed the server pulls: a fixed VRSync document. */
  let crm: ReturnType<typeof Bun.serve>;
  let api: string;
  /** The binary's own scrape, taken after the traffic. */
  let scrape: string;
  let redis: TestRedis;

  async function query(expr: string): Promise<{ status: string; error?: string; data?: { result: unknown[] } }> {
    const response = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(expr)}`);
    return (await response.json()) as { status: string; error?: string; data?: { result: unknown[] } };
  }

  async function series(match: string): Promise<Record<string, string>[]> {
    const response = await fetch(`${api}/api/v1/series?match[]=${encodeURIComponent(match)}`);
    return ((await response.json()) as { data: Record<string, string>[] }).data;
  }

  /** Sends the traffic the dashboard and alerts read: every route, errors, 429s, a hang-up. */
  async function driveTraffic(url: string): Promise<void> {
    const tokenOf = async (id: string) => {
      const response = await fetch(`${url}/v1/auth/token`, {
        method: "POST",
        headers: { "x-api-key": `pk_live_${id}_key`, "x-api-secret": `sk_live_${id}_secret` },
      });
      return ((await response.json()) as { data: { token: string } }).data.token;
    };
    const portal = await tokenOf("portal");
    const get = (path: string, token = portal) =>
      fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } });
    for (let i = 0; i < 3; i++) await get("/v1/properties?fields=id,title&limit=5"); // the page cache: a miss, then hits
    const listed = (await (await get("/v1/properties?fields=id&limit=1")).json()) as { data: { id: string }[] };
    await get(`/v1/properties/${listed.data[0]!.id}?fields=id`);
    await get("/v1/leads?fields=id,name&limit=5");
    await get("/v1/changes?entity=properties&limit=5");
    await get("/v1/fields");
    await get("/v1/properties?fields=nope"); // 400
    await get("/no/such/route"); // 404
    for (let i = 0; i < 3; i++) {
      await fetch(`${url}/v1/leads`, {
        method: "POST",
        headers: { authorization: `Bearer ${portal}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Ana", email: `ana${i}@example.com`, phone: "+55 11 90000-0000", message: "Olá" }),
      });
    }
    const tiny = await tokenOf("tiny");
    for (let i = 0; i < 4; i++) await get("/v1/fields", tiny); // over its limit of 2: 429s
    await fetch(`${url}/v1/auth/token`, {
      method: "POST",
      headers: { "x-api-key": "pk_live_portal_key", "x-api-secret": "wrong" },
    });
    await get("/v1/fields", "not-a-token");
    await hangUpMidBody(url, portal, "hang-up", "Content-Length: 400\r\n");
    // A portal's lead posts: one taken, one with a password the client no longer has.
    for (const password of ["portal-lead-secret", "an-old-password"]) {
      await fetch(`${url}/v1/inbound/portal`, {
        method: "POST",
        headers: { authorization: `Basic ${btoa(`vivareal:${password}`)}` },
        body: JSON.stringify({ originLeadId: "prometheus-1", name: "Ana", email: "ana@example.com", message: "Olá" }),
      });
    }
  }

  /** Waits until Prometheus holds `scrapes` scrapes of the binary taken after `since` (ms). */
  async function scrapedAfter(since: number, scrapes: number): Promise<void> {
    for (let i = 0; i < 300; i++) {
      const response = await fetch(`${api}/api/v1/targets`);
      const target = ((await response.json()) as { data: { activeTargets: { health: string; lastError: string }[] } })
        .data.activeTargets[0];
      if (target?.health === "down") throw new Error(`Prometheus cannot scrape the binary: ${target.lastError}`);
      const window = Math.floor((Date.now() - since) / 1000);
      if (window >= 1) {
        const counted = (await query(`count_over_time(up{job="partner-api"}[${window}s])`)).data?.result[0] as
          | { value: [number, string] }
          | undefined;
        if (Number(counted?.value[1] ?? 0) >= scrapes) return;
      }
      await Bun.sleep(200);
    }
    throw new Error("Prometheus did not scrape the binary in time");
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pa-prometheus-"));
    const binary = ensureBinary();
    const db = join(dir, "agency.sqlite");
    const seeded = Bun.spawnSync([binary, "seed", "--out", db, "--properties", "200", "--leads", "200"], {
      stderr: "pipe",
    });
    if (seeded.exitCode !== 0) throw new Error(seeded.stderr.toString());
    const client = (id: string, rateLimitPerMinute: number) => ({
      id,
      apiKey: `pk_live_${id}_key`,
      secretHash: hashSecret(`sk_live_${id}_secret`),
      database: "agency",
      rateLimitPerMinute,
    });
    const feed = readFileSync(join(ROOT, "test/fixtures/vrsync/complete.xml"));
    redis = await startRedis();
    crm = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () => new Response(feed, { headers: { "content-type": "application/xml" } }),
    });
    writeFileSync(
      join(dir, "config.json"),
      JSON.stringify({
        environment: "production",
        jwtSecret: "a-jwt-secret-for-the-prometheus-test-0123456789",
        databases: { agency: db },
        clients: [
          {
            ...client("portal", 100_000),
            inbound: { format: "grupozap", username: "vivareal", passwordHash: hashSecret("portal-lead-secret") },
          },
          client("tiny", 2),
        ],
        metrics: { token: METRICS_TOKEN },
        feeds: [
          { id: "crm", database: "agency", url: `http://127.0.0.1:${crm.port}/feed.xml`, every: "1h", mode: "partial" },
        ],
        redis: { url: redis.url },
      }),
    );
    server = await startBinary(binary, ["serve", "--config", join(dir, "config.json")], dir);
    await feedRunFinished(server.url);

    // The shipped scrape config, pointed at this binary, scraping every second.
    const config = Bun.YAML.parse(readFileSync(SCRAPE_CONFIG, "utf8")) as {
      global: Record<string, string>;
      rule_files: string[];
      scrape_configs: {
        job_name: string;
        authorization: { credentials_file: string };
        static_configs: { targets: string[] }[];
      }[];
    };
    writeFileSync(join(dir, "metrics-token"), METRICS_TOKEN, { mode: 0o600 });
    config.global.scrape_interval = "1s";
    config.global.evaluation_interval = "1s";
    config.rule_files = [ALERT_RULES];
    const job = config.scrape_configs.find((scrape) => scrape.job_name === "partner-api")!;
    job.authorization.credentials_file = join(dir, "metrics-token");
    job.static_configs = [{ targets: [new URL(server.url).host] }];
    writeFileSync(join(dir, "prometheus.yml"), JSON.stringify(config));
    const checked = Bun.spawnSync([PROMTOOL!, "check", "config", join(dir, "prometheus.yml")], {
      stdout: "pipe",
      stderr: "pipe",
    });
    if (checked.exitCode !== 0) throw new Error(`promtool check config: ${checked.stdout}${checked.stderr}`);

    const port = freePort();
    api = `http://127.0.0.1:${port}`;
    prometheus = Bun.spawn(
      [
        PROMETHEUS!,
        `--config.file=${join(dir, "prometheus.yml")}`,
        `--storage.tsdb.path=${join(dir, "tsdb")}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { cwd: dir, stdout: "ignore", stderr: "pipe" },
    );
    await waitPrometheusReady();

    await driveTraffic(server.url);
    await Bun.sleep(200); // the hang-up is recorded once the server gives up on its body
    const trafficDone = Date.now();
    scrape = await (
      await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text();
    await scrapedAfter(trafficDone, 3); // rates need two samples after the traffic
  }, SETUP_MS);

  /** Waits for the run of the feed that serve starts with, so the feed families have a run to show. */
  async function feedRunFinished(url: string): Promise<void> {
    for (let i = 0; i < 300; i++) {
      const text = await (
        await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
      ).text();
      if (/partner_api_feed_last_run_timestamp_seconds\{[^}]*\} [1-9]/.test(text)) return;
      await Bun.sleep(100);
    }
    throw new Error("the feed's first run did not finish");
  }

  async function waitPrometheusReady(): Promise<void> {
    try {
      for (let i = 0; i < 300; i++) {
        try {
          if ((await fetch(`${api}/-/ready`)).status === 200) return;
        } catch {
          // not listening yet
        }
        await Bun.sleep(100);
      }
      throw new Error("Prometheus did not become ready");
    } catch (error) {
      prometheus.kill();
      throw new Error(`${(error as Error).message}\n${await new Response(prometheus.stderr as ReadableStream).text()}`);
    }
  }

  afterAll(async () => {
    prometheus?.kill();
    await prometheus?.exited;
    if (server) expect(await server.stop()).toBe(0);
    crm?.stop(true);
    await redis?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("promtool check metrics finds nothing to fix in the scrape", () => {
    const result = Bun.spawnSync([PROMTOOL!, "check", "metrics"], {
      stdin: new TextEncoder().encode(scrape),
      stdout: "pipe",
      stderr: "pipe",
    });
    expect({ exitCode: result.exitCode, output: result.stdout.toString() + result.stderr.toString() }).toEqual({
      exitCode: 0,
      output: "",
    });
  });

  test("every family of the scrape has samples, and each family carries its labels", () => {
    const samples = parseExposition(scrape);
    const sampled = new Set(samples.map((s) => s.name.replace(/_(bucket|sum|count)$/, "")));
    expect([...familyTypes(scrape).keys()].filter((family) => !sampled.has(family))).toEqual([]);
    for (const [name, labels] of Object.entries(FAMILY_LABELS)) {
      const shapes = new Set(samples.filter((s) => s.name === name).map((s) => Object.keys(s.labels).sort().join(",")));
      expect({ name, shapes: [...shapes] }).toEqual({ name, shapes: [labels.join(",")] });
    }
  });

  test("every series of the scrape is in Prometheus, with the same labels", async () => {
    const byName = new Map<string, Sample[]>();
    for (const sample of parseExposition(scrape)) byName.set(sample.name, [...(byName.get(sample.name) ?? []), sample]);
    const missing: string[] = [];
    for (const [name, samples] of byName) {
      const stored = new Set(
        (await series(`${name}{job="partner-api"}`)).map(({ __name__, job, instance, ...labels }) =>
          JSON.stringify(Object.entries(labels).sort()),
        ),
      );
      for (const sample of samples) {
        const labels = JSON.stringify(Object.entries(sample.labels).sort());
        if (!stored.has(labels)) missing.push(`${name}${labels}`);
      }
    }
    expect(missing).toEqual([]);
  });

  test("the traffic is in Prometheus: 429s by client, authentication failures, a client hang-up as 499 and no 5xx", async () => {
    const value = async (expr: string) =>
      Number(((await query(expr)).data!.result[0] as { value: [number, string] } | undefined)?.value[1] ?? NaN);
    expect(await value('sum(partner_api_rate_limited_total{client="tiny"})')).toBe(2);
    expect(await value('sum(partner_api_auth_failures_total{code="INVALID_API_SECRET"})')).toBe(2); // the token endpoint's wrong secret and the portal lead post's old password
    expect(await value('sum(partner_api_http_requests_total{status="499"})')).toBe(1);
    expect(await value("sum(partner_api_leads_created_total)")).toBe(3);
    expect((await query('partner_api_http_requests_total{status=~"5.."}')).data!.result).toEqual([]);
  });

  test("every dashboard expression evaluates, and returns series", async () => {
    const expressions = dashboardExpressions();
    expect(expressions.length).toBeGreaterThan(15);
    const problems: string[] = [];
    for (const { panel, expr } of expressions) {
      const answer = await query(expr);
      if (answer.status !== "success") problems.push(`${panel}: ${answer.error}`);
      else if (answer.data!.result.length === 0) problems.push(`${panel}: no series for ${expr}`);
      for (const name of metricNames(expr))
        if ((await series(name)).length === 0) problems.push(`${panel}: no series named ${name}`);
    }
    expect(problems).toEqual([]);
  });

  test("every alert expression evaluates, each side of its comparison on series that exist", async () => {
    const problems: string[] = [];
    for (const { alert, expr } of alertExpressions()) {
      const answer = await query(expr);
      if (answer.status !== "success") problems.push(`${alert}: ${answer.error}`);
      for (const side of comparisonSides(expr)) {
        if (/^[\d.e+]+$/.test(side)) continue; // a threshold
        const sideAnswer = await query(side);
        if (sideAnswer.status !== "success" || sideAnswer.data!.result.length === 0)
          problems.push(`${alert}: no series for ${side}`);
      }
      for (const name of metricNames(expr))
        if ((await series(name)).length === 0) problems.push(`${alert}: no series named ${name}`);
    }
    expect(problems).toEqual([]);
  });

  test("Prometheus itself evaluates the alert rules without error", async () => {
    const response = await fetch(`${api}/api/v1/rules`);
    const groups = (
      (await response.json()) as {
        data: { groups: { rules: { name: string; health: string; lastError?: string }[] }[] };
      }
    ).data.groups;
    const rules = groups.flatMap((group) => group.rules);
    expect(rules.map((rule) => rule.name).sort()).toEqual(
      alertExpressions()
        .map((rule) => rule.alert)
        .sort(),
    );
    expect(
      rules
        .filter((rule) => rule.health !== "ok")
        .map((rule) => `${rule.name}: ${rule.health} ${rule.lastError ?? ""}`),
    ).toEqual([]);
  });
});
