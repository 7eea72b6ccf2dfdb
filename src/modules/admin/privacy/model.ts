// The bodies of the personal-data routes (docs/operators/personal-data.md): an anonymization's,
// and a correction's (PATCH /admin/v1/leads/{database}/{id}), checked as lead creation checks the same fields.
import { isEmail } from "../../../catalog/email.ts";
import { ApiError, type FieldProblem } from "../../../errors.ts";
import { type Subject, subjectOf } from "./identifiers.ts";
import type { Correction } from "./repo.ts";

/** Most leads one anonymization names by id. */
export const MAX_LEAD_IDS = 10_000;

/** POST /admin/v1/privacy/anonymize: `database` (checked by the route) and one of email, phone or leadIds. */
export function readAnonymization(body: Record<string, unknown>): { subject: Subject } | { leadIds: string[] } {
  const problems: FieldProblem[] = [];
  for (const key of Object.keys(body))
    if (!["database", "email", "phone", "leadIds"].includes(key))
      problems.push({ field: key, message: "is not a field of an anonymization" });
  const given = ["email", "phone", "leadIds"].filter((key) => body[key] !== undefined);
  if (given.length !== 1) problems.push({ field: "email", message: "give exactly one of email, phone or leadIds" });
  const leadIds = body.leadIds;
  if (
    leadIds !== undefined &&
    (!Array.isArray(leadIds) ||
      leadIds.length === 0 ||
      leadIds.length > MAX_LEAD_IDS ||
      !leadIds.every((id) => typeof id === "string" && id.length > 0 && id.length <= 64))
  )
    problems.push({ field: "leadIds", message: `must be a non-empty array of at most ${MAX_LEAD_IDS} lead ids` });
  if (body.email !== undefined && (typeof body.email !== "string" || subjectOf(body.email, undefined) === null))
    problems.push({ field: "email", message: "must be an e-mail address" });
  if (body.phone !== undefined && (typeof body.phone !== "string" || subjectOf(undefined, body.phone) === null))
    problems.push({ field: "phone", message: "must be a phone number" });
  if (problems.length > 0) throw ApiError.validation(problems);
  return leadIds !== undefined ? { leadIds: leadIds as string[] } : { subject: subjectOf(body.email, body.phone)! };
}

const LIMITS = { name: 200, email: 254, phone: 40, message: 5000 } as const;
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]|\r(?!\n)/;

export function readCorrection(body: Record<string, unknown>): Correction {
  const problems: FieldProblem[] = [];
  const out: Correction = {};
  for (const key of Object.keys(body))
    if (!(key in LIMITS))
      problems.push({ field: key, message: "is not a field a correction changes (name, email, phone, message)" });
  for (const field of Object.keys(LIMITS) as (keyof typeof LIMITS)[]) {
    const value = body[field];
    if (value === undefined) continue;
    if (typeof value !== "string") {
      problems.push({ field, message: "must be a string" });
      continue;
    }
    const trimmed = value.trim();
    if (!trimmed.isWellFormed() || CONTROL.test(trimmed))
      problems.push({ field, message: "must be text without control characters" });
    else if (trimmed === "") problems.push({ field, message: "must not be empty" });
    else if (field === "email" ? !isEmail(trimmed) : trimmed.length > LIMITS[field])
      problems.push({
        field,
        message: field === "email" ? "must be a valid e-mail address" : `must be at most ${LIMITS[field]} characters`,
      });
    else out[field] = trimmed;
  }
  if (problems.length === 0 && Object.keys(out).length === 0)
    problems.push({ field: "name", message: "give at least one of name, email, phone, message" });
  if (problems.length > 0) throw ApiError.validation(problems);
  return out;
}
