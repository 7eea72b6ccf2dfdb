// What a partner does in one iteration: the shared traffic model of every scenario.
// Weights follow how partners use the API: portals and websites mostly read listings (cheap
// cards far more than full records), CRMs read leads by status, forms post a few leads, and
// syncing partners poll the change feed.
import { sleep } from "k6";
import { createLead, listChanges, listLeads, listProperties } from "./api.js";
import { currentToken, obtainToken } from "./auth.js";
import {
  LEAD_ALL,
  LEAD_FEW,
  LEAD_SOURCES,
  LEAD_STATUSES,
  PROPERTY_ALL,
  PROPERTY_FEW,
  PROPERTY_STATUSES,
} from "./fields.js";

/**
 * @typedef {{ session: import("./auth.js").Session, propertyCodes: string[], syncPoints: string[] }} RunData
 */

/**
 * Shared setup(): a token for every VU to start with, real property codes so created leads
 * link to listings the way portal leads do, and `updatedAt` instants of the newest listings to
 * serve as a partner's "last sync" in updatedAfter filters. Taken from the data rather than
 * the clock, so the filters select something whatever the dataset's dates.
 * @returns {RunData}
 */
export function prepareRun() {
  const session = obtainToken();
  const body = listProperties(session.token, { fields: ["code", "updatedAt"], limit: 100, variant: "setup" });
  /** @type {any[]} */
  const rows = body !== null && Array.isArray(body.data) ? body.data : [];
  /** @param {string} field @returns {string[]} */
  const strings = (field) => rows.map((row) => row[field]).filter((value) => typeof value === "string");
  return { session, propertyCodes: strings("code"), syncPoints: strings("updatedAt") };
}

/** @template T @param {T[]} items @returns {T} */
function pick(items) {
  return /** @type {T} */ (items[Math.floor(Math.random() * items.length)]);
}

/** @param {number} min @param {number} max inclusive */
function between(min, max) {
  return min + Math.floor(Math.random() * (max - min + 1));
}

/** @param {string} token */
function browseListings(token) {
  listProperties(token, { fields: PROPERTY_FEW, page: between(1, 10), limit: 20, variant: "few_fields" });
}

/** @param {string} token */
function readFullListings(token) {
  listProperties(token, { fields: PROPERTY_ALL, page: between(1, 5), limit: 50, variant: "all_fields" });
}

/** @param {string} token @param {RunData} data */
function filterListings(token, data) {
  // Mostly what is on the market and changed since the last sync: a portal's incremental refresh.
  const status = Math.random() < 0.7 ? "AVAILABLE" : pick(PROPERTY_STATUSES);
  const updatedAfter = data.syncPoints.length > 0 ? pick(data.syncPoints) : undefined;
  listProperties(token, { fields: [...PROPERTY_FEW, "status"], status, updatedAfter, variant: "filtered" });
}

// Per-VU crawl position: a partner pages through the whole catalogue, 100 at a time.
let crawlPage = 1;

/** @param {string} token */
function crawlListings(token) {
  const body = listProperties(token, {
    fields: ["id", "code", "updatedAt"],
    page: crawlPage,
    limit: 100,
    variant: "paging",
  });
  const totalPages = body !== null && body.meta ? body.meta.totalPages : 0;
  crawlPage = crawlPage >= totalPages ? 1 : crawlPage + 1;
}

/** @param {string} token */
function reviewLeads(token) {
  const fields = Math.random() < 0.7 ? LEAD_FEW : LEAD_ALL;
  listLeads(token, { fields, status: pick(LEAD_STATUSES), limit: 20, variant: "by_status" });
}

const FIRST_NAMES = ["Ana", "Bruno", "Carla", "Diego", "Fernanda", "Gabriel", "Juliana", "Lucas", "Mariana", "Rafael"];
const LAST_NAMES = ["Silva", "Santos", "Oliveira", "Souza", "Lima", "Pereira", "Costa", "Almeida"];
const MESSAGES = [
  "Olá, gostaria de agendar uma visita.",
  "Este imóvel ainda está disponível?",
  "Aceita financiamento? Qual o valor do condomínio?",
  "Tenho interesse, por favor me liguem.",
];

/** @param {string} token @param {string[]} propertyCodes */
function submitLead(token, propertyCodes) {
  const first = pick(FIRST_NAMES);
  const last = pick(LAST_NAMES);
  // Unique per VU and iteration, so leads created by a run are easy to find and delete.
  const unique = `${__VU}-${__ITER}-${Date.now()}-${between(0, 1e6)}`;
  /** @type {import("./api.js").NewLead} */
  const lead = {
    name: `${first} ${last}`,
    email: `loadtest+${unique}@example.com`,
    phone: `+55 11 9${between(1000, 9999)}-${between(1000, 9999)}`,
    message: pick(MESSAGES),
    source: pick(LEAD_SOURCES),
  };
  // Most portal leads come from a listing page.
  if (propertyCodes.length > 0 && Math.random() < 0.7) lead.propertyCode = pick(propertyCodes);
  createLead(token, lead, `loadtest-${unique}`);
}

// Per-VU feed cursor: a syncing partner stores nextAfter and asks again from there.
/** @type {Record<string, number>} */
const feedCursor = { properties: 0, leads: 0 };

/** @param {string} token */
function followChanges(token) {
  const entity = Math.random() < 0.7 ? "properties" : "leads";
  const body = listChanges(token, { entity, after: feedCursor[entity] ?? 0, limit: 100 });
  if (body !== null && body.meta && Number.isInteger(body.meta.nextAfter)) feedCursor[entity] = body.meta.nextAfter;
}

/** @type {Array<[number, (token: string, data: RunData) => void]>} */
const MIX = [
  [30, browseListings],
  [12, readFullListings],
  [15, filterListings],
  [8, crawlListings],
  [17, reviewLeads],
  [10, (token, data) => submitLead(token, data.propertyCodes)],
  [8, followChanges],
];
const MIX_TOTAL = MIX.reduce((sum, [weight]) => sum + weight, 0);

/**
 * One partner request drawn from MIX by weight.
 * @param {RunData} data
 */
export function partnerIteration(data) {
  const token = currentToken(data.session);
  let roll = Math.random() * MIX_TOTAL;
  for (const [weight, action] of MIX) {
    roll -= weight;
    if (roll < 0) return action(token, data);
  }
}

/**
 * Every kind of call once: the smoke test's iteration, and proof that each helper works.
 * @param {RunData} data
 */
export function everyCallOnce(data) {
  const token = currentToken(data.session);
  for (const [, action] of MIX) action(token, data);
}

/** A user's pause between calls; closed-model (VU) scenarios only, arrival-rate ones pace themselves. */
export function thinkTime() {
  sleep(0.5 + Math.random() * 1.5);
}
