// Retention periods as the config writes them (docs/operators/personal-data.md): "24 months",
// "2 years", "90 days". Months and years are calendar ones: 24 months before 2027-03-31 is 2025-03-31.

export const RETENTION_PATTERN = "^[1-9][0-9]{0,3} (day|days|month|months|year|years)$";

export interface RetentionPeriod {
  amount: number;
  unit: "day" | "month" | "year";
}

/** The period written in `text`, or null when it is not one. */
export function parseRetention(text: string): RetentionPeriod | null {
  const match = new RegExp(RETENTION_PATTERN).exec(text);
  if (match === null) return null;
  const [amount, unit] = text.split(" ") as [string, string];
  return { amount: Number(amount), unit: unit.replace(/s$/, "") as RetentionPeriod["unit"] };
}

/** The instant `period` before `now` (ms): what was last updated before it has expired. */
export function retentionCutoff(period: RetentionPeriod, now: number): number {
  const at = new Date(now);
  if (period.unit === "day") return now - period.amount * 86_400_000;
  const months = period.unit === "month" ? period.amount : period.amount * 12;
  const day = at.getUTCDate();
  at.setUTCDate(1);
  at.setUTCMonth(at.getUTCMonth() - months);
  // The same day of that month, or its last day when it has fewer (31 March → 28 or 29 February).
  const last = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 0)).getUTCDate();
  at.setUTCDate(Math.min(day, last));
  return at.getTime();
}
