// The console in a real Chromium (Debian's, driven by playwright-core), shared by the console's
// browser tests: the browser, a page that may reach the server and nothing else, with every
// console error, page error and failed request collected, and axe-core's findings.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type Browser, type BrowserContextOptions, chromium, type Page } from "playwright-core";
import { toolForTests } from "./tools.ts";

/** Debian's Chromium, or null (the browser tests are then skipped, CI installs it). */
export const CHROMIUM = toolForTests(
  "chromium",
  ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome", "chromium"],
  "install it with `apt-get install -y chromium` to run the console's browser test",
);

const AXE = readFileSync(join(import.meta.dir, "../../node_modules/axe-core/axe.min.js"), "utf8");

/** One Chromium for a test file, started at its first page. */
export class ConsoleBrowser {
  private browser: Browser | null = null;

  /**
   * A new page on `url`'s server. Anything for another host fails and is reported, since the
   * console needs nothing from outside; every problem the page meets goes into `problems`.
   */
  async open(url: string, problems: string[], options: BrowserContextOptions = {}): Promise<Page> {
    this.browser ??= await chromium.launch({
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
    const page = await (await this.browser.newContext(options)).newPage();
    await page.route("**/*", (route) =>
      new URL(route.request().url()).host === new URL(url).host ? route.continue() : route.abort(),
    );
    page.on("console", (message) => {
      if (message.type() === "error") problems.push(`console error: ${message.text()} at ${page.url()}`);
    });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("requestfailed", (request) => problems.push(`request failed: ${request.url()}`));
    return page;
  }

  async close(): Promise<void> {
    await this.browser?.close();
    this.browser = null;
  }
}

/** axe-core's serious and critical violations of the page as it stands (run through the DevTools protocol: the page's CSP allows no inline script). */
export async function seriousViolations(page: Page): Promise<string[]> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Runtime.evaluate", { expression: AXE });
  const { result } = await cdp.send("Runtime.evaluate", {
    expression:
      "axe.run(document, { resultTypes: ['violations'] }).then(r => JSON.stringify(r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => v.id + ': ' + v.nodes.map(n => n.target.join(' ')).join(', '))))",
    awaitPromise: true,
    returnByValue: true,
  });
  return JSON.parse(result.value as string) as string[];
}
