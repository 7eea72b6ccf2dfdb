// SIGTERM with requests in flight, repeated: lead creations whose bodies are still arriving when
// the signal lands (so the server surely holds them) plus a mixed load. Every held request must
// be answered (201), new connections refused, the exit code 0 within the 10 s drain, and every
// acknowledged lead on disk once the file is opened again.
//   bun scripts/faults/sigterm.ts [--rounds 5] [--in-flight 50]
import { parseArgs } from "node:util";
import { MixedLoad } from "./lib/load.ts";
import { finish, log } from "./lib/report.ts";
import { Server } from "./lib/server.ts";
import { verified, verifyLeads } from "./lib/verify.ts";
import { type FaultClient, makeWorkspace } from "./lib/workspace.ts";

const { values } = parseArgs({
  options: { rounds: { type: "string", default: "5" }, "in-flight": { type: "string", default: "50" } },
});

const workspace = makeWorkspace("sigterm", { properties: 200, leads: 200, clients: 4 });
const runId = crypto.randomUUID().slice(0, 8);
const acknowledged = new Map<string, string>();
let server: Server | null = null;
const load = new MixedLoad({
  target: () => server?.url ?? null,
  clients: workspace.clients,
  concurrency: 8,
  runId: `${runId}-load`,
  sourceAddresses: 500,
});

async function tokenFor(url: string, client: FaultClient): Promise<string> {
  const response = await fetch(`${url}/v1/auth/token`, {
    method: "POST",
    headers: { "x-api-key": client.apiKey, "x-api-secret": client.secret },
  });
  return ((await response.json()) as { data: { token: string } }).data.token;
}

/** A lead creation whose body arrives in two halves; `finish()` sends the second. */
function slowCreation(url: string, token: string, marker: string, keyed: boolean) {
  const encoder = new TextEncoder();
  const json = JSON.stringify({
    name: "Slow Lead",
    email: "slow@example.com",
    phone: "1",
    message: `fault-marker:${marker}`,
  });
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) });
  controller.enqueue(encoder.encode(json.slice(0, 20)));
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  if (keyed) headers["idempotency-key"] = `key-${marker}`;
  const answer = fetch(`${url}/v1/leads`, { method: "POST", headers, body, duplex: "half" } as RequestInit).then(
    async (r) => ({ status: r.status, body: await r.text() }),
    (error: Error) => ({ status: 0, body: error.message }),
  );
  return {
    answer,
    finish: () => {
      controller.enqueue(encoder.encode(json.slice(20)));
      controller.close();
    },
  };
}

const rounds: Record<string, unknown>[] = [];
let allOk = true;
load.start();
for (let round = 1; round <= Number(values.rounds); round++) {
  server = await Server.start(workspace);
  const url = server.url;
  const tokens = await Promise.all(workspace.clients.map((c) => tokenFor(url, c)));
  await Bun.sleep(500);
  const inFlight = Array.from({ length: Number(values["in-flight"]) }, (_, i) => {
    const marker = `${runId}:${round}:${i}`;
    return { marker, ...slowCreation(url, tokens[i % tokens.length]!, marker, i % 2 === 0) };
  });
  await Bun.sleep(300); // the server now holds every one of them, waiting for the rest of the body
  const victim: Server = server;
  const signalledAt = performance.now();
  victim.signal("SIGTERM");
  await Bun.sleep(200);
  const newConnection = await fetch(`${url}/health`).then(
    (r) => `answered ${r.status}`,
    () => "refused",
  );
  for (const request of inFlight) request.finish();
  const answers = await Promise.all(inFlight.map((r) => r.answer));
  const exit = await victim.exit();
  const exitMs = Math.round(performance.now() - signalledAt);
  server = null;
  answers.forEach((a, i) => {
    if (a.status === 201)
      acknowledged.set(inFlight[i]!.marker, (JSON.parse(a.body) as { data: { id: string } }).data.id);
  });
  const statuses = answers.reduce<Record<string, number>>((m, a) => ((m[a.status] = (m[a.status] ?? 0) + 1), m), {});
  const ok = statuses["201"] === inFlight.length && exit === 0 && exitMs < 10_500 && newConnection === "refused";
  allOk &&= ok;
  rounds.push({ round, inFlight: inFlight.length, statuses, newConnectionAfterSignal: newConnection, exit, exitMs });
  log(`round ${round}`, rounds.at(-1));
}
await load.stop();

const check = verifyLeads(workspace.dbPath, runId, acknowledged);
const loadCheck = verifyLeads(workspace.dbPath, `${runId}-load`, load.acknowledged, load.uncertain);
finish(
  "sigterm",
  allOk && verified(check) && verified(loadCheck) && load.problems.length === 0,
  {
    faultsInjected: rounds.length,
    kind: "SIGTERM while lead bodies are still arriving, under a mixed load",
    rounds,
    inFlightAcknowledged: check.acknowledged,
    inFlightFound: check.found,
    load: load.summary(),
    loadLeadsAcknowledged: loadCheck.acknowledged,
    loadLeadsFound: loadCheck.found,
    missing: [...check.missing, ...loadCheck.missing].slice(0, 10),
    duplicated: [...check.duplicated, ...loadCheck.duplicated].slice(0, 10),
    integrityCheck: check.integrity,
    problems: load.problems.slice(0, 20),
  },
  workspace.dir,
);
