// Who runs next on the reader threads (docs/reference/behaviour-load.md §25): each client holds at
// most `perClient` reads at once, its others wait in its own queue, oldest first, and free
// threads go round the clients that wait, so no client ever waits behind another's queue.
// Pure: no thread, no timer. The pool (pool.ts) says when a thread or a client's slot frees,
// and asks sweep() to refuse what waited past its deadline, on the injected clock.
import type { Clock } from "../clock.ts";

export interface Waiting<T> {
  readonly clientId: string;
  readonly task: T;
  /** On the scheduler's clock: a job still waiting then is refused (expired), never started. */
  readonly deadlineAt: number;
  /** The thread it runs on when that one is free (reads/affinity.ts); null, or that one busy: any free one. */
  readonly prefers: number | null;
}

export interface SchedulerHooks<T> {
  /** Starts `job` on the free thread `thread`; the pool later calls threadFree and clientDone. */
  start(job: Waiting<T>, thread: number): void;
  /** `job` waited past its deadline: it will never start. */
  expire(job: Waiting<T>): void;
}

export class FairScheduler<T> {
  /** Per client with waiting jobs, its queue, oldest first; Map order is the round's order. */
  private readonly queues = new Map<string, Waiting<T>[]>();
  /** Reads each client holds now (started, their slot not yet given back). */
  private readonly holding = new Map<string, number>();
  private readonly free: number[] = [];
  /** The client served last: the round goes on after it. */
  private lastServed: string | null = null;

  constructor(
    threads: number,
    private readonly perClient: number,
    private readonly clock: Clock,
    private readonly hooks: SchedulerHooks<T>,
  ) {
    for (let thread = 0; thread < threads; thread++) this.free.push(thread);
  }

  submit(clientId: string, task: T, deadlineAt: number, prefers: number | null = null): void {
    const job = { clientId, task, deadlineAt, prefers };
    const queue = this.queues.get(clientId);
    if (queue === undefined) this.queues.set(clientId, [job]);
    else queue.push(job);
    this.pump();
  }

  /** `thread` may take another job. */
  threadFree(thread: number): void {
    this.free.push(thread);
    this.pump();
  }

  /** A read of `clientId` is over (answered, and its work stopped): the client may start another. */
  clientDone(clientId: string): void {
    const held = (this.holding.get(clientId) ?? 1) - 1;
    if (held <= 0) this.holding.delete(clientId);
    else this.holding.set(clientId, held);
    this.pump();
  }

  /** Refuses every waiting job whose deadline has passed; returns the earliest deadline still waiting. */
  sweep(): number | null {
    const now = this.clock.now();
    let earliest: number | null = null;
    for (const [clientId, queue] of this.queues) {
      const kept = queue.filter((job) => job.deadlineAt > now);
      for (const job of queue) if (job.deadlineAt <= now) this.hooks.expire(job);
      if (kept.length === 0) this.queues.delete(clientId);
      else this.queues.set(clientId, kept);
      for (const job of kept) earliest = earliest === null ? job.deadlineAt : Math.min(earliest, job.deadlineAt);
    }
    return earliest;
  }

  /** Jobs waiting, all clients together. */
  get waiting(): number {
    let n = 0;
    for (const queue of this.queues.values()) n += queue.length;
    return n;
  }

  /** Reads `clientId` holds now. */
  held(clientId: string): number {
    return this.holding.get(clientId) ?? 0;
  }

  private pump(): void {
    while (this.free.length > 0) {
      const job = this.next();
      if (job === null) return;
      const preferred = job.prefers === null ? -1 : this.free.indexOf(job.prefers);
      const thread = preferred === -1 ? this.free.pop()! : this.free.splice(preferred, 1)[0]!;
      this.holding.set(job.clientId, this.held(job.clientId) + 1);
      this.lastServed = job.clientId;
      this.hooks.start(job, thread);
    }
  }

  /** The oldest job of the next client in the round that may start one; taken off its queue. */
  private next(): Waiting<T> | null {
    const clients = [...this.queues.keys()];
    if (clients.length === 0) return null;
    const after = this.lastServed === null ? -1 : clients.indexOf(this.lastServed);
    // A client that was served and has left the round: start from the one after its old place.
    const startAt = after === -1 ? 0 : after + 1;
    for (let i = 0; i < clients.length; i++) {
      const clientId = clients[(startAt + i) % clients.length]!;
      if (this.held(clientId) >= this.perClient) continue;
      const queue = this.queues.get(clientId)!;
      const job = queue.shift()!;
      if (queue.length === 0) this.queues.delete(clientId);
      return job;
    }
    return null;
  }
}
