// The lead creation body: its TypeBox schema (documentation and types) and the validation
// that trims strings and names every failed field in words for a partner developer.
import { Type as T, type TString } from "@sinclair/typebox";
import { EMAIL_FORMAT, isEmail } from "../../catalog/email.ts";
import { LEAD_PRIORITIES, LEAD_SOURCES, LEAD_STATUSES } from "../../catalog/enums.ts";
import { ApiError, type FieldProblem } from "../../errors.ts";

const text = (min: number, max: number, description: string, examples: string[]) =>
  T.String({ minLength: min, maxLength: max, description, examples });

export const LeadInputSchema = T.Object(
  {
    name: text(1, 200, "Contact name", ["Maria Oliveira"]),
    email: T.String({
      format: EMAIL_FORMAT,
      maxLength: 254,
      description: "Contact e-mail",
      examples: ["maria.oliveira@example.com"],
    }),
    phone: text(1, 40, "Contact phone", ["+55 11 98765-4321"]),
    message: text(1, 5000, "Message from the contact", ["Gostaria de agendar uma visita."]),
    source: T.Optional(
      T.Union(
        LEAD_SOURCES.map((s) => T.Literal(s)),
        { description: "Where the lead came from (default API)", default: "API" },
      ),
    ),
    propertyCode: T.Optional(
      text(0, 100, "Code of the property to link (a published property of yours)", ["AP-000123"]),
    ),
    interestedPropertyTitle: T.Optional(
      text(0, 300, "Title of the property of interest (kept as given)", ["Apartamento 2 quartos"]),
    ),
    interestedPropertyLink: T.Optional(
      text(0, 2048, "Link to the property (stored, not readable)", ["https://example.com/imovel/123"]),
    ),
    trafficOrigin: T.Optional(
      text(0, 500, "Traffic origin: UTM, campaign (stored, not readable)", ["utm_source=google&utm_campaign=verao"]),
    ),
  },
  {
    additionalProperties: true,
    description:
      "Strings are trimmed. NUL and the other C0 control characters are refused (a carriage return only as part of CRLF); " +
      "tab and line breaks are kept, as is every other character. Unknown and read-only keys are ignored",
  },
);

/** A validated body: strings trimmed, empty optional text as null, source defaulted. */
export type LeadInput = {
  name: string;
  email: string;
  phone: string;
  message: string;
  source: (typeof LEAD_SOURCES)[number];
  propertyCode: string | null;
  interestedPropertyTitle: string | null;
  interestedPropertyLink: string | null;
  trafficOrigin: string | null;
};

const REQUIRED = ["name", "email", "phone", "message"] as const;
/**
 * JSON may carry lone surrogates (`"\ud800"`); SQLite would store U+FFFD instead, so the 201
 * and the stored lead would differ. Refused rather than silently altered.
 */
const NOT_UNICODE = "must be valid Unicode text (no unpaired surrogates)";
const OPTIONAL_TEXT = ["propertyCode", "interestedPropertyTitle", "interestedPropertyLink", "trafficOrigin"] as const;
/**
 * NUL and the C0 controls other than tab and line breaks (LF, and the CR of a form's CRLF):
 * never meant in a lead, and each a way to break a CRM's import or a log line downstream.
 * Everything else (C1 controls, bidirectional marks) is text someone may mean and is kept.
 */
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]|\r(?!\n)/;
const HAS_CONTROL = "must not contain control characters (tab and line breaks are allowed)";

/** Why a string cannot be stored as sent, or null when it can. */
function unstorable(value: string): string | null {
  if (!value.isWellFormed()) return NOT_UNICODE;
  if (CONTROL.test(value)) return HAS_CONTROL;
  return null;
}

function lengthMessage(schema: TString): string {
  const min = schema.minLength ?? 0;
  return min > 0
    ? `must be between ${min} and ${schema.maxLength} characters`
    : `must be at most ${schema.maxLength} characters`;
}

