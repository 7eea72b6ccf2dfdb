// The console's personal-data pages (docs/operators/personal-data.md): find a person, the
// export as a printable page, anonymize, and the register of requests. Their labels travel as
// JSON data; console-privacy.js fetches everything from the admin API's privacy routes and
// writes it with textContent.
import { type Html, html } from "./html.ts";
import type { Language } from "./i18n.ts";

export const PRIVACY_PAGES = ["privacy", "privacy-requests"] as const;
export type PrivacyPageName = (typeof PRIVACY_PAGES)[number];

const PT = {
  nav: "Dados pessoais",
  requests: "Solicitações de titulares",
  findTitle: "Dados pessoais de um titular (LGPD)",
  findIntro:
    "Encontre os leads de uma pessoa pelo e-mail (maiúsculas e minúsculas não importam) ou pelo telefone (só os dígitos contam, com ou sem +55 e o zero do DDD).",
  database: "Base de dados",
  email: "E-mail",
  phone: "Telefone",
  find: "Buscar",
  export: "Exportar (acesso e portabilidade)",
  download: "Baixar JSON",
  print: "Imprimir",
  anonymize: "Anonimizar",
  confirmAnonymize:
    "Anonimizar todos os leads encontrados? Nome, e-mail, telefone e mensagem serão apagados sem volta, e os parceiros que receberam os leads serão avisados (lead.anonymized).",
  anonymized: "Leads anonimizados:",
  found: "Leads encontrados:",
  none: "Nenhum lead encontrado.",
  lead: "Lead",
  createdBy: "Enviado por",
  readers: "Clientes que podem lê-lo",
  deliveries: "Entregas por webhook",
  exportTitle: "Relatório de dados pessoais",
  exportedAt: "Gerado em",
  kind: "Tipo",
  received: "Recebida em",
  due: "Prazo",
  status: "Situação",
  handledBy: "Responsável",
  overdue: "ATRASADA",
  register: "Registrar solicitação",
  complete: "Concluir",
  refuse: "Recusar",
  person: "Titular",
  digest: "resumo",
  kinds: {
    confirmation: "confirmação",
    access: "acesso",
    correction: "correção",
    anonymization: "anonimização",
    portability: "portabilidade",
    sharing: "compartilhamento",
  },
  statuses: { open: "aberta", completed: "concluída", refused: "recusada" },
  correct: "Corrigir um lead",
  correctIntro:
    "Preencha só o que muda. A correção vai para o feed de mudanças e para os parceiros que leem o lead (lead.updated).",
  name: "Nome",
  message: "Mensagem",
  save: "Salvar correção",
  saved: "Lead corrigido:",
};
type PrivacyWords = typeof PT;

const EN: PrivacyWords = {
  nav: "Personal data",
  requests: "Data subject requests",
  findTitle: "A person's personal data (LGPD)",
  findIntro:
    "Find a person's leads by e-mail (case does not matter) or by phone (only the digits count, with or without +55 and the area code's zero).",
  database: "Database",
  email: "E-mail",
  phone: "Phone",
  find: "Find",
  export: "Export (access and portability)",
  download: "Download JSON",
  print: "Print",
  anonymize: "Anonymize",
  confirmAnonymize:
    "Anonymize every lead found? Name, e-mail, phone and message are erased for good, and the partners that received the leads are told (lead.anonymized).",
  anonymized: "Leads anonymized:",
  found: "Leads found:",
  none: "No lead found.",
  lead: "Lead",
  createdBy: "Sent by",
  readers: "Clients that may read it",
  deliveries: "Webhook deliveries",
  exportTitle: "Personal data report",
  exportedAt: "Made at",
  kind: "Kind",
  received: "Received",
  due: "Due",
  status: "Status",
  handledBy: "Handled by",
  overdue: "OVERDUE",
  register: "Register a request",
  complete: "Complete",
  refuse: "Refuse",
  person: "Person",
  digest: "digest",
  kinds: {
    confirmation: "confirmation",
    access: "access",
    correction: "correction",
    anonymization: "anonymization",
    portability: "portability",
    sharing: "sharing",
  },
  statuses: { open: "open", completed: "completed", refused: "refused" },
  correct: "Correct a lead",
  correctIntro:
    "Fill in only what changes. The correction goes to the change feed and to the partners that read the lead (lead.updated).",
  name: "Name",
  message: "Message",
  save: "Save the correction",
  saved: "Lead corrected:",
};

