// The console's pages, rendered on the server: the layout, the labels and the forms in the
// request's language. Every value is escaped here; the data itself (lists, secrets) is fetched
// from the admin API by console.js and written with textContent, so nothing a partner's name
// holds can run.
import { type Html, html, raw } from "./html.ts";
import { type Language, WORDS, type Words } from "./i18n.ts";
import { INSIGHT_WORDS } from "./insight-i18n.ts";
import { type InsightPage, insightBody, insightHead, isInsightPage } from "./insight-pages.ts";

export type PageName =
  | "sign-in"
  | "setup"
  | "partners"
  | "partner-new"
  | "partner"
  | "admins"
  | "tokens"
  | "audit"
  | InsightPage;

const USE_CASES = ["portal", "website", "crm", "portal-leads", "other"];
const SCOPES = [
  "properties:read",
  "feed:read",
  "leads:create",
  "leads:read:own",
  "leads:read",
  "leads:update",
  "webhooks",
];

function field(id: string, label: string, input: Html): Html {
  return html`<div class="field"><label for="${id}">${label}</label>${input}</div>`;
}

function bodyOf(page: PageName, w: Words, params: Record<string, string>, language: Language): Html {
  if (isInsightPage(page)) return insightBody(page, language, params);
  switch (page) {
    case "sign-in":
      return html`<h1>${w.signIn}</h1>
<form id="sign-in-form" data-form="sign-in">
${field("email", w.email, html`<input id="email" name="email" type="email" autocomplete="username" required maxlength="254">`)}
${field("password", w.password, html`<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="256">`)}
${field("code", w.code, html`<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6">`)}
<button type="submit">${w.signIn}</button>
</form>`;
    case "setup":
      return html`<h1>${w.setup}</h1>
<p>${w.setupIntro}</p>
<form id="setup-form" data-form="setup" data-token="${params.token ?? ""}">
${field("new-password", w.password, html`<input id="new-password" name="password" type="password" autocomplete="new-password" required minlength="12" maxlength="256">`)}
<button type="submit">${w.setPassword}</button>
</form>
<section id="enrol" hidden aria-labelledby="enrol-title">
<h2 id="enrol-title">${w.scan}</h2>
<img id="qr" alt="QR code" width="220" height="220">
<p><code id="totp-secret"></code></p>
<form id="confirm-form" data-form="setup-confirm" data-token="${params.token ?? ""}">
${field("setup-code", w.code, html`<input id="setup-code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required>`)}
<button type="submit">${w.confirm}</button>
</form>
</section>
<p id="setup-done" hidden>${w.setupDone} <a href="/console/sign-in">${w.signIn}</a></p>`;
    case "partners":
      return html`<h1>${w.partners}</h1>
<p><a class="button" href="/console/partners/new">${w.newPartner}</a></p>
<table id="partners-table"><caption class="visually-hidden">${w.partners}</caption>
<thead><tr><th scope="col">Id</th><th scope="col">${w.name}</th><th scope="col">${w.source}</th><th scope="col">${w.useCase}</th><th scope="col">${w.database}</th><th scope="col">${w.rate}</th><th scope="col">${w.enabled}</th></tr></thead>
<tbody></tbody></table>`;
    case "partner-new":
      return html`<h1>${w.newPartner}</h1>
<form id="partner-form" data-form="partner-new">
${field("p-name", w.name, html`<input id="p-name" name="name" required maxlength="120">`)}
${field("p-email", w.contactEmail, html`<input id="p-email" name="contactEmail" type="email" required maxlength="254">`)}
${field("p-use", w.useCase, html`<select id="p-use" name="useCase">${USE_CASES.map((u) => html`<option value="${u}">${u}</option>`)}</select>`)}
${field("p-db", w.database, html`<select id="p-db" name="database" data-fill="databases"></select>`)}
${field("p-ips", w.allowedIps, html`<textarea id="p-ips" name="allowedIps" rows="3"></textarea>`)}
<fieldset><legend>${w.scopes}</legend>${SCOPES.map((s) => html`<label class="check"><input type="checkbox" name="scopes" value="${s}"> ${s}</label>`)}</fieldset>
${field("p-rate", w.rate, html`<input id="p-rate" name="rateLimitPerMinute" type="number" min="1" max="100000">`)}
<button type="submit">${w.create}</button>
</form>
<section id="handover" hidden aria-labelledby="handover-title" tabindex="-1">
<h2 id="handover-title">${w.shownOnce}</h2>
<dl id="handover-list"></dl>
<h3>${w.messageForPartner}</h3>
<pre id="message-pt" lang="pt-BR"></pre><button type="button" data-copy="message-pt">${w.copy} (pt-BR)</button>
<pre id="message-en" lang="en"></pre><button type="button" data-copy="message-en">${w.copy} (English)</button>
</section>`;
    case "partner":
      return html`<p><a href="/console/partners">${w.back}</a></p>
<h1 id="partner-title" data-id="${params.id ?? ""}"></h1>
<dl id="partner-details"></dl>
<section id="partner-actions" hidden>
<form id="rotate-form" data-form="rotate">
${field("overlap", w.overlap, html`<select id="overlap" name="overlap"><option value="none">0</option><option value="1h">1 h</option><option value="24h">24 h</option><option value="7d">7 d</option></select>`)}
<button type="submit">${w.rotate}</button>
</form>
<p><button type="button" id="toggle-enabled"></button> <button type="button" id="delete-partner" class="danger">${w.delete}</button></p>
</section>
<section id="handover" hidden aria-labelledby="handover-title" tabindex="-1"><h2 id="handover-title">${w.shownOnce}</h2><dl id="handover-list"></dl></section>`;
    case "admins":
      return html`<h1>${w.admins}</h1>
<table id="admins-table"><caption class="visually-hidden">${w.admins}</caption>
<thead><tr><th scope="col">${w.email}</th><th scope="col">${w.role}</th><th scope="col">${w.status}</th><th scope="col">${w.database}</th><th scope="col"><span class="visually-hidden">${w.endSessions}</span></th></tr></thead><tbody></tbody></table>
<h2>${w.invite}</h2>
<form id="invite-form" data-form="invite">
${field("i-email", w.email, html`<input id="i-email" name="email" type="email" required maxlength="254">`)}
${field("i-role", w.role, html`<select id="i-role" name="role"><option>viewer</option><option>admin</option><option>owner</option></select>`)}
<button type="submit">${w.invite}</button>
</form>
<p id="invite-result" hidden>${w.setupLink} <code id="invite-link"></code></p>`;
    case "tokens":
      return html`<h1>${w.tokens}</h1>
<table id="tokens-table"><caption class="visually-hidden">${w.tokens}</caption>
<thead><tr><th scope="col">Id</th><th scope="col">${w.tokenName}</th><th scope="col">${w.role}</th><th scope="col">${w.who}</th><th scope="col">${w.status}</th><th scope="col"><span class="visually-hidden">${w.revoke}</span></th></tr></thead><tbody></tbody></table>
<h2>${w.create}</h2>
<form id="token-form" data-form="token">
${field("t-name", w.tokenName, html`<input id="t-name" name="name" required maxlength="100">`)}
${field("t-role", w.role, html`<select id="t-role" name="role"><option>viewer</option><option>admin</option><option>owner</option></select>`)}
<button type="submit">${w.create}</button>
</form>
<p id="token-result" hidden>${w.shownOnce} <code id="token-value"></code> <button type="button" data-copy="token-value">${w.copy}</button></p>`;
    case "audit":
      return html`<h1>${w.audit}</h1>
<form id="audit-form" data-form="audit" class="inline">
${field("a-action", w.action, html`<input id="a-action" name="action" maxlength="64">`)}
${field("a-admin", w.who, html`<input id="a-admin" name="admin" maxlength="254">`)}
${field("a-since", w.since, html`<input id="a-since" name="since" type="date">`)}
${field("a-until", w.until, html`<input id="a-until" name="until" type="date">`)}
<button type="submit">${w.filter}</button> <a id="audit-export" href="/admin/v1/audit/export">${w.export}</a>
</form>
<table id="audit-table"><caption class="visually-hidden">${w.audit}</caption>
<thead><tr><th scope="col">${w.when}</th><th scope="col">${w.who}</th><th scope="col">${w.address}</th><th scope="col">${w.action}</th><th scope="col">${w.target}</th><th scope="col">${w.changes}</th></tr></thead><tbody></tbody></table>
<p><button type="button" id="audit-prev">${w.previous}</button> <button type="button" id="audit-next">${w.next}</button></p>`;
  }
}

export function renderPage(page: PageName, language: Language, params: Record<string, string> = {}): string {
  const w = WORDS[language];
  const signedIn = page !== "sign-in" && page !== "setup";
  const other = language === "en" ? "pt-BR" : "en";
  const nav = signedIn
    ? html`<nav aria-label="${w.nav}"><ul>
<li><a href="/console/partners">${w.partners}</a></li>
<li><a href="/console/usage">${INSIGHT_WORDS[language].activity}</a></li>
<li data-role="owner"><a href="/console/admins">${w.admins}</a></li>
<li><a href="/console/tokens">${w.tokens}</a></li>
<li><a href="/console/audit">${w.audit}</a></li>
<li><button type="button" id="sign-out">${w.signOut}</button></li>
</ul></nav>`
    : html``;
  return html`<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${w.title}</title>
<link rel="stylesheet" href="/console/assets/console.css">
<script type="application/json" id="words">${raw(JSON.stringify(w).replace(/</g, "\\u003c"))}</script>
<script src="/console/assets/console.js" defer></script>
${insightHead(page)}
</head>
<body data-page="${page}" data-signed-in="${signedIn ? "yes" : "no"}">
<a class="skip" href="#main">${w.skip}</a>
<header><p class="brand">partner-api · ${w.title}</p>${nav}<p><a href="?lang=${other}" lang="${other}">${w.language}</a></p></header>
<main id="main" tabindex="-1">
<p id="status" role="status" aria-live="polite"></p>
${bodyOf(page, w, params, language)}
</main>
</body>
</html>`.text;
}
