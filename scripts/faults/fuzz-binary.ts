// The request fuzzer of test/fuzz, slower and against the compiled binary over real sockets:
// the same generated requests (paths, methods, junk queries, headers, tokens, bodies of every
// shape, chunked and oversized), each answer checked against the contract; then the server must
// still be healthy, its database intact, and its memory and descriptors back near where they began.
//   bun scripts/faults/fuzz-binary.ts [--runs 3000] [--seed N] [--concurrency 4]

import { parseArgs } from "node:util";
import fc from "fast-check";
import { requestArb } from "../../test/fuzz/arbitraries.ts";
import { echoOf, violations } from "../../test/fuzz/contract.ts";
import { type AuthSpec, bodyInit, canHaveBody, describeSpec, type RequestSpec } from "../../test/fuzz/spec.ts";
import { rawExchange } from "../../test/security/binary-server.ts";
import { finish, log } from "./lib/report.ts";
import { Server } from "./lib/server.ts";
import { verifyLeads } from "./lib/verify.ts";
import { makeWorkspace } from "./lib/workspace.ts";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "3000" },
    seed: { type: "string" },
    concurrency: { type: "string", default: "4" },
  },
});
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);

const workspace = makeWorkspace("fuzzbin", { properties: 100, leads: 100, clients: 2 });
const server = await Server.start(workspace);
const [portal, other] = workspace.clients as [(typeof workspace.clients)[0], (typeof workspace.clients)[0]];
const tokenOf = async (who: typeof portal) =>
  (
    (await (
      await fetch(`${server.url}/v1/auth/token`, {
        method: "POST",
        headers: { "x-api-key": who.apiKey, "x-api-secret": who.secret },
      })
    ).json()) as {
      data: { token: string };
    }
  ).data.token;
