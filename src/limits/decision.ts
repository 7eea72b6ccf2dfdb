// The figures a limiter answers with, shared by both limiters and the header writer.

export interface LimitDecision {
  /** Whether this request may proceed (for peek: whether a request now would). */
  allowed: boolean;
  /** The quota: requests per window, or bucket capacity. */
  limit: number;
  /** What is left after this request (for peek: left now); 0 on a refusal. */
  remaining: number;
  /** Refused: whole seconds until a request would be allowed again (>= 1). Allowed: 0. */
  retryAfterSeconds: number;
  /** Whole seconds until `remaining` next grows; 0 when nothing is used up. */
  resetSeconds: number;
}
