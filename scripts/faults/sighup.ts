// A SIGHUP storm under load: the config file is rewritten (atomically) between signals, now the
// base config, now one with an extra client, now broken JSON, now a config the schema refuses,
// and a SIGHUP lands every few milliseconds. The load's clients are in every valid version, so
// none of their requests may fail; afterwards the last valid config is the one in force.
//   bun scripts/faults/sighup.ts [--seconds 15] [--min-ms 5] [--max-ms 40]
import { parseArgs } from "node:util";
import { hashSecret } from "../../src/security/secrets.ts";
import { MixedLoad } from "./lib/load.ts";
import { finish, log } from "./lib/report.ts";
import { Server } from "./lib/server.ts";
import { leadFigures, verified, verifyLeads } from "./lib/verify.ts";
import { makeWorkspace } from "./lib/workspace.ts";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "15" },
    "min-ms": { type: "string", default: "5" },
    "max-ms": { type: "string", default: "40" },
  },
});

const workspace = makeWorkspace("sighup", { properties: 200, leads: 200, clients: 4 });
const extra = { id: "extra", apiKey: "pk_live_extra_client_1", secret: "sk_live_extra_client_secret" };
const base = workspace.config;
const withExtra = {
  ...base,
  clients: [
    ...(base.clients as object[]),
    { id: extra.id, apiKey: extra.apiKey, secretHash: hashSecret(extra.secret), database: "agency" },
  ],
};
const versions: { name: string; write(): void }[] = [
  { name: "base", write: () => workspace.writeConfig(base) },
  { name: "with an extra client", write: () => workspace.writeConfig(withExtra) },
  { name: "broken JSON", write: () => Bun.write(workspace.configPath, '{ "clients": [ broken') },
  { name: "refused by the schema", write: () => workspace.writeConfig({ ...base, colour: "red" }) },
  { name: "base, log level changed", write: () => workspace.writeConfig({ ...base, logLevel: "error" }) },
];

const extraToken = async (url: string) =>
  (
    await fetch(`${url}/v1/auth/token`, {
      method: "POST",
      headers: { "x-api-key": extra.apiKey, "x-api-secret": extra.secret },
    })
  ).status;

const server = await Server.start(workspace);
const runId = crypto.randomUUID().slice(0, 8);
const load = new MixedLoad({
  target: () => server.url,
  clients: workspace.clients,
  concurrency: 12,
  runId,
  sourceAddresses: 1_000,
  createShare: 0.3,
});
load.start();
const startStats = server.stats();
log(`SIGHUP storm for ${values.seconds} s on ${server.url}`, { ...startStats });

let signals = 0;
const written = new Map<string, number>();
const stormEnds = Date.now() + Number(values.seconds) * 1000;
while (Date.now() < stormEnds && server.alive) {
  const version = versions[Math.floor(Math.random() * versions.length)]!;
  await version.write();
  written.set(version.name, (written.get(version.name) ?? 0) + 1);
  server.signal("SIGHUP");
  signals++;
  await Bun.sleep(Number(values["min-ms"]) + Math.random() * (Number(values["max-ms"]) - Number(values["min-ms"])));
}
log(`storm over: ${signals} SIGHUPs`, { alive: server.alive });

// The last valid config wins: with the extra client, it can get a token; without it, it cannot.
workspace.writeConfig(withExtra);
server.signal("SIGHUP");
await Bun.sleep(300);
const extraWhenAdded = await extraToken(server.url);
await Bun.write(workspace.configPath, "{ broken");
server.signal("SIGHUP");
await Bun.sleep(300);
const extraAfterBrokenReload = await extraToken(server.url);
workspace.writeConfig(base);
server.signal("SIGHUP");
await Bun.sleep(300);
const extraWhenRemoved = await extraToken(server.url);

await load.stop();
const endStats = server.stats();
server.signal("SIGTERM");
const exit = await server.exit();
const check = verifyLeads(workspace.dbPath, runId, load.acknowledged, load.uncertain);
const reloadsApplied = extraWhenAdded === 200 && extraAfterBrokenReload === 200 && extraWhenRemoved === 401;
finish(
  "sighup",
  verified(check) && reloadsApplied && load.problems.length === 0 && exit === 0,
  {
    faultsInjected: signals,
    kind: `SIGHUP every ${values["min-ms"]}-${values["max-ms"]} ms for ${values.seconds} s, config rewritten before each`,
    configVersionsWritten: Object.fromEntries(written),
    load: load.summary(),
    lastValidConfigInForce: {
      extraClientAdded: extraWhenAdded,
      afterBrokenReload: extraAfterBrokenReload,
      extraClientRemoved: extraWhenRemoved,
    },
    rssMiB: { start: startStats?.rssMiB, end: endStats?.rssMiB },
    fds: { start: startStats?.fds, end: endStats?.fds },
    ...leadFigures(check),
    sigtermExit: exit,
    problems: load.problems.slice(0, 20),
  },
  workspace.dir,
);
