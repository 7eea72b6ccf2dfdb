// The console's pages at /console (docs/operators/console.md): server-rendered shells in pt-BR
// or English, and one script and one stylesheet from inside the binary. The pages hold no data:
// console.js fetches it from the admin API, the only thing it calls. Like the admin API, the
// console answers 404 while the server has no admin.
import { Elysia } from "elysia";
import uplotScript from "uplot/dist/uPlot.iife.min.js" with { type: "text" };
import uplotStyle from "uplot/dist/uPlot.min.css" with { type: "text" };
import { ApiError } from "../../errors.ts";
import type { Runtime } from "../../runtime.ts";
import style from "./assets/console.css" with { type: "text" };
import script from "./assets/console.js" with { type: "text" };
import insightStyle from "./assets/insight.css" with { type: "text" };
import insightScript from "./assets/insight.js" with { type: "text" };
import { type Language, languageOf } from "./i18n.ts";
import { type PageName, renderPage } from "./pages.ts";

/** No inline script, nothing from elsewhere, never in a frame. */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

const SECURITY_HEADERS = {
  "content-security-policy": CONSOLE_CSP,
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

export function consoleModule(runtime: Runtime) {
  const served = () => {
    if (runtime.control === null || !runtime.control.hasAdmins())
      throw new ApiError("NOT_FOUND", "No route matches this path");
  };
  const page = (name: PageName, request: Request, params: Record<string, string> = {}) => {
    served();
    const language: Language = languageOf(request);
    const headers: Record<string, string> = { ...SECURITY_HEADERS, "content-type": "text/html; charset=utf-8" };
    // A language chosen by the switch is kept for the next pages.
    if (new URL(request.url).searchParams.has("lang"))
      headers["set-cookie"] = `console-lang=${language}; Path=/console; Max-Age=31536000; SameSite=Strict`;
    return new Response(renderPage(name, language, params), { headers });
  };
  const asset = (body: string, type: string) => () => {
    served();
    return new Response(body, { headers: { ...SECURITY_HEADERS, "content-type": type, "cache-control": "no-cache" } });
  };
  return (
    new Elysia({ name: "console" })
      .get("/console", () => {
        served();
        return new Response(null, { status: 302, headers: { location: "/console/partners" } });
      })
      .get("/console/sign-in", ({ request }) => page("sign-in", request))
      .get("/console/setup/:token", ({ request, params }) =>
        page("setup", request, { token: params.token.slice(0, 200) }),
      )
      .get("/console/partners", ({ request }) => page("partners", request))
      .get("/console/partners/new", ({ request }) => page("partner-new", request))
      .get("/console/partners/:id", ({ request, params }) => page("partner", request, { id: params.id.slice(0, 100) }))
      .get("/console/admins", ({ request }) => page("admins", request))
      .get("/console/tokens", ({ request }) => page("tokens", request))
      .get("/console/audit", ({ request }) => page("audit", request))
      // What the agency sees (docs/operators/console.md#what-the-agency-sees).
      .get("/console/usage", ({ request }) => page("usage", request))
      .get("/console/usage/:id", ({ request, params }) =>
        page("partner-usage", request, { id: params.id.slice(0, 100) }),
      )
      .get("/console/requests", ({ request }) => page("requests", request))
      .get("/console/webhooks", ({ request }) => page("webhooks", request))
      .get("/console/webhooks/:id", ({ request, params }) =>
        page("deliveries", request, { id: params.id.slice(0, 100) }),
      )
      .get("/console/feeds", ({ request }) => page("feeds", request))
      .get("/console/portal-feed", ({ request }) => page("portal-feed", request))
      .get("/console/origins", ({ request }) => page("origins", request))
      .get("/console/assets/insight.js", asset(insightScript, "text/javascript; charset=utf-8"))
      .get("/console/assets/insight.css", asset(insightStyle, "text/css; charset=utf-8"))
      .get("/console/assets/uplot.js", asset(uplotScript, "text/javascript; charset=utf-8"))
      .get("/console/assets/uplot.css", asset(uplotStyle, "text/css; charset=utf-8"))
      .get("/console/assets/console.js", asset(script, "text/javascript; charset=utf-8"))
      .get("/console/assets/console.css", asset(style, "text/css; charset=utf-8"))
  );
}
