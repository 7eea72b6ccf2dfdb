// The console's pages of what the agency sees (docs/operators/console.md#what-the-agency-sees):
// their shells, rendered on the server like the others; insight.js fills them from the admin
// API, and draws each partner's charts with uPlot, served from inside the binary.

import { html, raw } from "./html.ts";
import type { Language } from "./i18n.ts";
import { INSIGHT_WORDS, type InsightWords } from "./insight-i18n.ts";

export const INSIGHT_PAGES = [
  "usage",
  "partner-usage",
  "requests",
  "webhooks",
  "deliveries",
  "feeds",
  "portal-feed",
  "origins",
] as const;
export type InsightPage = (typeof INSIGHT_PAGES)[number];

export function isInsightPage(page: string): page is InsightPage {
  return (INSIGHT_PAGES as readonly string[]).includes(page);
}

type Html = ReturnType<typeof html>;

function subNav(w: InsightWords): Html {
  return html`<nav aria-label="${w.activity}" class="subnav"><ul>
<li><a href="/console/usage">${w.usage}</a></li>
<li><a href="/console/requests">${w.requests}</a></li>
<li><a href="/console/webhooks">${w.webhooks}</a></li>
<li><a href="/console/feeds">${w.feeds}</a></li>
<li><a href="/console/portal-feed">${w.portalFeed}</a></li>
<li><a href="/console/origins">${w.origins}</a></li>
</ul></nav>`;
}

const th = (label: string) => html`<th scope="col">${label}</th>`;

function table(id: string, caption: string, heads: string[]): Html {
  return html`<table id="${id}"><caption class="visually-hidden">${caption}</caption>
<thead><tr>${heads.map(th)}</tr></thead><tbody></tbody></table>`;
}

function field(id: string, label: string, input: Html): Html {
  return html`<div class="field"><label for="${id}">${label}</label>${input}</div>`;
}

function body(page: InsightPage, w: InsightWords, params: Record<string, string>): Html {
  switch (page) {
    case "usage":
      return html`<h1>${w.usage}</h1>
${table("usage-table", w.usage, [w.partner, w.today, "2xx", "401", "403", "429", w.leadsCreated, w.lastSeen])}`;
    case "partner-usage":
      return html`<h1 id="usage-title" data-id="${params.id ?? ""}">${w.usageOf} ${params.id ?? ""}</h1>
<form id="days-form" class="inline">${field("u-days", w.days, html`<select id="u-days" name="days"><option>7</option><option selected>30</option><option>90</option></select>`)}<button type="submit">${w.show}</button></form>
<dl id="last-seen"></dl>
<figure><figcaption>${w.requestsPerDay}</figcaption><div id="requests-chart" class="chart" role="img" aria-label="${w.requestsPerDay}"></div></figure>
<figure><figcaption>${w.latencyPerDay}</figcaption><div id="latency-chart" class="chart" role="img" aria-label="${w.latencyPerDay}"></div></figure>
<p class="note">${w.chartNote}</p>
${table("days-table", w.requestsPerDay, [w.day, "2xx", "3xx", "401", "403", w.forbiddenByCode, "404", "429", "4xx", "5xx", w.p50, w.p95, w.leadsCreated])}`;
    case "requests":
      return html`<h1>${w.requests}</h1>
<form id="requests-form" class="inline">
${field("r-client", w.client, html`<input id="r-client" name="client" maxlength="100">`)}
${field("r-status", w.status, html`<input id="r-status" name="status" maxlength="3" placeholder="4xx">`)}
${field("r-ip", w.address, html`<input id="r-ip" name="ip" maxlength="64">`)}
${field("r-since", w.since, html`<input id="r-since" name="since" type="date">`)}
${field("r-until", w.until, html`<input id="r-until" name="until" type="date">`)}
<button type="submit">${w.filter}</button></form>
<p id="requests-total"></p>
${table("requests-table", w.requests, [w.time, w.client, w.method, w.route, w.status, w.code, w.latency, w.address, w.requestId])}
<p><button type="button" id="requests-prev">${w.previous}</button> <button type="button" id="requests-next">${w.next}</button></p>`;
    case "webhooks":
      return html`<h1>${w.webhooks}</h1>
${table("subscriptions-table", w.webhooks, [w.subscription, w.client, w.database, w.url, w.events, w.enabled, w.pending, w.succeeded, w.failed, ""])}`;
    case "deliveries":
      return html`<p><a href="/console/webhooks">${w.webhooks}</a></p>
<h1 id="deliveries-title" data-id="${params.id ?? ""}">${w.deliveries}</h1>
<dl id="subscription-details"></dl>
<form id="send-failed-form" class="inline">${field("d-since", w.sendFailedSince, html`<input id="d-since" name="since" type="datetime-local" step="1">`)}<button type="submit">${w.sendAgain}</button></form>
<div id="deliveries-list"></div>`;
    case "feeds":
      return html`<h1>${w.feeds}</h1>
${table("feeds-table", w.feeds, [w.feed, w.database, w.url, w.mode, w.every, w.lastRun, ""])}
<h2>${w.runs}</h2>
<div id="runs-list"></div>`;
    case "portal-feed":
      return html`<h1>${w.portalFeed}</h1>
${table("downloads-table", w.portalFeed, [w.day, w.partner, w.downloads, w.notModified, w.bytes])}`;
    case "origins":
      return html`<h1>${w.origins}</h1>
${table("origins-table", w.origins, [w.month, w.database, w.source, w.partner, w.byStatus, w.total])}`;
  }
}

/** The page's body: its sub-navigation, its shell and its words for insight.js. */
export function insightBody(page: InsightPage, language: Language, params: Record<string, string>): Html {
  const w = INSIGHT_WORDS[language];
  const words = JSON.stringify(w).replace(/</g, "\\u003c");
  return html`${subNav(w)}
<script type="application/json" id="insight-words">${raw(words)}</script>
${body(page, w, params)}`;
}

/** What the page's head adds: uPlot's stylesheet and script where a chart is drawn, and insight.js. */
export function insightHead(page: string): Html {
  if (!isInsightPage(page)) return html``;
  const chart =
    page === "partner-usage"
      ? html`<link rel="stylesheet" href="/console/assets/uplot.css">
<script src="/console/assets/uplot.js" defer></script>`
      : html``;
  return html`<link rel="stylesheet" href="/console/assets/insight.css">
${chart}
<script src="/console/assets/insight.js" defer></script>`;
}
