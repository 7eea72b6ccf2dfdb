// The console's pages of what the agency sees (docs/operators/console.md#what-the-agency-sees) in
// a real Chromium against the compiled binary, every other host unreachable: after known traffic
// (partners' reads and refusals, leads, a portal feed downloaded and answered 304, a failing
// webhook receiver, a CRM feed with rejected listings), each page shows those figures, the
// charts are drawn by the uPlot inside the binary, axe-core finds no serious violation, and the
// browser console no error. With CONSOLE_SCREENSHOTS=1 it writes the screenshots of the docs.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { totpCode } from "../../src/modules/admin/totp.ts";
import { hashSecret } from "../../src/security/secrets.ts";
import { ownerOnBinary } from "../helpers/admin-session.ts";
import { binaryInNewFolder, freePort, waitHealthy } from "../helpers/binary.ts";
import { CHROMIUM, ConsoleBrowser, seriousViolations } from "../helpers/console-browser.ts";

setDefaultTimeout(180_000);

const FIXTURE = join(import.meta.dir, "../fixtures/vrsync/rejections.xml");
const SCREENSHOTS =
  process.env.CONSOLE_SCREENSHOTS === "1" ? join(import.meta.dir, "../../docs/operators/console") : null;

let dir: string;
let binary: string;
let url = "";
let proc: ReturnType<typeof Bun.spawn> | null = null;
const browser = new ConsoleBrowser();
let totpSecret = "";
let subscriptionId = "";

const receiver = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: () => new Response("maintenance window until 23:00", { status: 503 }),
});
const crm = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response(readFileSync(FIXTURE)) });

const partner = (id: string, scopes: string[], extra: Record<string, unknown> = {}) => ({
  id,
  name: `${id} Ltda.`,
  apiKey: `pk_live_${id}`,
  secretHash: hashSecret(`sk_live_${id}`),
  database: "agency",
  rateLimitPerMinute: 600,
  scopes,
  ...extra,
});

async function token(id: string, secret = `sk_live_${id}`) {
  const r = await fetch(`${url}/v1/auth/token`, {
    method: "POST",
    headers: { "x-api-key": `pk_live_${id}`, "x-api-secret": secret },
  });
  const body = (await r.json()) as { data?: { token: string } };
  return body.data?.token ?? "";
}

