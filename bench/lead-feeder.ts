// The lead feeder of the bench's webhooks scenario: creates leads through the API at a steady
// rate until SIGTERM, then prints {"created":N,"seconds":S} and exits. A process of its own so
// the runner can start it ahead of wrk on the load core (nice -10): inside the runner, wrk
// starved it, and the runs without subscriptions (whose server answered wrk faster, keeping it
// busier) created 500–700 leads where the runs with them created 900, so the two sides of the
// ratio did not carry the same writes.
//
//   bun bench/lead-feeder.ts --base URL --token TOKEN --per-second N
import { parseArgs } from "node:util";
import { postLead } from "./lib/api.ts";

const { values } = parseArgs({
  options: { base: { type: "string" }, token: { type: "string" }, "per-second": { type: "string" } },
});
const base = values.base!;
const token = values.token!;
const perSecond = Number(values["per-second"]);

let running = true;
let created = 0;
const started = performance.now();
process.on("SIGTERM", () => void (running = false));

while (running) {
  const due = Math.floor(((performance.now() - started) / 1000) * perSecond);
  while (created < due && running) {
    await postLead(base, token);
    created++;
  }
  await Bun.sleep(5);
}
process.stdout.write(JSON.stringify({ created, seconds: (performance.now() - started) / 1000 }) + "\n");
