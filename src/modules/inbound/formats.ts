// The one lenient reading of a portal's lead post (docs/operators/portal-leads.md): Grupo ZAP's
// and Chaves na Mão's JSON, as real senders write it, into the lead POST /v1/leads would store.
// A lead is refused only when it cannot be one (no name, or neither an e-mail nor a phone);
// everything else it cannot take as written becomes a warning naming the field: a missing or
// malformed e-mail and a missing message are stored empty, text is cleaned and cut to the limits
// of POST /v1/leads, numbers are read as text, unknown keys are ignored.

import { isEmail } from "../../catalog/email.ts";
import type { LeadPriority, LeadSource } from "../../catalog/enums.ts";
import type { InboundFormat } from "../../config/schema.ts";
import { ApiError, type FieldProblem } from "../../errors.ts";
import type { LeadInput } from "../leads/model.ts";
import type { PortalExtras } from "../leads/repo.ts";

/** The limits of POST /v1/leads (docs: creating a lead), in UTF-16 units as there. */
const LIMITS = {
  name: 200,
  email: 254,
  phone: 40,
  message: 5000,
  propertyCode: 100,
  interestedPropertyTitle: 300,
  interestedPropertyLink: 2048,
  trafficOrigin: 500,
} as const;
/** A portal's lead id longer than this is not an id anyone means: the lead is kept, without one. */
const MAX_ORIGIN_ID = 255;

/** Something of the post taken otherwise than written: logged with the lead. */
export interface InboundWarning {
  field: string;
  message: string;
}

/** A portal's lead, read: what to store, its portal extras, and what was taken otherwise than written. */
export interface InboundLead {
  input: LeadInput;
  portal: PortalExtras;
  warnings: InboundWarning[];
}

/** Tab and line breaks stay; the other C0 controls (and a CR outside CRLF) are nothing anyone typed. */
const CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g;
const LONE_CR = /\r(?!\n)/g;
const HAS_CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]|\r(?!\n)/;

/** Reads and cleans a text value; null when absent or empty. */
class Reader {
  readonly warnings: InboundWarning[] = [];

  warn(field: string, message: string): void {
    this.warnings.push({ field, message });
  }

  /** A string or a number as trimmed text, null for anything else (warned unless absent or null). */
  raw(field: string, value: unknown): string | null {
    if (value === undefined || value === null) return null;
    let text: string;
    if (typeof value === "string") text = value;
    else if (typeof value === "number" && Number.isFinite(value)) text = String(value);
    else if (typeof value === "bigint") text = String(value);
    else {
      this.warn(field, `not text (${Array.isArray(value) ? "an array" : typeof value}): ignored`);
      return null;
    }
    if (!text.isWellFormed()) {
      text = text.toWellFormed();
      this.warn(field, "unpaired surrogates replaced by U+FFFD");
    }
    if (HAS_CONTROL.test(text)) {
      text = text.replace(CONTROLS, "").replace(LONE_CR, "\n");
      this.warn(field, "control characters removed");
    }
    text = text.trim();
    return text === "" ? null : text;
  }

  /** Text cut to `max` characters (never inside a surrogate pair). */
  text(field: string, value: unknown, max: number): string | null {
    return this.cut(field, this.raw(field, value), max);
  }

  cut(field: string, text: string | null, max: number): string | null {
    if (text === null || text.length <= max) return text;
    let end = max;
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end--;
    this.warn(field, `longer than ${max} characters: cut`);
    return text.slice(0, end).trimEnd();
  }
}

/** Lower case, no accents, letters and digits only: `Zap Imóveis` → `zapimoveis`. */
export function folded(text: string): string {
  return text
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "");
}

const SOURCES: Record<string, LeadSource> = {
  vivareal: "PORTAL_VIVAREAL",
  zap: "PORTAL_ZAPIMOVEIS",
  zapimoveis: "PORTAL_ZAPIMOVEIS",
  olx: "PORTAL_OLX",
  grupoolx: "PORTAL_OLX",
};

/** Grupo ZAP's `leadOrigin` as a lead source; anything else is the generic PORTAL. */
export function sourceOfLeadOrigin(leadOrigin: string | null): LeadSource {
  return leadOrigin === null ? "PORTAL" : (SOURCES[folded(leadOrigin)] ?? "PORTAL");
}

const PRIORITIES: Record<string, LeadPriority> = { alta: "HIGH", media: "MEDIUM", baixa: "LOW" };

/** Grupo ZAP's `temperature` as a priority: Alta, Média, Baixa; anything else MEDIUM. */
export function priorityOfTemperature(temperature: string | null): LeadPriority | null {
  return temperature === null ? null : (PRIORITIES[folded(temperature)] ?? null);
}

function objectAt(value: unknown): Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** What both formats share once their fields are picked: the checks and the defaults. */
interface Picked {
  name: string | null;
  email: string | null;
  phone: string | null;
  message: string | null;
  source: LeadSource;
  priority: LeadPriority;
  originLeadId: string | null;
  propertyCode: string | null;
  titleIfUnlinked: string | null;
  interestedPropertyLink: string | null;
  trafficOrigin: string | null;
}

