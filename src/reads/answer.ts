// A reader thread's side of a job (jobs.ts): the work run under the job's deadline, and what it
// returned or threw, put in a message the event loop turns back into the same answer.
import { ApiError } from "../errors.ts";
import { Deadline, within } from "./deadline.ts";
import type { JobAnswer, JobMessage } from "./jobs.ts";

/** Runs `work` under the deadline of `message` (on this thread's clock); never throws. */
export function answer({ id, remainingMs }: JobMessage, work: () => string): JobAnswer {
  const deadline = Deadline.in(remainingMs);
  try {
    deadline.check();
    return { id, body: within(deadline, work) };
  } catch (error) {
    if (error instanceof ApiError) {
      const { code, message, details, headers } = error;
      return { id, error: { code, message, details, headers } };
    }
    const { message, stack } = error as Error;
    return { id, failure: { message: String(message), stack } };
  }
}
