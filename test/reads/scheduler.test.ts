// The reader threads' turns (docs/reference/behaviour-load.md §25): two reads at once per client, the
// rest in the client's own queue, oldest first, free threads shared round the clients, and a
// read that waited past its deadline refused, on a clock the test drives.
import { describe, expect, test } from "bun:test";
import { ApiError } from "../../src/errors.ts";
import { currentDeadline, Deadline, NO_DEADLINE, within } from "../../src/reads/deadline.ts";
import { FairScheduler, type Waiting } from "../../src/reads/scheduler.ts";
import { FakeClock } from "../helpers/app.ts";

/** A scheduler of `threads` threads whose starts and expiries are recorded as "client:task". */
function scheduler(threads: number, clock = new FakeClock()) {
  const started: { job: string; thread: number }[] = [];
  const expired: string[] = [];
  const running = new Map<string, number>();
  const s = new FairScheduler<string>(threads, 2, clock, {
    start: (job: Waiting<string>, thread) => {
      started.push({ job: `${job.clientId}:${job.task}`, thread });
      running.set(`${job.clientId}:${job.task}`, thread);
    },
    expire: (job) => expired.push(`${job.clientId}:${job.task}`),
  });
  /** The job `name` ("client:task") answers: its thread and its client's slot free. */
  const finish = (name: string) => {
    const thread = running.get(name);
    if (thread === undefined) throw new Error(`${name} is not running`);
    running.delete(name);
    s.clientDone(name.split(":")[0]!);
    s.threadFree(thread);
  };
  const names = () => started.map((st) => st.job);
  return { s, started, expired, finish, names, clock };
}

describe("two dear reads at once per client", () => {
  test("a client's third read waits, though threads are free, and starts when one of its own ends", () => {
    const { s, finish, names } = scheduler(5);
    for (const task of ["1", "2", "3", "4"]) s.submit("a", task, Number.POSITIVE_INFINITY);
    expect(names()).toEqual(["a:1", "a:2"]);
    expect(s.held("a")).toBe(2);
    expect(s.waiting).toBe(2);
    finish("a:2");
    expect(names()).toEqual(["a:1", "a:2", "a:3"]);
    finish("a:1");
    finish("a:3");
    expect(names()).toEqual(["a:1", "a:2", "a:3", "a:4"]);
    expect(s.waiting).toBe(0);
  });

  test("a client's reads start in the order it sent them", () => {
    const { s, finish, names } = scheduler(1);
    for (const task of ["1", "2", "3", "4", "5"]) s.submit("a", task, Number.POSITIVE_INFINITY);
    for (const task of ["1", "2", "3", "4"]) finish(`a:${task}`);
    expect(names()).toEqual(["a:1", "a:2", "a:3", "a:4", "a:5"]);
  });

  test("a slot stays taken until the client's work has stopped, even once its thread is replaced", () => {
    const { s, names } = scheduler(3);
    for (const task of ["1", "2", "3"]) s.submit("a", task, Number.POSITIVE_INFINITY);
    // a:1's thread is replaced (its deadline passed) but the old one still runs: the thread is free, the slot is not.
    s.threadFree(0);
    expect(names()).toEqual(["a:1", "a:2"]);
    s.clientDone("a");
    expect(names()).toEqual(["a:1", "a:2", "a:3"]);
  });
});

describe("never behind another partner's reads", () => {
  test("while one client holds two threads, another's read takes the third at once", () => {
    const { s, names } = scheduler(3);
    for (const task of ["1", "2", "3", "4", "5", "6"]) s.submit("a", task, Number.POSITIVE_INFINITY);
    s.submit("b", "1", Number.POSITIVE_INFINITY);
    expect(names()).toEqual(["a:1", "a:2", "b:1"]);
  });

  test("a thread that frees goes to the next client in the round, not to the one with the longest queue", () => {
    const { s, finish, names } = scheduler(2);
    for (const task of ["1", "2", "3", "4"]) s.submit("a", task, Number.POSITIVE_INFINITY);
    s.submit("b", "1", Number.POSITIVE_INFINITY);
    s.submit("b", "2", Number.POSITIVE_INFINITY);
    s.submit("c", "1", Number.POSITIVE_INFINITY);
    expect(names()).toEqual(["a:1", "a:2"]);
    finish("a:1");
    expect(names().at(-1)).toBe("b:1");
    finish("a:2");
    expect(names().at(-1)).toBe("c:1");
    finish("b:1");
    expect(names().at(-1)).toBe("a:3");
    finish("c:1");
    expect(names().at(-1)).toBe("b:2");
    finish("a:3");
    expect(names().at(-1)).toBe("a:4");
  });
});

describe("the deadline, on an injected clock", () => {
  test("a read that waited past its deadline is refused, never started; the others keep their turn", () => {
    const clock = new FakeClock(1_000);
    const { s, expired, finish, names } = scheduler(1, clock);
    s.submit("a", "1", 6_000);
    s.submit("a", "2", 6_000);
    clock.advance(2_000);
    s.submit("b", "1", 8_000);
    expect(s.sweep()).toBe(6_000);
    expect(expired).toEqual([]);
    clock.advance(3_000); // 6 000: a:2 reaches its deadline while a:1 still runs
    expect(s.sweep()).toBe(8_000);
    expect(expired).toEqual(["a:2"]);
    finish("a:1");
    expect(names()).toEqual(["a:1", "b:1"]);
    expect(s.waiting).toBe(0);
    expect(s.sweep()).toBeNull();
  });

  test("Deadline.check throws QUERY_TOO_BROAD (422) once its clock reaches it, not before", () => {
    const clock = new FakeClock(0);
    const deadline = new Deadline(5_000, () => clock.now());
    clock.advance(4_999);
    expect(() => deadline.check()).not.toThrow();
    expect(deadline.remainingMs()).toBe(1);
    clock.advance(1);
    let thrown: unknown;
    try {
      deadline.check();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).code).toBe("QUERY_TOO_BROAD");
    expect((thrown as ApiError).status).toBe(422);
    expect((thrown as ApiError).message).toBe("Narrow the search: add a city, a price band or fewer words");
  });

  test("the engine finds the running read's deadline through currentDeadline, and none outside one", () => {
    const deadline = new Deadline(10, () => 0);
    expect(currentDeadline()).toBe(NO_DEADLINE);
    expect(within(deadline, () => currentDeadline())).toBe(deadline);
    expect(() =>
      within(deadline, () => {
        throw new Error("x");
      }),
    ).toThrow("x");
    expect(currentDeadline()).toBe(NO_DEADLINE);
  });
});

describe("a read that prefers a thread (its words' held matches)", () => {
  test("runs on that thread when it is free, else on any free one; it never waits for it", () => {
    const { s, started, finish } = scheduler(3);
    s.submit("a", "1", Number.POSITIVE_INFINITY, 0);
    s.submit("b", "1", Number.POSITIVE_INFINITY, 0);
    s.submit("c", "1", Number.POSITIVE_INFINITY, 1);
    expect(started).toEqual([
      { job: "a:1", thread: 0 },
      { job: "b:1", thread: 2 },
      { job: "c:1", thread: 1 },
    ]);
    finish("c:1");
    finish("a:1");
    s.submit("d", "1", Number.POSITIVE_INFINITY, 1);
    s.submit("d", "2", Number.POSITIVE_INFINITY, null);
    expect(started.slice(3)).toEqual([
      { job: "d:1", thread: 1 },
      { job: "d:2", thread: 0 },
    ]);
  });
});