function grupoZap(body: Record<string, unknown>, read: Reader): Picked {
  const leadOrigin = read.raw("leadOrigin", body.leadOrigin);
  const originLeadId = read.raw("originLeadId", body.originLeadId);
  const originListingId = read.raw("originListingId", body.originListingId);
  const ddd = read.raw("ddd", body.ddd);
  const number = read.raw("phone", body.phone);
  let phone: string | null = null;
  if (number !== null) phone = ddd === null ? number : `(${ddd}) ${number}`;
  else phone = read.raw("phoneNumber", body.phoneNumber);
  const temperature = read.raw("temperature", body.temperature);
  const priority = priorityOfTemperature(temperature);
  if (temperature !== null && priority === null)
    read.warn("temperature", `"${temperature.slice(0, 40)}" is not Alta, Média or Baixa: priority MEDIUM`);
  const traffic =
    originLeadId === null
      ? null
      : `${leadOrigin ?? "Grupo ZAP"} lead ${originLeadId}${originListingId === null ? "" : `, listing ${originListingId}`}`;
  return {
    name: read.raw("name", body.name),
    email: read.raw("email", body.email),
    phone,
    message: read.raw("message", body.message),
    source: sourceOfLeadOrigin(leadOrigin),
    priority: priority ?? "MEDIUM",
    originLeadId,
    propertyCode: read.raw("clientListingId", body.clientListingId),
    titleIfUnlinked: null,
    interestedPropertyLink: null,
    trafficOrigin: traffic,
  };
}

function chavesNaMao(body: Record<string, unknown>, read: Reader): Picked {
  const ad = objectAt(body.ad);
  return {
    name: read.raw("name", body.name),
    email: read.raw("email", body.email),
    phone: read.raw("phone", body.phone),
    message: read.raw("message", body.message),
    source: "PORTAL_CHAVESNAMAO",
    priority: "MEDIUM",
    originLeadId: read.raw("id", body.id),
    propertyCode: read.raw("ad.reference", ad.reference),
    titleIfUnlinked: read.raw("ad.title", ad.title),
    interestedPropertyLink: read.raw("ad.url", ad.url),
    trafficOrigin: read.raw("proposeTypeName", body.proposeTypeName),
  };
}

/**
 * Reads a portal's post in `format`; throws VALIDATION_ERROR naming the fields only when it
 * cannot be a lead. The warnings say what was taken otherwise than written.
 */
export function readInboundLead(format: InboundFormat, body: Record<string, unknown>): InboundLead {
  const read = new Reader();
  const picked = format === "grupozap" ? grupoZap(body, read) : chavesNaMao(body, read);

  const problems: FieldProblem[] = [];
  if (picked.name === null) problems.push({ field: "name", message: "is required" });
  const email = picked.email !== null && isEmail(picked.email) ? picked.email : null;
  const phone = read.cut("phone", picked.phone, LIMITS.phone);
  if (email === null && phone === null) {
    problems.push(
      {
        field: "email",
        message:
          picked.email === null
            ? "is required when there is no phone"
            : "must be a valid e-mail address when there is no phone",
      },
      { field: "phone", message: "is required when there is no e-mail" },
    );
  }
  if (problems.length > 0) throw ApiError.validation(problems);

  if (picked.email === null) read.warn("email", "missing: stored empty");
  else if (email === null) read.warn("email", "not an e-mail address: stored empty");
  if (picked.message === null) read.warn("message", "missing: stored empty");
  let originLeadId = picked.originLeadId;
  if (originLeadId === null)
    read.warn(
      format === "grupozap" ? "originLeadId" : "id",
      "missing: a resend of this lead cannot be told from a new one",
    );
  else if (originLeadId.length > MAX_ORIGIN_ID) {
    read.warn(
      format === "grupozap" ? "originLeadId" : "id",
      `longer than ${MAX_ORIGIN_ID} characters: not kept, so a resend cannot be told from a new one`,
    );
    originLeadId = null;
  }
  let propertyCode = picked.propertyCode;
  if (propertyCode !== null && propertyCode.length > LIMITS.propertyCode) {
    // Cut, it could name another property: no code that long is stored.
    read.warn(
      format === "grupozap" ? "clientListingId" : "ad.reference",
      `longer than ${LIMITS.propertyCode} characters: links no property`,
    );
    propertyCode = null;
  }

  return {
    input: {
      name: read.cut("name", picked.name, LIMITS.name)!,
      email: email ?? "",
      phone: phone ?? "",
      message: read.cut("message", picked.message, LIMITS.message) ?? "",
      source: picked.source,
      propertyCode,
      interestedPropertyTitle: null,
      interestedPropertyLink: read.cut(
        format === "grupozap" ? "link" : "ad.url",
        picked.interestedPropertyLink,
        LIMITS.interestedPropertyLink,
      ),
      trafficOrigin: read.cut(
        format === "grupozap" ? "trafficOrigin" : "proposeTypeName",
        picked.trafficOrigin,
        LIMITS.trafficOrigin,
      ),
    },
    portal: {
      priority: picked.priority,
      originLeadId,
      titleIfUnlinked: read.cut("ad.title", picked.titleIfUnlinked, LIMITS.interestedPropertyTitle),
    },
    warnings: read.warnings,
  };
}