export const PRIVACY_WORDS: Record<Language, PrivacyWords> = { "pt-BR": PT, en: EN };

/** The body of a personal-data page, made with pages.ts's escaping template `html`. */
export function privacyBody(page: PrivacyPageName, language: Language): Html {
  const w = PRIVACY_WORDS[language];
  const field = (id: string, label: string, input: Html): Html =>
    html`<div class="field"><label for="${id}">${label}</label>${input}</div>`;
  // The labels the script needs, as JSON in an attribute (escaped like every value).
  const wordsData = html`<div id="privacy-words" hidden data-words="${JSON.stringify(w)}"></div>`;
  const person = (
    prefix: string,
  ) => html`${field(`${prefix}-db`, w.database, html`<select id="${prefix}-db" name="database" data-fill="databases" required></select>`)}
${field(`${prefix}-email`, w.email, html`<input id="${prefix}-email" name="email" type="email" maxlength="254">`)}
${field(`${prefix}-phone`, w.phone, html`<input id="${prefix}-phone" name="phone" inputmode="tel" maxlength="40">`)}`;
  const assets = html`${wordsData}<link rel="stylesheet" href="/console/assets/console-privacy.css"><script src="/console/assets/console-privacy.js" defer></script>`;
  if (page === "privacy")
    return html`${assets}<h1>${w.findTitle}</h1>
<p class="no-print">${w.findIntro} <a href="/console/privacy/requests">${w.requests}</a></p>
<form id="privacy-form" class="no-print">
${person("pv")}
<button type="submit" name="action" value="find">${w.find}</button>
<button type="submit" name="action" value="export">${w.export}</button>
<button type="submit" name="action" value="anonymize" class="danger">${w.anonymize}</button>
</form>
<section id="privacy-found" hidden aria-labelledby="found-title"><h2 id="found-title">${w.found} <span id="found-count"></span></h2>
<table id="found-table"><thead><tr><th scope="col">Id</th><th scope="col">${w.email}</th><th scope="col">${w.phone}</th><th scope="col">${w.createdBy}</th><th scope="col">${w.received}</th></tr></thead><tbody></tbody></table>
<h3>${w.correct}</h3><p>${w.correctIntro}</p>
<form id="correct-form">
${field("cr-lead", w.lead, html`<select id="cr-lead" name="lead" required></select>`)}
${field("cr-name", w.name, html`<input id="cr-name" name="name" maxlength="200">`)}
${field("cr-email", w.email, html`<input id="cr-email" name="email" type="email" maxlength="254">`)}
${field("cr-phone", w.phone, html`<input id="cr-phone" name="phone" maxlength="40">`)}
${field("cr-message", w.message, html`<textarea id="cr-message" name="message" rows="3" maxlength="5000"></textarea>`)}
<button type="submit">${w.save}</button>
</form></section>
<section id="privacy-export" hidden aria-labelledby="export-title">
<h2 id="export-title">${w.exportTitle}</h2><p>${w.exportedAt} <span id="export-at"></span></p>
<p class="no-print"><button type="button" id="export-print">${w.print}</button> <a id="export-download" download="dados-pessoais.json">${w.download}</a></p>
<div id="export-leads"></div></section>`;
  return html`${assets}<h1>${w.requests}</h1>
<table id="requests-table"><thead><tr><th scope="col">#</th><th scope="col">${w.kind}</th><th scope="col">${w.database}</th><th scope="col">${w.person}</th><th scope="col">${w.received}</th><th scope="col">${w.due}</th><th scope="col">${w.status}</th><th scope="col">${w.handledBy}</th><th scope="col"><span class="visually-hidden">${w.complete}</span></th></tr></thead><tbody></tbody></table>
<h2>${w.register}</h2>
<form id="request-form">
${field("rq-kind", w.kind, html`<select id="rq-kind" name="kind">${Object.entries(w.kinds).map(([value, label]) => html`<option value="${value}">${label}</option>`)}</select>`)}
${person("rq")}
${field("rq-received", w.received, html`<input id="rq-received" name="receivedAt" type="date">`)}
<button type="submit">${w.register}</button>
</form>`;
}
