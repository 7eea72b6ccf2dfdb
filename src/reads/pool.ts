// The reader threads: dear reads (searches, facets, values, lead lists, the change feed) run
// here, each thread with read-only connections of its own, so the event loop that answers
// /health and every other partner is never held by them (docs/internals/architecture.md, "Reads
// off the event loop"; docs/reference/behaviour-load.md §25). Who runs next is the FairScheduler's
// choice; a read still running at its deadline is answered 422 QUERY_TOO_BROAD and its thread
// replaced.
import type { Clock } from "../clock.ts";
import type { Tenant } from "../db/tenants.ts";
import { ApiError } from "../errors.ts";
import { runsCompiled } from "../executable.ts";
import { preferredPlace } from "./affinity.ts";
import { queryTooBroad } from "./deadline.ts";
import type { JobAnswer, JobMessage, PrepareMessage, ReadJob, TenantRef, ThreadReady } from "./jobs.ts";
import { FairScheduler, type Waiting } from "./scheduler.ts";
import { READS_PER_CLIENT } from "./settings.ts";

/**
 * The thread's code. In the executable, Bun files each entry point of the build (scripts/build.ts
 * names this one) under its path from their common folder, src/, as JavaScript.
 */
const READER_CODE = runsCompiled
  ? "/$bunfs/root/reads/reader-thread.js"
  : new URL("./reader-thread.ts", import.meta.url).href;

/**
 * How long a replaced thread may go on before its client's slot is given back anyway. A thread
 * stops at once between two JavaScript steps, but a statement SQLite is running ends first.
 */
const SLOT_BACK_AFTER_MS = 60_000;

interface Pending {
  resolve(body: string): void;
  reject(error: unknown): void;
  ref: TenantRef;
  job: ReadJob;
}

interface Running {
  id: number;
  clientId: string;
  pending: Pending;
  deadlineAt: number;
  backstop: ReturnType<typeof setTimeout>;
}

interface Thread {
  worker: Worker | null;
  running: Running | null;
}

export interface ReaderPoolOptions {
  threads: number;
  /** Milliseconds a read may take from its arrival; read at each request (a reload may change it). */
  deadlineMs: () => number;
  clock: Clock;
  perClient?: number;
  /** Tests name another thread's code. */
  workerCode?: string;
  /** A thread that failed, in words for the log. */
  onError?: (what: string) => void;
  /** The databases open now: a new thread prepares them before it takes a job. */
  tenants?: () => Tenant[];
}

/** A thread that failed while loading is started again after this long, not in a tight loop. */
const RESPAWN_AFTER_MS = 1_000;

export class ReaderPool {
  private readonly threads: Thread[];
  private readonly scheduler: FairScheduler<Pending>;
  private nextId = 0;
  private sweepTimer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;
  /**
   * Whether a thread has ever been ready. Before that (a server starting: each thread builds its
   * listing index first, seconds at a million listings) reads wait here, their 5 s not started:
   * the time the server needs to start is not the caller's search being too broad.
   */
  private started = false;
  /** Whether warm() asked for every thread (serve does; tests and tools start them as reads need). */
  private warming = false;
  private readonly beforeStart: { submit: () => void; reject: (error: Error) => void }[] = [];

  constructor(private readonly options: ReaderPoolOptions) {
    this.threads = Array.from({ length: options.threads }, () => ({ worker: null, running: null }));
    // No thread is free until it has loaded and prepared (ThreadReady).
    this.scheduler = new FairScheduler<Pending>(0, options.perClient ?? READS_PER_CLIENT, options.clock, {
      start: (job, thread) => this.start(job, thread),
      expire: (job) => job.task.reject(queryTooBroad()),
    });
  }

  /** Starts every thread now, so the first dear read does not wait for one to load (serve calls it). */
  warm(): void {
    if (this.closed) return;
    // One thread first, the others once it is ready: building their indexes together on a
    // two-core machine would make the first search wait for all of them.
    this.warming = true;
    if (this.started) this.warmRest();
    else this.threads[0]!.worker ??= this.spawn(0);
  }

  /**
   * The body `job` gives on `tenant` for the client `clientId`; rejects with the ApiError the
   * service threw, exactly as the route would have met it, or QUERY_TOO_BROAD at the deadline:
   * the config's, or `deadlineMs` for a read the agency asks that must not be cut so soon.
   */
  run(clientId: string, tenant: Tenant, job: ReadJob, deadlineMs?: number): Promise<string> {
    if (this.closed) return Promise.reject(new Error("the reader threads are closed"));
    this.grow();
    // The generations of now, when the route looked in its caches: the thread's caches key on
    // them, and a body the route keeps (EntityList.lookup) is kept under them.
    const ref = refOf(tenant);
    return new Promise<string>((resolve, reject) => {
      const submit = () => {
        this.scheduler.submit(
          clientId,
          { resolve, reject, ref, job },
          this.options.clock.now() + (deadlineMs ?? this.options.deadlineMs()),
          job.kind === "properties" || job.kind === "facets" ? preferredPlace(job.rawQuery, this.threads.length) : null,
        );
        if (this.scheduler.waiting > 0) this.armSweep();
      };
      if (this.started) submit();
      else this.beforeStart.push({ submit, reject });
    });
  }

  /**
   * One more thread when none is idle or loading and a place has none yet: a server that never
   * warmed its pool (tests, tools) loads threads only as reads need them.
   */
  private grow(): void {
    if (this.threads.some((t) => t.worker !== null && t.running === null)) return;
    const index = this.threads.findIndex((t) => t.worker === null);
    if (index !== -1) this.threads[index]!.worker = this.spawn(index);
  }

  /** Reads waiting for a thread, every client together. */
  get waiting(): number {
    return this.scheduler.waiting;
  }

