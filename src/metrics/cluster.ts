// Metrics under `serve --workers N`: each worker counts what it serves, and Prometheus scrapes
// one port, which the kernel hands to any worker. So a scrape is answered for all of them: the
// worker that got it asks the supervisor, which collects every worker's metrics over the IPC
// channel it spawned them with and adds them up with prom-client's AggregatorRegistry (counters
// and histograms summed; gauges as each declares: the same database file's size once, the
// oldest pending delivery at its oldest…). A worker that does not answer in time is left out
// of that scrape rather than holding it.
import type { Subprocess } from "bun";
import { AggregatorRegistry, type MetricObjectWithValues, type MetricValue } from "prom-client";

type Snapshot = MetricObjectWithValues<MetricValue<string>>[];

/** What goes over the IPC channel between a worker and its supervisor. */
type Message =
  | { kind: "metrics:ask"; id: number } // worker → supervisor: a scrape arrived here
  | { kind: "metrics:collect"; id: number } // supervisor → every worker
  | { kind: "metrics:part"; id: number; metrics: Snapshot } // worker → supervisor
  | { kind: "metrics:answer"; id: number; text: string | null }; // supervisor → the worker asked

/** How long a scrape waits for the workers' parts before it is answered with those it has. */
const COLLECT_TIMEOUT_MS = 2_000;

function isMessage(value: unknown): value is Message {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { kind?: unknown }).kind === "string" &&
    (value as { kind: string }).kind.startsWith("metrics:")
  );
}

/** A worker's side: answers the supervisor's collections, and asks it when scraped. */
export class WorkerMetrics {
  private nextId = 1;
  private readonly asked = new Map<number, (text: string | null) => void>();

  /** `snapshot`: this worker's metrics, as prom-client's JSON. */
  constructor(private readonly snapshot: () => Promise<Snapshot>) {
    process.on("message", (message: unknown) => {
      if (!isMessage(message)) return;
      if (message.kind === "metrics:collect") {
        void this.snapshot().then((metrics) =>
          process.send?.({ kind: "metrics:part", id: message.id, metrics } satisfies Message),
        );
      } else if (message.kind === "metrics:answer") {
        this.asked.get(message.id)?.(message.text);
        this.asked.delete(message.id);
      }
    });
  }

  /** Every worker's metrics added up, in Prometheus text; null when the supervisor cannot say. */
  scrape(): Promise<string | null> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.asked.delete(id);
        resolve(null);
      }, COLLECT_TIMEOUT_MS * 2);
      this.asked.set(id, (text) => {
        clearTimeout(timer);
        resolve(text);
      });
      process.send?.({ kind: "metrics:ask", id } satisfies Message);
    });
  }
}

/** The supervisor's side: the IPC handler it spawns each worker with. */
export function collectWorkerMetrics(workers: () => Subprocess[]): (message: unknown, from: Subprocess) => void {
  let nextId = 1;
  const collections = new Map<number, { parts: Snapshot[]; expected: number; finish: () => void }>();
  return (message, from) => {
    if (!isMessage(message)) return;
    if (message.kind === "metrics:ask") {
      const id = nextId++;
      const running = workers();
      const answer = (text: string | null) =>
        from.send({ kind: "metrics:answer", id: message.id, text } satisfies Message);
      const collection = {
        parts: [] as Snapshot[],
        expected: running.length,
        finish: () => {
          clearTimeout(timer);
          collections.delete(id);
          if (collection.parts.length === 0) return answer(null);
          AggregatorRegistry.aggregate(collection.parts)
            .metrics()
            .then(answer, () => answer(null));
        },
      };
      const timer = setTimeout(() => collection.finish(), COLLECT_TIMEOUT_MS);
      collections.set(id, collection);
      for (const worker of running) worker.send({ kind: "metrics:collect", id } satisfies Message);
    } else if (message.kind === "metrics:part") {
      const collection = collections.get(message.id);
      if (collection === undefined) return; // too late: that scrape was answered without it
      collection.parts.push(message.metrics);
      if (collection.parts.length === collection.expected) collection.finish();
    }
  };
}
