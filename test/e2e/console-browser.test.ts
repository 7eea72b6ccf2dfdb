// The console's pages (docs/operators/console.md) in a real Chromium against the compiled binary,
// with every host but the server unreachable: set-up with a TOTP code, sign-in, a website
// partner made, its secret copied from the page and used on /v1/properties, rotated and
// deleted; axe-core finds no serious violation on any page, and the browser console no error.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { totpCode } from "../../src/modules/admin/totp.ts";
import { binaryInNewFolder, freePort, waitHealthy } from "../helpers/binary.ts";
import { CHROMIUM, ConsoleBrowser, seriousViolations } from "../helpers/console-browser.ts";
import { previousPeriodCode } from "../helpers/totp.ts";

setDefaultTimeout(120_000);

const PASSWORD = "a long pass phrase for the browser 9";
/**
 * With CONSOLE_SCREENSHOTS=1 the test also writes the screenshots of docs/operators/console.md
 * (docs/operators/console/*.png), in both languages.
 */
const SCREENSHOTS =
  process.env.CONSOLE_SCREENSHOTS === "1" ? join(import.meta.dir, "../../docs/operators/console") : null;

let dir: string;
let binary: string;
let url: string;
let proc: ReturnType<typeof Bun.spawn> | null = null;
const browser = new ConsoleBrowser();

