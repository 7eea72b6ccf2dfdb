// The body of a correction (PATCH /admin/v1/leads/{database}/{id}), checked as lead creation checks the same fields.
import { isEmail } from "../../catalog/email.ts";
import { ApiError, type FieldProblem } from "../../errors.ts";
import type { Correction } from "./repo.ts";

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
