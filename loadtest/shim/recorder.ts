// What one shim run observed (checks, requests, sleeps, custom metrics, errors), and its summary.

export interface RequestRecord {
  method: string;
  url: string;
  status: number;
  /** k6's default http_req_failed rule: status 0 (no response) or >= 400. */
  failed: boolean;
  tags: Record<string, string>;
  durationMs: number;
}

export interface EndpointSummary {
  count: number;
  statuses: Record<string, number>;
  maxDurationMs: number;
}

export interface Summary {
  script: string;
  iterations: number;
  /** Iterations that ran to the end without throwing. */
  completedIterations: number;
  checks: Record<string, { passes: number; fails: number }>;
  passedChecks: number;
  failedChecks: number;
  requests: number;
  failedRequests: number;
  /** By the `endpoint` tag ("(untagged)" when absent): what per-endpoint thresholds would see. */
  byEndpoint: Record<string, EndpointSummary>;
  /** Seconds asked of sleep(), in order: Retry-After and think time are observable here. */
  sleeps: number[];
  /** Custom metrics (k6/metrics): sum and count of the values added. */
  metrics: Record<string, { type: string; count: number; sum: number }>;
  /** Endpoint tags that thresholds name but no request carried. */
  thresholdTagsWithoutTraffic: string[];
  /** Things k6 would refuse in `options`, found before running. */
  optionProblems: string[];
  /** Exceptions from loading the script, setup(), iterations and teardown(). */
  errors: string[];
}

const checks = new Map<string, { passes: number; fails: number }>();
const requests: RequestRecord[] = [];
const sleeps: number[] = [];
const metrics = new Map<string, { type: string; count: number; sum: number }>();
const errors: string[] = [];

export function recordCheck(name: string, ok: boolean): void {
  const entry = checks.get(name) ?? { passes: 0, fails: 0 };
  if (ok) entry.passes++;
  else entry.fails++;
  checks.set(name, entry);
}

export function recordRequest(record: RequestRecord): void {
  requests.push(record);
}

export function recordSleep(seconds: number): void {
  sleeps.push(seconds);
}

export function registerMetric(name: string, type: string): void {
  if (!metrics.has(name)) metrics.set(name, { type, count: 0, sum: 0 });
}

export function recordMetric(name: string, value: number): void {
  const entry = metrics.get(name);
  if (!entry) throw new Error(`metric ${name} added to before it was created`);
  entry.count++;
  entry.sum += value;
}

export function recordError(where: string, error: unknown): void {
  errors.push(`${where}: ${error instanceof Error ? error.message : String(error)}`);
}

export function metricTypes(): Map<string, string> {
  return new Map([...metrics].map(([name, { type }]) => [name, type]));
}

function byEndpoint(): Record<string, EndpointSummary> {
  const result: Record<string, EndpointSummary> = {};
  for (const r of requests) {
    const key = r.tags.endpoint ?? "(untagged)";
    const entry = (result[key] ??= { count: 0, statuses: {}, maxDurationMs: 0 });
    entry.count++;
    entry.statuses[r.status] = (entry.statuses[r.status] ?? 0) + 1;
    entry.maxDurationMs = Math.max(entry.maxDurationMs, Math.round(r.durationMs * 10) / 10);
  }
  return result;
}

/** Endpoint tags named in threshold keys such as `http_req_duration{endpoint:leads_list}`. */
function thresholdEndpointTags(thresholdKeys: string[]): string[] {
  const tags = thresholdKeys.flatMap((key) => [...key.matchAll(/[{,]\s*endpoint\s*:\s*([^,}\s]+)/g)].map((m) => m[1]!));
  return [...new Set(tags)];
}

export function summarize(input: {
  script: string;
  iterations: number;
  completedIterations: number;
  thresholdKeys: string[];
  optionProblems: string[];
}): Summary {
  const endpoints = byEndpoint();
  const checkEntries = Object.fromEntries(checks);
  const counts = [...checks.values()];
  return {
    script: input.script,
    iterations: input.iterations,
    completedIterations: input.completedIterations,
    checks: checkEntries,
    passedChecks: counts.reduce((n, c) => n + c.passes, 0),
    failedChecks: counts.reduce((n, c) => n + c.fails, 0),
    requests: requests.length,
    failedRequests: requests.filter((r) => r.failed).length,
    byEndpoint: endpoints,
    sleeps: [...sleeps],
    metrics: Object.fromEntries(metrics),
    thresholdTagsWithoutTraffic: thresholdEndpointTags(input.thresholdKeys).filter((tag) => !(tag in endpoints)),
    optionProblems: input.optionProblems,
    errors: [...errors],
  };
}