beforeAll(async () => {
  ({ dir, binary } = binaryInNewFolder("pa-console-browser-"));
  const seeded = Bun.spawnSync(
    [binary, "seed", "--out", join(dir, "agency.sqlite"), "--properties", "30", "--leads", "30"],
    {
      cwd: dir,
    },
  );
  if (seeded.exitCode !== 0) throw new Error(seeded.stderr.toString());
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({
      jwtSecret: "a-jwt-secret-long-enough-for-the-browser-test-0123",
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

test.skipIf(CHROMIUM === null)(
  "an owner sets up, signs in with TOTP, admits a website partner, and rotates and deletes it",
  async () => {
    const problems: string[] = [];
    const violations: string[] = [];
    const page = await browser.open(url, problems, { permissions: ["clipboard-read", "clipboard-write"] });
    const check = async () => {
      for (const v of await seriousViolations(page)) violations.push(`${new URL(page.url()).pathname}: ${v}`);
    };
    const shot = async (name: string) => {
      if (SCREENSHOTS !== null) await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
    };
    // No admin yet: no console.
    expect((await fetch(`${url}/console/sign-in`)).status).toBe(404);
    const made = Bun.spawnSync(
      [binary, "admin", "new", "--config", "config.json", "--email", "owner@agency.example", "--role", "owner"],
      {
        cwd: dir,
      },
    );
    const link = made.stdout.toString().match(/(http\S+\/console\/setup\/\S+)/)![1]!;
    const setupPath = new URL(link).pathname;

    // Set-up: a password, then the app's code.
    await page.goto(`${url}${setupPath}`);
    expect(await page.getAttribute("html", "lang")).toBe("pt-BR");
    const csp = (await page.request.get(`${url}${setupPath}`)).headers()["content-security-policy"]!;
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain("unsafe-inline");
    await check();
    await page.fill("#new-password", PASSWORD);
    await page.press("#new-password", "Enter");
    await page.waitForSelector("#enrol:not([hidden])");
    const secret = (await page.textContent("#totp-secret"))!;
    expect(await page.getAttribute("#qr", "src")).toStartWith("data:image/svg+xml;base64,");
    await check();
    await page.fill("#setup-code", await previousPeriodCode(secret));
    await page.press("#setup-code", "Enter");
    await page.waitForSelector("#setup-done:not([hidden])");

    // Sign-in, by keyboard alone.
    await page.goto(`${url}/console/sign-in`);
    await shot("sign-in.pt-BR");
    await page.goto(`${url}/console/sign-in?lang=en`);
    expect(await page.getAttribute("html", "lang")).toBe("en");
    await check();
    await page.focus("#email");
    await page.keyboard.type("owner@agency.example");
    await page.keyboard.press("Tab");
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press("Tab");
    await page.keyboard.type(await totpCode(secret, Date.now()));
    await page.keyboard.press("Enter");
    await page.waitForURL(`${url}/console/partners`);
    // Its list loads before the next page: a fetch cut short by leaving would read as a failure.
    await page.waitForLoadState("networkidle");
    await check();

    // A website partner named with a script: kept as text everywhere.
    const name = `<img src=x onerror=alert(1)>Imobiliária Site`;
    await page.goto(`${url}/console/partners/new`);
    await check();
    await page.fill("#p-name", name);
    await page.fill("#p-email", "dev@site.example");
    await page.selectOption("#p-use", "website");
    await page.selectOption("#p-db", "agency");
    await page.click("form#partner-form button[type=submit]");
    await page.waitForSelector("#handover:not([hidden])");
    await check();
    await shot("new-partner.en");
    const pairs = await page.$$eval("#handover-list dt", (dts) =>
      Object.fromEntries(dts.map((dt) => [dt.textContent, dt.nextElementSibling?.textContent])),
    );
    const apiKey = pairs["X-API-Key"]!;
    await page.click("button[data-copy=message-en]");
    const copied = (await page.evaluate("navigator.clipboard.readText()")) as string;
    expect(copied).toContain(apiKey);
    const apiSecret = copied.match(/X-API-Secret: (\S+)/)![1]!;
    const tokenOf = async (secretText: string) => {
      const r = await fetch(`${url}/v1/auth/token`, {
        method: "POST",
        headers: { "x-api-key": apiKey, "x-api-secret": secretText },
      });
      return r.status === 200 ? ((await r.json()) as { data: { token: string } }).data.token : null;
    };
    const token = (await tokenOf(apiSecret))!;
    const listed = await fetch(`${url}/v1/properties?fields=id&limit=1`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(listed.status).toBe(200);

    // The list shows the name as text; no element was made from it.
    await page.goto(`${url}/console/partners`);
    await page.waitForSelector("#partners-table tbody a");
    expect(await page.textContent("#partners-table tbody")).toContain(name);
    expect(await page.$$("#partners-table img")).toHaveLength(0);
    await check();
    await shot("partners.en");
    await page.goto(`${url}/console/partners?lang=pt-BR`);
    await page.waitForSelector("#partners-table tbody a");

    // Rotate with no overlap: the old secret's token ends; the new one works.
    await page.click("#partners-table tbody a");
    await page.waitForSelector("#partner-actions:not([hidden])");
    await check();
    await page.selectOption("#overlap", "none");
    await page.click("#rotate-form button[type=submit]");
    await page.waitForSelector("#handover:not([hidden])");
    const newSecret = (await page.$$eval("#handover-list dd", (dds) => dds[0]?.textContent))!;
    expect(newSecret).not.toBe(apiSecret);
    expect(
      (await fetch(`${url}/v1/properties?fields=id&limit=1`, { headers: { authorization: `Bearer ${token}` } })).status,
    ).toBe(401);
    const newToken = (await tokenOf(newSecret))!;
    expect(
      (await fetch(`${url}/v1/properties?fields=id&limit=1`, { headers: { authorization: `Bearer ${newToken}` } }))
        .status,
    ).toBe(200);

    // Delete: its tokens stop.
    page.once("dialog", (dialog) => void dialog.accept());
    await page.click("#delete-partner");
    await page.waitForURL(`${url}/console/partners`);
    // Its list loads before the next page: a fetch cut short by leaving would read as a failure.
    await page.waitForLoadState("networkidle");
    expect(
      (await fetch(`${url}/v1/properties?fields=id&limit=1`, { headers: { authorization: `Bearer ${newToken}` } }))
        .status,
    ).toBe(401);

    for (const path of ["/console/admins", "/console/tokens", "/console/audit"]) {
      await page.goto(`${url}${path}`);
      await page.waitForLoadState("networkidle");
      await check();
    }
    expect(await page.textContent("#audit-table tbody")).toContain("partner.delete");
    await shot("audit.pt-BR");
    await page.click("#sign-out");
    await page.waitForURL(`${url}/console/sign-in`);
    expect(violations).toEqual([]);
    expect(problems).toEqual([]);
  },
);
