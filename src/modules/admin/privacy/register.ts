// The register of personal-data requests (docs/operators/personal-data.md): what a person
// asked, when, by when the answer is due (15 days), who handles it, and how it ended. While a
// request is open it names the person (an e-mail or a phone, so it can be answered); once it is
// completed or refused only a digest of that stays, and the control database's WAL is cut so the
// identifier leaves no byte behind.
import type { ControlStore } from "../../../db/control/store.ts";
import { ApiError, type FieldProblem } from "../../../errors.ts";
import { foldEmail, foldPhone, type Subject, subjectHash } from "./identifiers.ts";

export const REQUEST_KINDS = [
  "confirmation",
  "access",
  "correction",
  "anonymization",
  "portability",
  "sharing",
] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];
export const REQUEST_STATUSES = ["open", "completed", "refused"] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

/** Art. 19: a complete answer within 15 days of the request. */
export const ANSWER_WITHIN_MS = 15 * 24 * 3600_000;

interface Row {
  id: number;
  kind: RequestKind;
  database: string;
  received_at: number;
  due_at: number;
  status: RequestStatus;
  handled_by: string | null;
  completed_at: number | null;
  email: string | null;
  phone: string | null;
  subject_hash: string;
  created_by: string;
  updated_at: number;
}

/** A request as the admin API shows it. */
export interface PrivacyRequest {
  id: number;
  kind: RequestKind;
  database: string;
  receivedAt: string;
  dueAt: string;
  status: RequestStatus;
  /** Open past its deadline. */
  overdue: boolean;
  handledBy: string | null;
  completedAt: string | null;
  /** The person's identifiers while the request is open; null once it is closed. */
  email: string | null;
  phone: string | null;
  subjectHash: string;
  createdBy: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

function view(row: Row, now: number): PrivacyRequest {
  return {
    id: row.id,
    kind: row.kind,
    database: row.database,
    receivedAt: iso(row.received_at),
    dueAt: iso(row.due_at),
    status: row.status,
    overdue: row.status === "open" && row.due_at < now,
    handledBy: row.handled_by,
    completedAt: row.completed_at === null ? null : iso(row.completed_at),
    email: row.email,
    phone: row.phone,
    subjectHash: row.subject_hash,
    createdBy: row.created_by,
  };
}

/** Every request of these databases (all when `databases` is empty): open ones first, the most urgent first; then the rest, newest first. */
export function listRequests(store: ControlStore, databases: readonly string[], now: number): PrivacyRequest[] {
  return store.db
    .query<Row, []>(
      "SELECT * FROM privacy_requests ORDER BY status = 'open' DESC, CASE WHEN status = 'open' THEN due_at END, received_at DESC, id DESC",
    )
    .all()
    .filter((row) => databases.length === 0 || databases.includes(row.database))
    .map((row) => view(row, now));
}

export function getRequest(store: ControlStore, id: number, now: number): PrivacyRequest | null {
  const row = store.db.query<Row, [number]>("SELECT * FROM privacy_requests WHERE id = ?").get(id);
  return row === null ? null : view(row, now);
}

/** The body of POST /admin/v1/privacy/requests, checked; `database` is checked by the caller. */
export function readNewRequest(body: Record<string, unknown>, now: number) {
  const problems: FieldProblem[] = [];
  for (const key of Object.keys(body))
    if (!["kind", "database", "email", "phone", "receivedAt"].includes(key))
      problems.push({ field: key, message: "is not a field of a request" });
  const kind = body.kind;
  if (typeof kind !== "string" || !(REQUEST_KINDS as readonly string[]).includes(kind))
    problems.push({ field: "kind", message: `must be one of ${REQUEST_KINDS.join(", ")}` });
  const email = typeof body.email === "string" ? body.email.trim() : undefined;
  const phone = typeof body.phone === "string" ? body.phone.trim() : undefined;
  if (body.email !== undefined && (email === undefined || !email.includes("@") || email.length > 254))
    problems.push({ field: "email", message: "must be an e-mail address" });
  if (body.phone !== undefined && (phone === undefined || foldPhone(phone).length < 8 || phone.length > 40))
    problems.push({ field: "phone", message: "must be a phone number with its area code" });
  if (body.email === undefined && body.phone === undefined)
    problems.push({ field: "email", message: "is required, or phone: the person the request is about" });
  let receivedAt = now;
  if (body.receivedAt !== undefined) {
    const at = typeof body.receivedAt === "string" ? Date.parse(body.receivedAt) : Number.NaN;
    if (Number.isNaN(at) || at > now) problems.push({ field: "receivedAt", message: "must be a past ISO 8601 time" });
    else receivedAt = at;
  }
  if (problems.length > 0) throw ApiError.validation(problems);
  return { kind: kind as RequestKind, email: email ?? null, phone: phone ?? null, receivedAt };
}

export function createRequest(
  store: ControlStore,
  request: { kind: RequestKind; database: string; email: string | null; phone: string | null; receivedAt: number },
  actor: string,
  now: number,
): PrivacyRequest {
  const subject: Subject = request.email !== null ? { email: request.email } : { phone: request.phone! };
  const row = store.db
    .query<Row, [string, string, number, number, string | null, string | null, string, string, number]>(
      "INSERT INTO privacy_requests (kind, database, received_at, due_at, status, email, phone, subject_hash, created_by, updated_at) " +
        "VALUES (?, ?, ?, ?, 'open', ?, ?, ?, ?, ?) RETURNING *",
    )
    .get(
      request.kind,
      request.database,
      request.receivedAt,
      request.receivedAt + ANSWER_WITHIN_MS,
      request.email === null ? null : foldEmail(request.email),
      request.phone,
      subjectHash(subject),
      actor,
      now,
    )!;
  return view(row, now);
}

/** The body of PATCH /admin/v1/privacy/requests/{id}: `status` and/or `handledBy`. */
export function readRequestPatch(body: Record<string, unknown>) {
  const problems: FieldProblem[] = [];
  for (const key of Object.keys(body))
    if (!["status", "handledBy"].includes(key)) problems.push({ field: key, message: "is not a field you can change" });
  const status = body.status;
  if (status !== undefined && (typeof status !== "string" || !(REQUEST_STATUSES as readonly string[]).includes(status)))
    problems.push({ field: "status", message: `must be one of ${REQUEST_STATUSES.join(", ")}` });
  const handledBy = body.handledBy;
  if (handledBy !== undefined && handledBy !== null && (typeof handledBy !== "string" || handledBy.length > 200))
    problems.push({ field: "handledBy", message: "must be a name of at most 200 characters, or null" });
  if (status === undefined && handledBy === undefined)
    problems.push({ field: "status", message: "is required, or handledBy" });
  if (problems.length > 0) throw ApiError.validation(problems);
  return { status: status as RequestStatus | undefined, handledBy: handledBy as string | null | undefined };
}

/**
 * Changes a request. Closing it (completed or refused) drops the identifiers for good: the row
 * keeps their digest, and the WAL is cut (the caller awaits nothing: a reader on an old snapshot
 * only delays it to the checkpoint that follows). A closed request is never reopened: its person
 * is no longer known.
 */
export function updateRequest(
  store: ControlStore,
  id: number,
  patch: { status?: RequestStatus | undefined; handledBy?: string | null | undefined },
  actor: string,
  now: number,
): PrivacyRequest | null {
  const current = store.db.query<Row, [number]>("SELECT * FROM privacy_requests WHERE id = ?").get(id);
  if (current === null) return null;
  if (current.status !== "open" && patch.status !== undefined && patch.status !== current.status)
    throw new ApiError("REQUEST_CLOSED");
  const status = patch.status ?? current.status;
  const closing = current.status === "open" && status !== "open";
  const handledBy = patch.handledBy === undefined ? (current.handled_by ?? (closing ? actor : null)) : patch.handledBy;
  store.db
    .query<unknown, [string, string | null, number | null, number, number, number]>(
      "UPDATE privacy_requests SET status = ?, handled_by = ?, completed_at = ?, updated_at = ?, " +
        "email = CASE WHEN ?5 THEN NULL ELSE email END, phone = CASE WHEN ?5 THEN NULL ELSE phone END WHERE id = ?6",
    )
    .run(status, handledBy, closing ? now : current.completed_at, now, closing ? 1 : 0, id);
  if (closing) clearControlWal(store);
  return getRequest(store, id, now);
}

/** Copies the control database's WAL back and cuts it to nothing; false when a reader held it back. */
export function clearControlWal(store: ControlStore): boolean {
  try {
    const result = store.db.query<{ busy: number }, []>("PRAGMA wal_checkpoint(TRUNCATE)").get();
    return result !== null && result.busy === 0;
  } catch {
    return false;
  }
}
