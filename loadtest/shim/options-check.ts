// Finds in a script's `options` what k6 would refuse at start (no k6 binary here to ask):
// unknown executors or scenario fields, bad durations, thresholds on unknown metrics or with
// aggregations their metric type does not have.

const DURATION = /^(\d+(\.\d+)?(ms|s|m|h))+$/;

const COMMON_FIELDS = ["executor", "startTime", "gracefulStop", "exec", "env", "tags", "options"];

/** Fields each executor accepts, and which of them it requires. */
const EXECUTORS: Record<string, { fields: string[]; required: string[] }> = {
  "shared-iterations": { fields: ["vus", "iterations", "maxDuration"], required: [] },
  "per-vu-iterations": { fields: ["vus", "iterations", "maxDuration"], required: [] },
  "constant-vus": { fields: ["vus", "duration"], required: ["duration"] },
  "ramping-vus": { fields: ["startVUs", "stages", "gracefulRampDown"], required: ["stages"] },
  "constant-arrival-rate": {
    fields: ["rate", "timeUnit", "duration", "preAllocatedVUs", "maxVUs"],
    required: ["rate", "duration", "preAllocatedVUs"],
  },
  "ramping-arrival-rate": {
    fields: ["startRate", "timeUnit", "stages", "preAllocatedVUs", "maxVUs"],
    required: ["stages", "preAllocatedVUs"],
  },
};

const DURATION_FIELDS = ["startTime", "gracefulStop", "maxDuration", "duration", "gracefulRampDown", "timeUnit"];

/** Metric type of k6's built-in metrics. */
const BUILTIN_METRICS: Record<string, string> = {
  checks: "rate",
  http_req_failed: "rate",
  http_reqs: "counter",
  iterations: "counter",
  dropped_iterations: "counter",
  data_received: "counter",
  data_sent: "counter",
  vus: "gauge",
  vus_max: "gauge",
  iteration_duration: "trend",
  group_duration: "trend",
  http_req_duration: "trend",
  http_req_blocked: "trend",
  http_req_connecting: "trend",
  http_req_tls_handshaking: "trend",
  http_req_sending: "trend",
  http_req_waiting: "trend",
  http_req_receiving: "trend",
};

/** Aggregations a threshold may use, by metric type. */
const AGGREGATIONS: Record<string, RegExp> = {
  counter: /^(count|rate)$/,
  gauge: /^value$/,
  rate: /^rate$/,
  trend: /^(avg|min|max|med|p\(\d+(\.\d+)?\))$/,
};

const EXPRESSION = /^\s*(\S+?)\s*(<=|>=|===|==|!=|<|>)\s*-?\d+(\.\d+)?\s*$/;

type Loose = Record<string, unknown>;

function isObject(value: unknown): value is Loose {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function checkScenario(name: string, scenario: unknown, exports: Loose, problems: string[]): void {
  if (!isObject(scenario)) return void problems.push(`scenario ${name}: not an object`);
  const spec = EXECUTORS[String(scenario.executor)];
  if (!spec) return void problems.push(`scenario ${name}: unknown executor ${String(scenario.executor)}`);
  for (const key of Object.keys(scenario)) {
    if (!COMMON_FIELDS.includes(key) && !spec.fields.includes(key)) {
      problems.push(`scenario ${name}: ${scenario.executor} has no field ${key}`);
    }
  }
  for (const key of spec.required) {
    if (scenario[key] === undefined) problems.push(`scenario ${name}: ${key} is required`);
  }
  for (const key of DURATION_FIELDS) {
    const value = scenario[key];
    if (value !== undefined && !DURATION.test(String(value))) problems.push(`scenario ${name}: ${key} ${String(value)} is not a duration`);
  }
  const stages = scenario.stages;
  if (stages !== undefined) {
    if (!Array.isArray(stages) || stages.length === 0) problems.push(`scenario ${name}: stages must be a non-empty array`);
    else {
      stages.forEach((stage: unknown, i) => {
        if (!isObject(stage) || !DURATION.test(String(stage.duration)) || !Number.isInteger(stage.target) || Number(stage.target) < 0) {
          problems.push(`scenario ${name}: stage ${i} needs a duration and a non-negative integer target`);
        }
      });
    }
  }
  const exec = scenario.exec ?? "default";
  if (typeof exports[String(exec)] !== "function") problems.push(`scenario ${name}: exec ${String(exec)} is not an exported function`);
}

function checkThreshold(key: string, list: unknown, customMetrics: Map<string, string>, problems: string[]): void {
  const metric = key.replace(/\{.*\}$/, "");
  const type = BUILTIN_METRICS[metric] ?? customMetrics.get(metric);
  if (!type) return void problems.push(`threshold ${key}: no metric named ${metric}`);
  if (key.includes("{") && !/^[^{]+\{[^{}:]+:[^{}]+(,[^{}:]+:[^{}]+)*\}$/.test(key)) {
    problems.push(`threshold ${key}: tag filter must look like {tag:value}`);
  }
  if (!Array.isArray(list)) return void problems.push(`threshold ${key}: must be an array`);
  for (const entry of list as unknown[]) {
    const expression = isObject(entry) ? entry.threshold : entry;
    if (isObject(entry) && entry.delayAbortEval !== undefined && !DURATION.test(String(entry.delayAbortEval))) {
      problems.push(`threshold ${key}: delayAbortEval ${String(entry.delayAbortEval)} is not a duration`);
    }
    const match = EXPRESSION.exec(String(expression));
    if (!match) problems.push(`threshold ${key}: cannot parse ${String(expression)}`);
    else if (!AGGREGATIONS[type]!.test(match[1]!)) problems.push(`threshold ${key}: ${match[1]} does not apply to a ${type}`);
  }
}

/** Problems in `options`, an empty list when k6 should accept them. */
export function checkOptions(exports: Loose, customMetrics: Map<string, string>): string[] {
  const problems: string[] = [];
  const options = exports.options;
  if (!isObject(options)) return ["the script exports no `options` object"];
  if (isObject(options.scenarios)) {
    for (const [name, scenario] of Object.entries(options.scenarios)) checkScenario(name, scenario, exports, problems);
  } else if (options.stages === undefined && options.vus === undefined && options.iterations === undefined) {
    problems.push("options declare no scenarios, stages, vus or iterations");
  }
  if (isObject(options.thresholds)) {
    for (const [key, list] of Object.entries(options.thresholds)) checkThreshold(key, list, customMetrics, problems);
  }
  if (typeof exports.default !== "function") problems.push("the script has no default function");
  return problems;
}