const tokens = { portal: await tokenOf(portal), other: await tokenOf(other) };
const firstId = async (path: string) =>
  (
    (await (await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${tokens.portal}` } })).json()) as {
      data: { id: string; code?: string }[];
    }
  ).data[0]!;
const property = await firstId("/v1/properties?fields=id,code&limit=1");
const lead = await firstId("/v1/leads?fields=id&limit=1");
const substitutions: Record<string, string> = {
  ":ownProperty": property.id,
  ":ownLead": lead.id,
  ":otherProperty": crypto.randomUUID(),
  ":otherLead": crypto.randomUUID(),
  ":unpublished": crypto.randomUUID(),
  ":ownCode": property.code ?? "none",
};

function authorization(auth: AuthSpec): string | null {
  if (auth.kind === "none") return null;
  if (auth.kind === "valid") return `Bearer ${tokens.portal}`;
  if (auth.kind === "otherTenant") return `Bearer ${tokens.other}`;
  if (auth.kind === "raw") return auth.value;
  const parts = tokens.portal.split(".");
  const target = parts[auth.part]!;
  const i = auth.at % target.length;
  parts[auth.part] = target.slice(0, i) + (target[i] === "A" ? "B" : "A") + target.slice(i + 1);
  return `Bearer ${parts.join(".")}`;
}

const statuses = new Map<number, number>();
const failures: string[] = [];
let unsendable = 0;
/** Bare answers of Bun's HTTP parser (never reaching the app): oversized header blocks and the like. */
const transport = new Map<number, number>();
const TRANSPORT_STATUSES = new Set([400, 431, 505]);

async function send(spec: RequestSpec): Promise<void> {
  let path = spec.path;
  for (const [name, value] of Object.entries(substitutions)) path = path.replaceAll(name, value);
  const headers = new Headers();
  try {
    for (const [name, value] of spec.headers) headers.append(name, value);
  } catch {
    unsendable++;
    return;
  }
  const auth = authorization(spec.auth);
  if (auth !== null) headers.set("authorization", auth);
  if (spec.peer) headers.set("x-forwarded-for", spec.peer);
  const body = canHaveBody(spec.method) ? bodyInit(spec.body) : null;
  let response: Response;
  try {
    response = await fetch(`${server.url}${path}`, {
      method: spec.method,
      headers,
      body,
      duplex: "half",
      signal: AbortSignal.timeout(15_000),
    } as RequestInit);
  } catch (error) {
    // The client refused to send it (a header fetch will not carry) or the server hung up.
    if (!server.alive) failures.push(`server died on ${describeSpec(spec)}`);
    else unsendable++;
    return;
  }
  const text = await response.text();
  statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
  if (TRANSPORT_STATUSES.has(response.status) && !response.headers.has("x-request-id") && text === "") {
    transport.set(response.status, (transport.get(response.status) ?? 0) + 1);
    return;
  }
  const bodyText =
    spec.body.kind === "text" ? spec.body.text : spec.body.kind === "chunked" ? spec.body.chunks.join("") : "";
  // Bun's fetch drops the body of an answer to TRACE (the server sends it): judge it like HEAD.
  const method = spec.method.toUpperCase() === "TRACE" ? "HEAD" : spec.method.toUpperCase();
  const problems = violations(
    { method, status: response.status, headers: response.headers, body: text },
    { echo: echoOf(`${server.url}${path}`, [...headers], bodyText) },
  );
  if (problems.length > 0)
    failures.push(
      `${problems.join("; ")} ← ${describeSpec(spec).slice(0, 600)} → ${response.status} ${text.slice(0, 200)}`,
    );
}

const start = server.stats()!;
log(`fuzzing the binary at ${server.url}: ${values.runs} requests, seed ${seed}`, { ...start });
const specs = fc.sample(requestArb, { numRuns: Number(values.runs), seed });
const queue = [...specs];
await Promise.all(
  Array.from({ length: Number(values.concurrency) }, async () => {
    for (let spec = queue.shift(); spec !== undefined; spec = queue.shift()) await send(spec);
  }),
);
// Then raw bytes on the socket: valid requests mutated byte by byte, and plain garbage. Whatever
// Bun's parser makes of them, the answer is a bare transport refusal or the app's contract.
const validRequest = `POST /v1/leads HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tokens.portal}\r\nContent-Type: application/json\r\nContent-Length: 62\r\n\r\n{"name":"Raw","email":"raw@example.com","phone":"1","message":"m"}`;
const rawCases = fc.sample(
  fc.oneof(
    fc
      .array(fc.tuple(fc.nat(validRequest.length - 1), fc.integer({ min: 0, max: 255 })), {
        minLength: 1,
        maxLength: 4,
      })
      .map((edits) => {
        const bytes = new TextEncoder().encode(validRequest);
        for (const [at, value] of edits) bytes[at] = value;
        return bytes;
      }),
    fc.uint8Array({ minLength: 1, maxLength: 400 }),
  ),
  { numRuns: Math.ceil(Number(values.runs) / 10), seed },
);
const rawAnswers = new Map<string, number>();
for (let i = 0; i < rawCases.length; i += 20) {
  const answers = await Promise.all(rawCases.slice(i, i + 20).map((bytes) => rawExchange(server.port, bytes)));
  for (const { text } of answers) {
    const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? "none";
    rawAnswers.set(status, (rawAnswers.get(status) ?? 0) + 1);
    const bare = /\r\n\r\n$/.test(text) && !/x-request-id/i.test(text);
    if (status !== "none" && !bare && (!/x-request-id/i.test(text) || status.startsWith("5")))
      failures.push(`raw bytes answered ${text.slice(0, 200)}`);
    if (/bun|elysia|uws|\bat \S+ \(/i.test(text))
      failures.push(`raw bytes answer shows internals: ${text.slice(0, 200)}`);
  }
}

const healthy = (await fetch(`${server.url}/health`)).status === 200;
const end = server.stats()!;
server.signal("SIGTERM");
const exit = await server.exit();
const integrity = verifyLeads(workspace.dbPath, "none", new Map()).integrity;
finish(
  "fuzz-binary",
  failures.length === 0 && healthy && exit === 0 && integrity === "ok",
  {
    requestsSent: specs.length - unsendable,
    rawByteRequests: rawCases.length,
    rawAnswers: Object.fromEntries(rawAnswers),
    unsendableByFetch: unsendable,
    seed,
    statuses: Object.fromEntries([...statuses].sort(([a], [b]) => a - b)),
    bareTransportAnswers: Object.fromEntries(transport),
    contractViolations: failures.length,
    failures: failures.slice(0, 30),
    healthyAfter: healthy,
    rssMiB: { start: start.rssMiB, end: end.rssMiB },
    fds: { start: start.fds, end: end.fds },
    integrityCheck: integrity,
    sigtermExit: exit,
  },
  workspace.dir,
);