  /** The first thread is ready: the reads that waited for it are submitted, and the other threads start. */
  private firstReady(): void {
    this.started = true;
    for (const waiting of this.beforeStart.splice(0)) waiting.submit();
    if (this.warming) this.warmRest();
  }

  private warmRest(): void {
    for (let index = 0; index < this.threads.length; index++) this.threads[index]!.worker ??= this.spawn(index);
  }

  close(): void {
    this.closed = true;
    for (const waiting of this.beforeStart.splice(0)) waiting.reject(new Error("the reader threads are closed"));
    if (this.sweepTimer !== null) clearTimeout(this.sweepTimer);
    for (const thread of this.threads) {
      if (thread.running !== null) {
        clearTimeout(thread.running.backstop);
        thread.running.pending.reject(new Error("the reader threads are closed"));
        thread.running = null;
      }
      thread.worker?.terminate();
      thread.worker = null;
    }
  }

  /** A new thread for the place `index` of the pool; it is free once it says it is ready. */
  private spawn(index: number): Worker {
    const worker = new Worker(this.options.workerCode ?? READER_CODE);
    worker.unref(); // never what keeps a process alive
    worker.onmessage = (event: MessageEvent<JobAnswer | ThreadReady>) => {
      const data = event.data;
      if ("ready" in data) {
        if (this.threads[index]!.worker === worker) this.scheduler.threadFree(index);
        if (!this.started) this.firstReady();
      } else this.answered(index, worker, data);
    };
    worker.onerror = (event) => this.failed(index, worker, event.message);
    const prepare: PrepareMessage = {
      prepare: (this.options.tenants?.() ?? []).map(refOf),
      place: index,
      places: this.threads.length,
    };
    worker.postMessage(prepare);
    return worker;
  }

  private start(job: Waiting<Pending>, index: number): void {
    const thread = this.threads[index]!;
    const worker = thread.worker!; // a free thread is a ready one
    const id = ++this.nextId;
    const remainingMs = Math.max(0, job.deadlineAt - this.options.clock.now());
    thread.running = {
      id,
      clientId: job.clientId,
      pending: job.task,
      deadlineAt: job.deadlineAt,
      backstop: setTimeout(() => this.backstop(index, id), remainingMs + 1),
    };
    const message: JobMessage = {
      id,
      tenant: job.task.ref,
      job: job.task.job,
      remainingMs,
    };
    worker.postMessage(message);
  }

  private answered(index: number, worker: Worker, answer: JobAnswer): void {
    const thread = this.threads[index]!;
    const running = thread.running;
    if (thread.worker !== worker || running === null || running.id !== answer.id) return; // a replaced thread's
    clearTimeout(running.backstop);
    thread.running = null;
    if ("body" in answer) running.pending.resolve(answer.body);
    else if ("error" in answer) {
      const { code, message, details, headers } = answer.error;
      running.pending.reject(new ApiError(code, message, details, headers));
    } else {
      const error = new Error(answer.failure.message);
      if (answer.failure.stack !== undefined) error.stack = answer.failure.stack;
      running.pending.reject(error);
    }
    this.scheduler.clientDone(running.clientId);
    this.scheduler.threadFree(index);
  }

  /**
   * The deadline has come and the job has not answered: answered 422 now, its thread replaced
   * at once for the others; the client's slot comes back once the old thread has stopped.
   */
  private backstop(index: number, id: number): void {
    const thread = this.threads[index]!;
    const running = thread.running;
    if (running === null || running.id !== id) return;
    const left = running.deadlineAt - this.options.clock.now();
    if (left > 0) {
      running.backstop = setTimeout(() => this.backstop(index, id), left);
      return;
    }
    running.pending.reject(queryTooBroad());
    this.replace(index, running);
  }

  private failed(index: number, worker: Worker, why: string): void {
    const thread = this.threads[index]!;
    if (thread.worker !== worker) return;
    this.options.onError?.(`a reader thread failed: ${why}`);
    const running = thread.running;
    if (running === null) {
      // It failed loading or preparing: another, a little later.
      worker.terminate();
      thread.worker = null;
      setTimeout(() => {
        if (!this.closed && thread.worker === null) thread.worker = this.spawn(index);
      }, RESPAWN_AFTER_MS).unref();
      return;
    }
    running.pending.reject(new Error(`the reader thread failed: ${why}`));
    this.replace(index, running);
  }

  private replace(index: number, running: Running): void {
    const thread = this.threads[index]!;
    clearTimeout(running.backstop);
    const old = thread.worker;
    thread.running = null;
    thread.worker = null;
    let given = false;
    const giveBack = () => {
      if (given) return;
      given = true;
      this.scheduler.clientDone(running.clientId);
    };
    if (old !== null) {
      old.addEventListener("close", giveBack);
      old.terminate();
    }
    setTimeout(giveBack, SLOT_BACK_AFTER_MS).unref();
    // The place takes jobs again once its new thread is ready.
    if (!this.closed) thread.worker = this.spawn(index);
  }

  private armSweep(): void {
    if (this.sweepTimer !== null) return;
    const earliest = this.scheduler.sweep();
    if (earliest === null) return;
    this.sweepTimer = setTimeout(
      () => {
        this.sweepTimer = null;
        this.armSweep();
      },
      Math.max(1, earliest - this.options.clock.now()),
    );
    this.sweepTimer.unref();
  }
}

/** A tenant as a thread is told of it: its file, which opening of it, and its generations now. */
function refOf(tenant: Tenant): TenantRef {
  return {
    path: tenant.path,
    id: tenant.id,
    generation: tenant.generation(),
    outsideGeneration: tenant.outsideGeneration(),
  };
}
