// The delivery slot pool (src/modules/webhooks/slots.ts) on its own: the per-subscription and
// overall bounds, the reserve that lets a subscription with nothing under way start while
// others' hanging receivers hold the rest, and the callers waiting for a slot (test events).
import { describe, expect, test } from "bun:test";
import { MAX_IN_FLIGHT, PER_SUBSCRIPTION, RESERVED_FOR_IDLE, SlotPool } from "../../../src/modules/webhooks/slots.ts";

const small = { perSubscription: 4, maxInFlight: 10, reservedForIdle: 3 };

describe("slot pool", () => {
  test("a subscription holds PER_SUBSCRIPTION at most; released slots are free again", () => {
    const pool = new SlotPool();
    expect(pool.holdSpare("a")).toBe(PER_SUBSCRIPTION);
    expect(pool.holdSpare("a")).toBe(0);
    expect(pool.inFlight("a")).toBe(PER_SUBSCRIPTION);
    pool.release("a", 3);
    expect(pool.free("a")).toBe(3);
    expect(pool.inFlight()).toBe(PER_SUBSCRIPTION - 3);
  });

  test("past its first slot, a subscription takes only from the shared part; the reserve goes one each to idle ones", () => {
    const pool = new SlotPool(small);
    // Shared part: 10 - 3 = 7.
    expect(pool.holdSpare("a")).toBe(4);
    expect(pool.holdSpare("b")).toBe(3);
    expect(pool.holdSpare("b")).toBe(0);
    // The shared part is gone: each idle subscription still gets one, until the pool is empty.
    expect(["c", "d", "e", "f"].map((id) => pool.holdSpare(id))).toEqual([1, 1, 1, 0]);
    expect(pool.inFlight()).toBe(10);
    // One that holds its reserved slot gets no second from the reserve.
    pool.release("a", 1);
    expect(pool.free("c")).toBe(0);
    expect(pool.free("f")).toBe(1);
  });

  test("the defaults: subscriptions that hang cannot hold the last slots of the process", () => {
    const pool = new SlotPool();
    // Receivers that never answer: twenty subscriptions take all they can.
    let held = 0;
    for (let i = 0; i < 20; i++) held += pool.holdSpare(`hanging-${i}`);
    expect(held).toBeLessThanOrEqual(MAX_IN_FLIGHT - RESERVED_FOR_IDLE + 20);
    // Another partner's subscription still starts at once, and so do many more.
    for (let i = 0; i < RESERVED_FOR_IDLE - 20; i++) expect(pool.holdSpare(`idle-${i}`)).toBeGreaterThanOrEqual(1);
    expect(pool.inFlight()).toBeLessThanOrEqual(MAX_IN_FLIGHT);
  });

  test("a waiting caller gets a freed slot of its subscription before a pass can hold it; first come, first served", async () => {
    const pool = new SlotPool(small);
    expect(pool.holdSpare("a")).toBe(4);
    const order: number[] = [];
    const first = pool.take("a", 5_000).then((ok) => (order.push(1), ok));
    const second = pool.take("a", 5_000).then((ok) => (order.push(2), ok));
    // While callers wait, a pass holds nothing of the subscription.
    pool.release("a", 1);
    expect(pool.holdSpare("a")).toBe(0);
    expect(await first).toBe(true);
    pool.release("a", 1);
    expect(await second).toBe(true);
    expect(order).toEqual([1, 2]);
    expect(pool.inFlight("a")).toBe(4);
  });

  test("a caller that waits in vain holds nothing; another subscription's slots were never its to wait for", async () => {
    const pool = new SlotPool(small);
    pool.holdSpare("a");
    expect(await pool.take("a", 30)).toBe(false);
    expect(pool.inFlight("a")).toBe(4);
    expect(await pool.take("b", 30)).toBe(true);
    pool.release("a", 4);
    // Nobody waits any more: the pass may hold them.
    expect(pool.holdSpare("a")).toBe(4);
  });

  test("a caller waiting behind a pool held by others is granted the slot that an idle subscription may take", async () => {
    const pool = new SlotPool(small);
    for (const id of ["a", "b", "c", "d"]) pool.holdSpare(id);
    expect(pool.inFlight()).toBe(9);
    // "f" has nothing under way: its test event starts at once.
    expect(await pool.take("f", 30)).toBe(true);
    expect(pool.inFlight()).toBe(10);
  });
});