/** Validates and normalises a parsed body; throws VALIDATION_ERROR listing every failed field. */
export function validateLeadInput(body: Record<string, unknown>): LeadInput {
  const problems: FieldProblem[] = [];
  const out: Record<string, string | null> = {};
  const props = LeadInputSchema.properties as unknown as Record<string, TString>;

  for (const field of REQUIRED) {
    const value = body[field];
    if (value === undefined || value === null) {
      problems.push({ field, message: "is required" });
    } else if (typeof value !== "string") {
      problems.push({ field, message: "must be a string" });
    } else if (unstorable(value) !== null) {
      problems.push({ field, message: unstorable(value)! });
    } else {
      const trimmed = value.trim();
      if (trimmed === "") problems.push({ field, message: "is required" });
      else if (field === "email" ? !isEmail(trimmed) : trimmed.length > props[field]!.maxLength!) {
        problems.push({
          field,
          message: field === "email" ? "must be a valid e-mail address" : lengthMessage(props[field]!),
        });
      } else out[field] = trimmed;
    }
  }

  for (const field of OPTIONAL_TEXT) {
    const value = body[field];
    if (value === undefined || value === null) out[field] = null;
    else if (typeof value !== "string") problems.push({ field, message: "must be a string" });
    else if (unstorable(value) !== null) problems.push({ field, message: unstorable(value)! });
    else {
      const trimmed = value.trim();
      if (trimmed.length > props[field]!.maxLength!) problems.push({ field, message: lengthMessage(props[field]!) });
      else out[field] = trimmed === "" ? null : trimmed;
    }
  }

  const source = body.source;
  if (source === undefined || source === null) out.source = "API";
  else if (typeof source !== "string" || !(LEAD_SOURCES as readonly string[]).includes(source)) {
    problems.push({ field: "source", message: `must be one of: ${LEAD_SOURCES.join(", ")}` });
  } else out.source = source;

  if (problems.length > 0) throw ApiError.validation(problems);
  return out as unknown as LeadInput;
}

/** The body of PATCH /v1/leads/{id}: where the agency's CRM moves a lead along the funnel. */
export const LeadPatchSchema = T.Object(
  {
    status: T.Optional(
      T.Union(
        LEAD_STATUSES.map((s) => T.Literal(s)),
        { description: "New position in the sales funnel: any status to any other", examples: ["IN_SERVICE"] },
      ),
    ),
    priority: T.Optional(
      T.Union(
        LEAD_PRIORITIES.map((p) => T.Literal(p)),
        { description: "New priority", examples: ["HIGH"] },
      ),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description: "At least one of status and priority; no other key can be changed",
  },
);

export type LeadPatch = {
  status?: (typeof LEAD_STATUSES)[number];
  priority?: (typeof LEAD_PRIORITIES)[number];
};

/** Validates a PATCH body; throws VALIDATION_ERROR naming every key that cannot be changed and every bad value. */
export function validateLeadPatch(body: Record<string, unknown>): LeadPatch {
  const problems: FieldProblem[] = [];
  const patch: LeadPatch = {};
  for (const key of Object.keys(body)) {
    if (key !== "status" && key !== "priority") problems.push({ field: key, message: "cannot be changed" });
  }
  const enumField = <V extends string>(field: "status" | "priority", values: readonly V[]): V | undefined => {
    const value = body[field];
    if (value === undefined) return undefined;
    if (typeof value === "string" && (values as readonly string[]).includes(value)) return value as V;
    problems.push({ field, message: `must be one of: ${values.join(", ")}` });
    return undefined;
  };
  const status = enumField("status", LEAD_STATUSES);
  const priority = enumField("priority", LEAD_PRIORITIES);
  if (status !== undefined) patch.status = status;
  if (priority !== undefined) patch.priority = priority;
  if (problems.length === 0 && body.status === undefined && body.priority === undefined) {
    problems.push({ field: "body", message: "must give status or priority" });
  }
  if (problems.length > 0) throw ApiError.validation(problems);
  return patch;
}

const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

/** The Idempotency-Key header, validated; null when absent. */
export function parseIdempotencyKey(header: string | null): string | null {
  if (header === null) return null;
  if (!IDEMPOTENCY_KEY.test(header)) {
    throw ApiError.validation([{ field: "Idempotency-Key", message: "must be 1 to 255 printable ASCII characters" }]);
  }
  return header;
}
