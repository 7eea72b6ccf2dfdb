// Durations as the config writes them: "30s", "15m", "1h30m", "1d" (docs/reference/behaviour-extensions.md §14's `every`).
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A duration's whole form, checked by the config schema: one or more <integer><unit> parts. */
export const DURATION_PATTERN = "^([0-9]{1,9}(ms|s|m|h|d))+$";

/** Milliseconds of a duration in the form above; null when it is not one. */
export function parseDuration(text: string): number | null {
  if (!new RegExp(DURATION_PATTERN).test(text)) return null;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(/([0-9]+)(ms|s|m|h|d)/g))
    total += Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  return total;
}

/** The shortest way to write `ms` back ("90000" → "1m30s"), for messages and status lines. */
export function formatDuration(ms: number): string {
  if (ms === 0) return "0s";
  const parts: string[] = [];
  let rest = ms;
  for (const unit of ["d", "h", "m", "s", "ms"] as const) {
    const size = UNIT_MS[unit];
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  return parts.join("");
}
