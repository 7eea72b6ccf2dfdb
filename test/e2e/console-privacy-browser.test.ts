// The console's personal-data pages (docs/operators/personal-data.md) in a real Chromium against
// the compiled binary: a person's leads found by phone, the printable export, the anonymization
// confirmed in the dialog, and a request registered then completed; axe-core finds no serious
// violation, and the browser console no error.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { totpCode } from "../../src/modules/admin/totp.ts";
import { binaryInNewFolder, freePort, waitHealthy } from "../helpers/binary.ts";
import { CHROMIUM, ConsoleBrowser, seriousViolations } from "../helpers/console-browser.ts";
import { previousPeriodCode } from "../helpers/totp.ts";

setDefaultTimeout(120_000);

const PASSWORD = "a long pass phrase for the privacy pages 3";

let dir: string;
let url: string;
let binary: string;
let proc: ReturnType<typeof Bun.spawn> | null = null;
const browser = new ConsoleBrowser();

beforeAll(async () => {
  ({ dir, binary } = binaryInNewFolder("pa-console-privacy-"));
  const file = join(dir, "agency.sqlite");
  const seeded = Bun.spawnSync([binary, "seed", "--out", file, "--properties", "10", "--leads", "10"], { cwd: dir });
  if (seeded.exitCode !== 0) throw new Error(seeded.stderr.toString());
  const db = new Database(file);
  for (const [id, phone] of <[string, string][]>[
    ["page-1", "(31) 3222-1111"],
    ["page-2", "+55 31 3222 1111"],
  ])
    db.query(
      "INSERT INTO leads (id, name, email, phone, message, source, status, priority, created_at, updated_at) " +
        "VALUES (?, 'Ana <b>Tela</b>', 'ana.tela@example.com', ?, 'Oi', 'API', 'NEW_LEAD', 'MEDIUM', " +
        "'2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')",
    ).run(id, phone);
  db.close();
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({
      jwtSecret: "a-jwt-secret-long-enough-for-the-privacy-pages-0123",
      databases: { agency: "agency.sqlite" },
      clients: [],
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
}, 120_000);

afterAll(async () => {
  await browser.close();
  proc?.kill("SIGTERM");
  await proc?.exited;
  rmSync(dir, { recursive: true, force: true });
});

const post = (path: string, body: unknown) =>
  fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

test.skipIf(CHROMIUM === null)("an owner finds, exports, anonymizes a person and keeps the register", async () => {
  const made = Bun.spawnSync(
    [binary, "admin", "new", "--config", "config.json", "--email", "owner@agency.example", "--role", "owner"],
    { cwd: dir },
  );
  const token = made.stdout.toString().match(/http\S+\/console\/setup\/(\S+)/)![1]!;
  const setup = (await (await post("/admin/v1/setup", { token, password: PASSWORD })).json()) as {
    data: { totpSecret: string };
  };
  const secret = setup.data.totpSecret;
  expect((await post("/admin/v1/setup/confirm", { token, code: await previousPeriodCode(secret) })).status).toBe(200);

  const problems: string[] = [];
  const violations: string[] = [];
  const page = await browser.open(url, problems);
  const check = async () => {
    for (const v of await seriousViolations(page)) violations.push(`${new URL(page.url()).pathname}: ${v}`);
  };
  await page.goto(`${url}/console/sign-in`);
  await page.fill("#email", "owner@agency.example");
  await page.fill("#password", PASSWORD);
  await page.fill("#code", await totpCode(secret, Date.now()));
  await page.press("#code", "Enter");
  await page.waitForURL(`${url}/console/partners`);
  await page.waitForLoadState("networkidle");

  await page.goto(`${url}/console/privacy`);
  await page.waitForLoadState("networkidle");
  await check();
  await page.selectOption("#pv-db", "agency");
  await page.fill("#pv-phone", "031 32221111");
  await page.click("button[value=find]");
  await page.waitForSelector("#privacy-found:not([hidden])");
  expect(await page.textContent("#found-count")).toBe("2");
  // A correction from the page: the e-mail of the first lead found.
  await page.selectOption("#cr-lead", "page-1");
  await page.fill("#cr-email", "ana.corrigida@example.com");
  await page.click("form#correct-form button[type=submit]");
  await page.waitForSelector("#status:has-text('page-1')");
  await page.click("button[value=export]");
  await page.waitForSelector("#privacy-export:not([hidden])");
  // The name is text, never markup.
  expect(await page.textContent("#export-leads")).toContain("Ana <b>Tela</b>");
  expect(await page.locator("#export-leads b").count()).toBe(0);
  expect(await page.textContent("#export-leads")).toContain("ana.corrigida@example.com");
  await check();
  page.once("dialog", (dialog) => void dialog.accept());
  await page.click("button[value=anonymize]");
  await page.waitForSelector("#status:has-text('2')");
  await page.click("button[value=find]");
  await page.waitForSelector("#privacy-found:not([hidden])");
  expect(await page.textContent("#found-count")).toBe("0");

  await page.goto(`${url}/console/privacy/requests?lang=en`);
  await page.waitForLoadState("networkidle");
  await page.selectOption("#rq-kind", "access");
  await page.selectOption("#rq-db", "agency");
  await page.fill("#rq-email", "someone@example.com");
  await page.fill("#rq-received", "2026-01-01");
  await page.click("form#request-form button[type=submit]");
  await page.waitForSelector("#requests-table tr.overdue");
  expect(await page.textContent("#requests-table tbody")).toContain("someone@example.com");
  await check();
  await page.click("#requests-table tbody button");
  await page.waitForSelector("#requests-table tbody:has-text('digest')");
  expect(await page.textContent("#requests-table tbody")).toContain("digest");
  expect(violations).toEqual([]);
  expect(problems).toEqual([]);
});
