// One fictitious lead drawn from the seed's PRNG: a Brazilian contact, a Portuguese message, funnel state, and maybe a published property it asks about.
import type { LeadPriority, LeadSource, LeadStatus } from "../catalog/enums.ts";
import { CITIES, CITY_BY_NAME, type City } from "./cities.ts";
import {
  EMAIL_DOMAINS,
  FIRST_NAMES,
  LAST_NAMES,
  LEAD_PRIORITY_WEIGHTS,
  LEAD_SOURCE_WEIGHTS,
  LEAD_STATUS_WEIGHTS,
  LINKED_MESSAGES,
  OPEN_MESSAGES,
  TRAFFIC_ORIGINS,
  WANTED_TYPES,
} from "./people.ts";
import { isoInstant, type Prng, weightedItems, weightedKeys } from "./prng.ts";
import { gridCreatedMs, type Timeline } from "./timeline.ts";

export interface LeadRecord {
  id: string;
  name: string;
  email: string;
  phone: string;
  message: string;
  source: LeadSource;
  status: LeadStatus;
  priority: LeadPriority;
  propertyId: string | null;
  interestedPropertyTitle: string | null;
  interestedPropertyLink: string | null;
  trafficOrigin: string | null;
  /** The client that created the lead: none for a seeded one (NULL, counted as ''). */
  createdBy: null;
  createdAt: string;
  updatedAt: string;
}

/** What a lead needs to know of the published property it links to. */
export interface LinkTarget {
  id: string;
  code: string | null;
  title: string;
  city: string | null;
}

/** Chooses (with `rng`) a published property listed in the months up to `createdMs`; null when there is none. */
export type LinkFinder = (rng: Prng, createdMs: number) => LinkTarget | null;

const LINKED_SHARE = 0.4;
const DAY_MS = 86_400_000;
const LISTING_HOST = "https://imoveis.sandbox.partner-api.example/imovel";

const pickSource = weightedKeys(LEAD_SOURCE_WEIGHTS);
const pickStatus = weightedKeys(LEAD_STATUS_WEIGHTS);
const pickPriority = weightedKeys(LEAD_PRIORITY_WEIGHTS);
const pickCity = weightedItems(CITIES, (city) => city.weight);

/** E-mail local parts are plain ASCII: accents dropped once, here, rather than per lead. */
const ascii = new Map(
  [...FIRST_NAMES, ...LAST_NAMES].map((name) => [
    name,
    name
      .normalize("NFD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase(),
  ]),
);

function fullName(rng: Prng): { name: string; first: string; last: string } {
  const first = rng.pick(FIRST_NAMES);
  const last = rng.pick(LAST_NAMES);
  const middle = rng.chance(0.4) ? `${rng.pick(LAST_NAMES)} ` : "";
  return { name: `${first} ${middle}${last}`, first, last };
}

function email(rng: Prng, first: string, last: string): string {
  const f = ascii.get(first)!;
  const l = ascii.get(last)!;
  const local = [
    `${f}.${l}`,
    `${f}${l}`,
    `${f}_${l}`,
    `${f[0]}${l}`,
    `${f}.${l}${rng.int(1, 99)}`,
    `${f}${rng.int(1960, 2006)}`,
  ];
  return `${rng.pick(local)}@${rng.pick(EMAIL_DOMAINS)}`;
}

/** Brazilian mobile numbers: +55, the city's DDD, then 9XXXX-XXXX. */
function phone(rng: Prng, city: City): string {
  return `+55 ${city.ddd} 9${rng.int(6000, 9999)}-${String(rng.int(0, 9999)).padStart(4, "0")}`;
}

function openMessage(rng: Prng, city: City): string {
  return rng
    .pick(OPEN_MESSAGES)
    .replace("{type}", rng.pick(WANTED_TYPES))
    .replace("{neighborhood}", rng.pick(city.neighborhoods))
    .replace("{city}", city.name);
}

/** A new lead is untouched; the others moved along the funnel within a couple of months. */
function updatedMs(rng: Prng, status: LeadStatus, createdMs: number, endMs: number): number {
  if (status === "NEW_LEAD" && rng.chance(0.85)) return createdMs;
  return rng.instantBetween(createdMs, Math.min(endMs, createdMs + 60 * DAY_MS));
}

/** Lead `index` (0-based) of `count`; like properties, called in index order, which is creation and id order. */
export function generateLead(
  rng: Prng,
  index: number,
  count: number,
  timeline: Timeline,
  findLink: LinkFinder,
): LeadRecord {
  const id = rng.ascendingUuid(index, count);
  const createdMs = gridCreatedMs(rng, index, count, timeline);
  const link = rng.chance(LINKED_SHARE) ? findLink(rng, createdMs) : null;
  // Most people ask about homes in their own city; some are moving from elsewhere.
  const linkedCity = link?.city ? CITY_BY_NAME.get(link.city) : undefined;
  const city = linkedCity && rng.chance(0.8) ? linkedCity : pickCity(rng);
  const { name, first, last } = fullName(rng);
  const source = pickSource(rng);
  const status = pickStatus(rng);
  const origins = TRAFFIC_ORIGINS[source];
  return {
    id,
    name,
    email: email(rng, first, last),
    phone: phone(rng, city),
    message: link ? rng.pick(LINKED_MESSAGES).replace("{title}", link.title) : openMessage(rng, city),
    source,
    status,
    priority: pickPriority(rng),
    propertyId: link?.id ?? null,
    interestedPropertyTitle: link?.title ?? null,
    interestedPropertyLink: link && rng.chance(0.5) ? `${LISTING_HOST}/${link.code ?? link.id}` : null,
    trafficOrigin: origins && rng.chance(0.7) ? rng.pick(origins) : null,
    createdBy: null,
    createdAt: isoInstant(createdMs),
    updatedAt: isoInstant(updatedMs(rng, status, createdMs, timeline.endMs)),
  };
}
