// Run configuration, read once from `k6 run -e NAME=value` (or the environment) in the init context.

/** @param {string} name @param {string} fallback */
function env(name, fallback) {
  const value = __ENV[name];
  return value === undefined || value === "" ? fallback : value;
}

export const config = Object.freeze({
  // Trailing slashes are dropped so helpers can always append "/v1/...".
  baseUrl: env("BASE_URL", "http://localhost:8080").replace(/\/+$/, ""),
  // Defaults are the published sandbox credentials (docs/reference/behaviour.md §2); an agency's server needs its own.
  apiKey: env("API_KEY", "pk_sandbox_demo"),
  apiSecret: env("API_SECRET", "sk_sandbox_demo"),
});

/**
 * A numeric knob from `-e NAME=value`, so a run can be sized to the server under test
 * without editing the script.
 * @param {string} name @param {number} fallback
 */
export function envNumber(name, fallback) {
  const value = Number(env(name, String(fallback)));
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${__ENV[name]}`);
  return value;
}

/**
 * A duration knob such as SOAK_DURATION=8h (k6 syntax: 90s, 30m, 4h, 1h30m).
 * @param {string} name @param {string} fallback
 */
export function envDuration(name, fallback) {
  const value = env(name, fallback);
  if (!/^(\d+(ms|s|m|h))+$/.test(value)) throw new Error(`${name} must be a k6 duration like 30m or 4h, got ${value}`);
  return value;
}
