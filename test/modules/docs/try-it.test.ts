// The docs page works as shown, in headless Chromium against the compiled sandbox: the token
// operation's "Test Request" sends the key and secret (never an empty bearer), "Authorize"
// fetches a token by client credentials, every other operation then sends that token without
// it being copied anywhere, and the page's console shows no error along the way.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { type Browser, type Request as BrowserRequest, chromium, type Page } from "playwright-core";
import { binaryInNewFolder, type RunningBinary, startBinary } from "../../helpers/binary.ts";
import { toolForTests } from "../../helpers/tools.ts";

const CHROMIUM = toolForTests(
  "chromium",
  ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome", "chromium"],
  "install it with `apt-get install -y chromium` to run the docs page test",
);
const SANDBOX_BASIC = `Basic ${Buffer.from("pk_sandbox_demo:sk_sandbox_demo").toString("base64")}`;

let dir: string;
let server: RunningBinary;
let browser: Browser | undefined;

beforeAll(async () => {
  const made = binaryInNewFolder("pa-docs-try-it-");
  dir = made.dir;
  server = await startBinary(made.binary, ["sandbox", "--db", join(dir, "sandbox.sqlite")], dir);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The page, with every console error and uncaught exception collected, and nothing reachable but the server. */
async function openDocs(): Promise<{ page: Page; problems: string[] }> {
  browser ??= await chromium.launch({
    executablePath: CHROMIUM!,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    ],
  });
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning")
      problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("requestfailed", (request) => problems.push(`request failed: ${request.url()}`));
  await page.goto(`${server.url}/docs`);
  return { page, problems };
}

/** Opens an operation's "Test Request" client from its section of the reference. */
async function openClient(page: Page, tag: string, method: string, path: string) {
  const section = page.locator(`[id="api-1/tag/${tag}/${method}${path}"]`).first();
  await section.scrollIntoViewIfNeeded();
  await section.getByRole("button", { name: /Test Request/i }).click();
  return page.getByRole("dialog");
}

/** Clicks Send in the open client and returns the request it made and the answer. */
async function send(page: Page, dialog: ReturnType<Page["getByRole"]>, path: string) {
  const answered = page.waitForResponse((response) => new URL(response.url()).pathname === path);
  await dialog.getByRole("button", { name: /^Send/ }).first().click();
  const response = await answered;
  return { request: response.request(), status: response.status(), body: await response.text() };
}

const authorization = (request: BrowserRequest) => request.headers().authorization;

describe.skipIf(CHROMIUM === null)("the docs page's try-it, end to end", () => {
  test("the token operation sends the sandbox key and secret by HTTP Basic and gets a token", async () => {
    const { page, problems } = await openDocs();
    const dialog = await openClient(page, "authentication", "POST", "/v1/auth/token");
    const { request, status, body } = await send(page, dialog, "/v1/auth/token");
    expect(authorization(request)).toBe(SANDBOX_BASIC);
    expect(request.postData()).toBe("grant_type=client_credentials");
    expect(status).toBe(200);
    expect(JSON.parse(body)).toMatchObject({ token_type: "Bearer", expires_in: 3600 });
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);

  test("Authorize obtains a token by client credentials; properties, then leads, are listed with it", async () => {
    const { page, problems } = await openDocs();
    const properties = await openClient(page, "properties", "GET", "/v1/properties");
    await properties
      .getByRole("button", { name: /Authentication/ })
      .first()
      .click();
    const issued = page.waitForResponse((response) => new URL(response.url()).pathname === "/v1/auth/token");
    await properties.getByRole("button", { name: "Authorize" }).click();
    const tokenResponse = await issued;
    expect(tokenResponse.status()).toBe(200);
    expect(tokenResponse.request().headers()["content-type"]).toContain("application/x-www-form-urlencoded");
    const token = ((await tokenResponse.json()) as { access_token: string }).access_token;
    // The page holds the token once it shows it (and offers to clear it).
    await properties.getByRole("button", { name: "Clear", exact: true }).waitFor();

    const listed = await send(page, properties, "/v1/properties");
    expect(authorization(listed.request)).toBe(`Bearer ${token}`);
    expect(listed.status).toBe(200);
    expect(Array.isArray(JSON.parse(listed.body).data)).toBe(true);

    // Another operation takes the same token, with nothing copied by hand.
    await page.keyboard.press("Escape");
    const leads = await openClient(page, "leads", "GET", "/v1/leads");
    const leadPage = await send(page, leads, "/v1/leads");
    expect(authorization(leadPage.request)).toBe(`Bearer ${token}`);
    expect(leadPage.status).toBe(200);
    expect(problems).toEqual([]);
    await page.close();
  }, 120_000);
});
