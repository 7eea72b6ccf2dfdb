// The one-commit-per-request baseline for durable lead creation: a bare Bun.serve and
// bun:sqlite, WAL with synchronous=FULL (like the product), and one INSERT per request in its
// own transaction, so every 201 waits for its own fsync. The product's group commit is
// compared against the rate this reaches on the same core, disk and run.
//
//   bun bench/baselines/commit-per-request.ts --port P --db FILE
import { Database } from "bun:sqlite";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { port: { type: "string" }, db: { type: "string" } } });
if (!values.port || !values.db) {
  console.error("usage: bun bench/baselines/commit-per-request.ts --port P --db FILE");
  process.exit(2);
}

const db = new Database(values.db, { create: true, strict: true });
db.run("PRAGMA journal_mode = WAL");
db.run("PRAGMA synchronous = FULL");
db.run(`CREATE TABLE IF NOT EXISTS leads (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL, phone TEXT NOT NULL,
  message TEXT NOT NULL, source TEXT NOT NULL, status TEXT NOT NULL, priority TEXT NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`);
const insert = db.prepare(
  `INSERT INTO leads (id, name, email, phone, message, source, status, priority, created_at, updated_at)
   VALUES (?, ?, ?, ?, ?, 'API', 'NEW_LEAD', 'MEDIUM', ?, ?)`,
);

const json = { "Content-Type": "application/json; charset=utf-8" };

function isText(value: unknown): value is string {
  return typeof value === "string" && value.trim().length > 0;
}

async function createLead(request: Request): Promise<Response> {
  let body: Record<string, unknown>;
  try {
    body = (await request.json()) as Record<string, unknown>;
  } catch {
    return new Response('{"error":"body: must be valid JSON","code":"VALIDATION_ERROR"}', {
      status: 400,
      headers: json,
    });
  }
  const { name, email, phone, message } = body;
  if (!isText(name) || !isText(email) || !isText(phone) || !isText(message)) {
    return new Response('{"error":"name, email, phone, message are required","code":"VALIDATION_ERROR"}', {
      status: 400,
      headers: json,
    });
  }
  const id = crypto.randomUUID();
  const now = new Date().toISOString();
  // Autocommit: this statement is its own transaction, durable before run() returns.
  insert.run(id, name, email, phone, message, now, now);
  const lead = {
    id,
    name,
    email,
    phone,
    message,
    source: "API",
    status: "NEW_LEAD",
    priority: "MEDIUM",
    propertyId: null,
    interestedPropertyTitle: null,
    createdAt: now,
    updatedAt: now,
  };
  return new Response(JSON.stringify({ data: lead }), { status: 201, headers: json });
}

Bun.serve({
  port: Number(values.port),
  hostname: "127.0.0.1",
  development: false,
  fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === "/health") return new Response('{"status":"ok"}', { headers: json });
    if (path === "/v1/leads" && request.method === "POST") return createLead(request);
    return new Response('{"error":"Not found","code":"NOT_FOUND"}', { status: 404, headers: json });
  },
});

process.on("SIGTERM", () => {
  db.close();
  process.exit(0);
});
