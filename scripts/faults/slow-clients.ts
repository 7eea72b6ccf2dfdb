// Slow clients that hold connections: how long the server keeps each kind open, whether others
// are still served meanwhile, and whether its file descriptors come back. Kinds: silent after
// connecting, stalled mid-headers, stalled mid-body, idle keep-alive, and "trickling" ones that
// send a byte every few seconds (slowloris), which an idle timeout alone may never close.
//   bun scripts/faults/slow-clients.ts [--per-kind 20] [--max-seconds 75] [--trickle-seconds 10]
import { parseArgs } from "node:util";
import { finish, log } from "./lib/report.ts";
import { Server } from "./lib/server.ts";
import { makeWorkspace } from "./lib/workspace.ts";

const { values } = parseArgs({
  options: {
    "per-kind": { type: "string", default: "20" },
    "max-seconds": { type: "string", default: "75" },
    "trickle-seconds": { type: "string", default: "10" },
  },
});
const perKind = Number(values["per-kind"]);
const maxMs = Number(values["max-seconds"]) * 1000;
const trickleMs = Number(values["trickle-seconds"]) * 1000;

const workspace = makeWorkspace("slowclients", { properties: 100, leads: 100, clients: 1 });
const server = await Server.start(workspace);
const c = workspace.clients[0]!;
const token = (
  (await (
    await fetch(`${server.url}/v1/auth/token`, {
      method: "POST",
      headers: { "x-api-key": c.apiKey, "x-api-secret": c.secret },
    })
  ).json()) as {
    data: { token: string };
  }
).data.token;

interface Kind {
  name: string;
  opening: string;
  /** A byte to send every trickle interval, or null to stay silent. */
  trickle: string | null;
}
const KINDS: Kind[] = [
  { name: "silent after connect", opening: "", trickle: null },
  { name: "stalled mid-headers", opening: "GET /health HTTP/1.1\r\nHost: x\r\n", trickle: null },
  {
    name: "stalled mid-body",
    opening: `POST /v1/leads HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":`,
    trickle: null,
  },
  { name: "idle keep-alive after a request", opening: "GET /health HTTP/1.1\r\nHost: x\r\n\r\n", trickle: null },
  { name: "trickling headers (slowloris)", opening: "GET /health HTTP/1.1\r\nHost: x\r\nX-A: ", trickle: "a" },
  {
    name: "trickling body",
    opening: `POST /v1/leads HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`,
    trickle: " ",
  },
];

/** Opens one connection of a kind; resolves with the milliseconds until the server closed it (null: still open at the end). */
function hold(kind: Kind): Promise<number | null> {
  return new Promise((resolve) => {
    const opened = performance.now();
    let timer: ReturnType<typeof setInterval> | null = null;
    let settled = false;
    const done = (value: number | null) => {
      if (settled) return;
      settled = true;
      if (timer) clearInterval(timer);
      resolve(value);
    };
    Bun.connect({
      hostname: "127.0.0.1",
      port: server.port,
      socket: {
        open(socket) {
          if (kind.opening !== "") socket.write(kind.opening);
          if (kind.trickle !== null) timer = setInterval(() => socket.write(kind.trickle!), trickleMs);
          setTimeout(() => {
            done(null);
            socket.end();
          }, maxMs);
        },
        data() {},
        close: () => done(Math.round(performance.now() - opened)),
        error: () => done(Math.round(performance.now() - opened)),
      },
    }).catch(() => done(0));
  });
}

const baseline = server.stats()!;
log(`holding ${perKind} connections of each of ${KINDS.length} kinds for up to ${maxMs / 1000} s`, { ...baseline });
const held = KINDS.map((kind) => Promise.all(Array.from({ length: perKind }, () => hold(kind))));
await Bun.sleep(1_000);
const whileHeld = server.stats()!;

// Meanwhile, an ordinary caller every second: served, and quickly.
const latencies: number[] = [];
let probing = true;
const probe = (async () => {
  while (probing) {
    const started = performance.now();
    const ok =
      (await fetch(`${server.url}/v1/fields`, { headers: { authorization: `Bearer ${token}` } })).status === 200;
    latencies.push(ok ? performance.now() - started : Infinity);
    await Bun.sleep(1_000);
  }
})();

const results = await Promise.all(held);
probing = false;
await probe;
const after = server.stats()!;
server.signal("SIGTERM");
const exit = await server.exit();

const kinds = KINDS.map((kind, i) => {
  const closes = results[i]!;
  const closed = closes.filter((ms): ms is number => ms !== null);
  return {
    kind: kind.name,
    closedByServer: `${closed.length}/${closes.length}`,
    closedAfterSeconds: closed.length ? { min: Math.min(...closed) / 1000, max: Math.max(...closed) / 1000 } : null,
  };
});
const untrickled = kinds.filter((_, i) => KINDS[i]!.trickle === null);
const idleClosed = untrickled.every((k) => k.closedByServer === `${perKind}/${perKind}`);
const trickleHeld = kinds.filter(
  (_, i) => KINDS[i]!.trickle !== null && !kinds[i]!.closedByServer.startsWith(`${perKind}/`),
);
const worst = Math.max(...latencies);
finish(
  "slow-clients",
  idleClosed && worst < 1_000 && exit === 0,
  {
    faultsInjected: perKind * KINDS.length,
    kind: `${perKind} connections per kind, held up to ${maxMs / 1000} s; trickling ones send a byte every ${trickleMs / 1000} s`,
    kinds,
    othersServed: { probes: latencies.length, worstMs: Math.round(worst) },
    fds: { baseline: baseline.fds, whileHeld: whileHeld.fds, after: after.fds },
    rssMiB: { baseline: baseline.rssMiB, after: after.rssMiB },
    knownGap:
      trickleHeld.length > 0
        ? `connections that send a byte every ${trickleMs / 1000} s stay open: ${trickleHeld.map((k) => k.kind).join(", ")}`
        : null,
    sigtermExit: exit,
  },
  workspace.dir,
);