beforeAll(async () => {
  ({ dir, binary } = binaryInNewFolder("pa-console-insight-"));
  const seeded = Bun.spawnSync(
    [binary, "seed", "--out", join(dir, "agency.sqlite"), "--properties", "30", "--leads", "20"],
    { cwd: dir },
  );
  if (seeded.exitCode !== 0) throw new Error(seeded.stderr.toString());
  const config = join(dir, "config.json");
  writeFileSync(
    config,
    JSON.stringify({
      jwtSecret: "a-jwt-secret-long-enough-for-the-insight-browser-0",
      databases: { agency: "agency.sqlite" },
      clients: [
        partner("vivareal", ["properties:read", "feed:read", "leads:create", "leads:read:own"]),
        partner("site", ["properties:read", "leads:create"], { ipWhitelist: ["192.0.2.10"] }),
        partner("crm", ["properties:read", "leads:create", "leads:read", "webhooks"]),
      ],
      webhooks: { allowHttp: true, allowPrivateTargets: true },
      feeds: [{ id: "crm-feed", database: "agency", url: `http://127.0.0.1:${crm.port}/feed.xml`, every: "1h" }],
    }),
  );
  const port = freePort();
  proc = Bun.spawn([binary, "serve", "--config", "config.json", "--port", String(port)], {
    cwd: dir,
    stdout: "ignore",
    stderr: "ignore",
  });
  url = `http://127.0.0.1:${port}`;
  await waitHealthy(url);
  ({ totpSecret } = await ownerOnBinary(binary, dir, config, url));

  // The traffic the pages must show.
  const viva = await token("vivareal");
  const bearer = { authorization: `Bearer ${viva}` };
  for (let i = 0; i < 5; i++) await (await fetch(`${url}/v1/properties?fields=id`, { headers: bearer })).arrayBuffer();
  for (let i = 0; i < 2; i++) {
    const lead = await fetch(`${url}/v1/leads`, {
      method: "POST",
      headers: { ...bearer, "content-type": "application/json" },
      body: JSON.stringify({
        name: "Júlia Lima",
        email: "julia@example.com",
        phone: "+55 11 91234-5678",
        message: "Oi",
      }),
    });
    expect(lead.status).toBe(201);
  }
  const feed = await fetch(`${url}/v1/feeds/vrsync.xml`, { headers: bearer });
  await feed.arrayBuffer();
  expect(feed.status).toBe(200);
  const again = await fetch(`${url}/v1/feeds/vrsync.xml`, {
    headers: { ...bearer, "if-none-match": feed.headers.get("etag")! },
  });
  expect(again.status).toBe(304);
  expect(await token("site")).toBe(""); // 403 IP_BLOCKED: counted under site
  expect(await token("vivareal", "wrong")).toBe(""); // 401: counted under vivareal
  const crmToken = await token("crm");
  const made = await fetch(`${url}/v1/webhooks`, {
    method: "POST",
    headers: { authorization: `Bearer ${crmToken}`, "content-type": "application/json" },
    body: JSON.stringify({ url: `http://127.0.0.1:${receiver.port}/hook`, events: ["lead.created"] }),
  });
  subscriptionId = ((await made.json()) as { data: { id: string } }).data.id;
  await fetch(`${url}/v1/leads`, {
    method: "POST",
    headers: { authorization: `Bearer ${crmToken}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Caio Prado", email: "caio@example.com", phone: "+55 21 98888-7777", message: "Olá" }),
  });
  await Bun.sleep(1500);
}, 180_000);

afterAll(async () => {
  await browser.close();
  proc?.kill("SIGTERM");
  await proc?.exited;
  receiver.stop(true);
  crm.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

/** Polls the page (its CSP forbids the evaluated strings of waitForFunction). */
async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await Bun.sleep(100);
  }
  throw new Error("the page never got there");
}

const cells = (page: Page, selector: string) =>
  page.$$eval(`${selector} tbody tr`, (rows) =>
    rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent?.trim() ?? "")),
  );

test.skipIf(CHROMIUM === null)("each page of what the agency sees shows the server's real figures", async () => {
  const problems: string[] = [];
  const violations: string[] = [];
  const page = await browser.open(url, problems, { viewport: { width: 1280, height: 900 } });
  const visit = async (path: string, ready: string, shot?: string) => {
    await page.goto(`${url}${path}`);
    await page.waitForSelector(ready);
    await page.waitForLoadState("networkidle");
    for (const v of await seriousViolations(page)) violations.push(`${path}: ${v}`);
    if (SCREENSHOTS !== null && shot) await page.screenshot({ path: join(SCREENSHOTS, `${shot}.png`), fullPage: true });
  };

  // Sign in by the form, in English.
  await page.goto(`${url}/console/sign-in?lang=en`);
  await page.fill("#email", "owner@agency.example");
  await page.fill("#password", "a long pass phrase for the console 7");
  await page.fill("#code", await totpCode(totpSecret, Date.now() + 30_000));
  await page.press("#code", "Enter");
  await page.waitForURL(`${url}/console/partners`);
  await page.waitForLoadState("networkidle");

  // Usage of every partner: today's figures and when each was last seen.
  await visit("/console/usage", "#usage-table tbody tr td a", "usage.en");
  const usage = Object.fromEntries((await cells(page, "#usage-table")).map((r) => [r[0]!.split(" ")[0], r]));
  // vivareal: token, 5 reads, 2 leads, 200 + 304 feed, wrong secret = 11; 2xx 8 (token, reads, leads, feed 200).
  expect(usage.vivareal!.slice(1, 7)).toEqual(["11", "9", "1", "0", "0", "2"]);
  expect(usage.site!.slice(1, 5)).toEqual(["1", "0", "0", "1"]);

  // One partner: the two charts drawn by uPlot, and the day's row.
  await visit("/console/usage/vivareal", "#days-table tbody tr", "partner-usage.en");
  expect(await page.$$eval(".chart .uplot canvas", (c) => c.length)).toBe(2);
  const today = (await cells(page, "#days-table"))[0]!;
  expect(today[0]).toBe(new Date().toISOString().slice(0, 10));
  expect(today.slice(1, 4)).toEqual(["9", "1", "1"]);
  expect(today[12]).toBe("2");
  expect(await page.textContent("#last-seen")).toContain("/v1/auth/token");

  // The request log, filtered by status.
  await visit("/console/requests", "#requests-table tbody tr", "requests.en");
  await page.fill("#r-status", "403");
  await page.click("#requests-form button[type=submit]");
  await until(async () => (await page.$$("#requests-table tbody tr")).length === 1);
  const forbidden = (await cells(page, "#requests-table"))[0]!;
  expect(forbidden.slice(1, 6)).toEqual(["site", "POST", "/v1/auth/token", "403", "IP_BLOCKED"]);

  // Webhooks: the subscription, its failed attempt and the receiver's answer.
  await visit("/console/webhooks", "#subscriptions-table tbody tr td a", "webhooks.en");
  expect((await cells(page, "#subscriptions-table"))[0]!.slice(1, 3)).toEqual(["crm", "agency"]);
  await visit(`/console/webhooks/${subscriptionId}`, "section.delivery table tbody tr", "deliveries.en");
  expect(await page.textContent("section.delivery")).toContain("maintenance window until 23:00");
  expect((await cells(page, "section.delivery"))[0]![1]).toBe("503");

  // CRM feeds: the run the guard held, and its reason.
  await visit("/console/feeds", "#runs-list table tbody tr", "feeds.en");
  expect(await page.textContent("#runs-list")).toContain("maxUnpublishRatio");
  expect(await page.$$eval("#runs-list button", (b) => b.map((x) => x.textContent))).toEqual(["Apply", "Drop"]);
  // Applied from the page: the run again with the guard lifted, its rejections and reasons listed.
  await page.click("#runs-list button:text('Apply')");
  await until(async () => (await page.textContent("#runs-list"))?.includes("applied") === true);
  for (let i = 0; i < 50; i++) {
    await page.reload();
    await page.waitForLoadState("networkidle");
    if ((await page.textContent("#runs-list"))?.includes("TT-1")) break;
    await Bun.sleep(200);
  }
  const runs = (await page.textContent("#runs-list"))!;
  expect(runs).toMatch(/6 \/ 0 \/ 0 \/ 28 \/ 3/);
  expect(runs).toContain("would unpublish 28 of the 28 published listings");
  expect(runs).toMatch(/TT-1: line \d+/);
  if (SCREENSHOTS !== null) await page.screenshot({ path: join(SCREENSHOTS, "feeds.en.png"), fullPage: true });

  // The portal feed's downloads, and the leads by origin.
  await visit("/console/portal-feed", "#downloads-table tbody tr", "portal-feed.en");
  const downloads = (await cells(page, "#downloads-table"))[0]!;
  expect(downloads.slice(1, 4)).toEqual(["vivareal", "2", "1"]);
  expect(Number(downloads[4]!.replace(/\D/g, ""))).toBeGreaterThan(1000);
  await visit("/console/origins", "#origins-table tbody tr", "origins.en");
  const origins = await cells(page, "#origins-table");
  expect(origins.find((r) => r[3] === "vivareal")!.slice(2)).toEqual(["API", "vivareal", "NEW_LEAD 2", "2"]);

  // In Portuguese too.
  await visit("/console/usage/vivareal?lang=pt-BR", "#days-table tbody tr", "partner-usage.pt-BR");
  expect(await page.getAttribute("html", "lang")).toBe("pt-BR");
  expect(await page.textContent("h1")).toContain("Uso de");
  await visit("/console/requests", "#requests-table tbody tr", "requests.pt-BR");

  expect(violations).toEqual([]);
  expect(problems).toEqual([]);
});
