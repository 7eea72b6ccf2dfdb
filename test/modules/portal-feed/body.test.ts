// The feed body as a stream (body.ts, gzip.ts, turns.ts): the producer works only while the
// reader reads, a reader that goes away stops it, a failure is never a clean end, gzip is one
// valid member, and slices give the event loop back.
import { describe, expect, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import type { Sink } from "../../../src/agency/export.ts";
import { type BodyEnd, feedBody } from "../../../src/modules/portal-feed/body.ts";
import { GzipPieces } from "../../../src/modules/portal-feed/gzip.ts";
import { SLICE_MS, Turns } from "../../../src/modules/portal-feed/turns.ts";

const LINE = `<Listing>${"x".repeat(1000)}</Listing>\n`;

/** A producer writing `count` lines; `written()` says how many it got through. */
function producer(count: number, failAt?: number) {
  let written = 0;
  return {
    written: () => written,
    produce: async (sink: Sink) => {
      for (let i = 0; i < count; i++) {
        if (i === failAt) throw new Error("disk on fire");
        await sink.write(LINE);
        written++;
      }
    },
  };
}

function body(
  produce: (sink: Sink) => Promise<void>,
  options: { gzip?: boolean; timeLimitMs?: number; signal?: AbortSignal } = {},
) {
  let resolveEnd!: (end: BodyEnd) => void;
  const ended = new Promise<BodyEnd>((resolve) => (resolveEnd = resolve));
  const stream = feedBody(produce, {
    gzip: options.gzip ?? false,
    timeLimitMs: options.timeLimitMs ?? 60_000,
    signal: options.signal,
    onEnd: resolveEnd,
  });
  return { stream, ended };
}

describe("the producer follows the reader", () => {
  test("a whole body reads back as written, and ends complete with its byte count", async () => {
    const p = producer(500);
    const { stream, ended } = body(p.produce);
    const text = await new Response(stream).text();
    expect(text).toBe(LINE.repeat(500));
    expect(await ended).toEqual({ outcome: "complete", bytes: text.length });
  });

  test("unread, it fills the stream's high-water mark and waits there", async () => {
    const p = producer(100_000);
    const { stream } = body(p.produce);
    await Bun.sleep(100);
    expect(p.written() * LINE.length).toBeLessThan(400 * 1024);
    expect(p.written()).toBeGreaterThan(0);
    await stream.cancel();
  });

  test("a reader that stops reading stops the producer after a bounded amount (flat memory)", async () => {
    const p = producer(100_000); // 100 MB if it ran away
    const { stream } = body(p.produce);
    const reader = stream.getReader();
    await reader.read();
    await Bun.sleep(100);
    const first = p.written();
    await Bun.sleep(100);
    expect(p.written()).toBe(first);
    // What waits: at most the stream's high-water mark and one piece, about 320 KiB.
    expect(first * LINE.length).toBeLessThan(400 * 1024);
    await reader.cancel();
  });

  test("a reader that goes away mid-body stops the producer and ends it as hung-up", async () => {
    const p = producer(100_000);
    const { stream, ended } = body(p.produce);
    const reader = stream.getReader();
    for (let i = 0; i < 3; i++) await reader.read();
    await reader.cancel();
    const end = await ended;
    expect(end.outcome).toBe("hung-up");
    const stoppedAt = p.written();
    await Bun.sleep(50);
    expect(p.written()).toBe(stoppedAt);
    expect(stoppedAt).toBeLessThan(100_000);
  });

  test("a request aborted before anything was read ends the body (what it holds is released) without running the producer", async () => {
    const p = producer(10);
    const abort = new AbortController();
    const { ended } = body(p.produce, { signal: abort.signal });
    abort.abort();
    expect((await ended).outcome).toBe("hung-up");
    expect(p.written()).toBe(0);
  });

  test("a request aborted before its body was made ends the body at once", async () => {
    const p = producer(10);
    const abort = new AbortController();
    abort.abort();
    const { ended } = body(p.produce, { signal: abort.signal });
    expect((await ended).outcome).toBe("hung-up");
    expect(p.written()).toBe(0);
  });

  test("a reader too slow for the time limit gets an error, never a clean end", async () => {
    const p = producer(100_000);
    const { stream, ended } = body(p.produce, { timeLimitMs: 100 });
    const reader = stream.getReader();
    await reader.read();
    await Bun.sleep(200);
    expect((await ended).outcome).toBe("too-slow");
    let failed = false;
    try {
      for (;;) if ((await reader.read()).done) break;
    } catch {
      failed = true;
    }
    expect(failed).toBe(true);
  });

  test("a failure mid-body errors the stream: the reader sees a broken body, not a shorter one", async () => {
    const p = producer(2_000, 1_000);
    const { stream, ended } = body(p.produce);
    await expect(new Response(stream).text()).rejects.toThrow();
    const end = await ended;
    expect(end.outcome).toBe("failed");
    expect((end as { error: Error }).error.message).toBe("disk on fire");
  });
});

describe("gzip", () => {
  test("a gzipped body is one valid member holding exactly the text", async () => {
    const p = producer(3_000);
    const { stream } = body(p.produce, { gzip: true });
    const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
    expect(gunzipSync(bytes).toString("utf8")).toBe(LINE.repeat(3_000));
    const check = Bun.spawnSync(["gzip", "-t"], { stdin: bytes });
    expect(check.exitCode).toBe(0);
  });

  test("pieces of any size, none, and text beyond ASCII", () => {
    for (const pieces of [[], [""], ["só um pedaço"], ["ação ", "coração ".repeat(50_000), "", "fim"]]) {
      const gzip = new GzipPieces();
      const parts = pieces.map((piece) => gzip.push(new TextEncoder().encode(piece)));
      const all = Buffer.concat([...parts, gzip.end()]);
      expect(gunzipSync(all).toString("utf8")).toBe(pieces.join(""));
    }
  });
});

describe("turns", () => {
  test("slices of several workers alternate, and timers fire between them", async () => {
    const turns = new Turns();
    const order: string[] = [];
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const worker = async (name: string) => {
      for (let slice = 0; slice < 5; slice++) {
        await turns.next();
        order.push(name);
        const until = performance.now() + SLICE_MS * 3;
        while (performance.now() < until) {
          // busy for longer than a slice
        }
        expect(turns.sliceOver()).toBe(true);
      }
    };
    await Promise.all([worker("a"), worker("b")]);
    clearInterval(timer);
    expect(order).toEqual(["a", "b", "a", "b", "a", "b", "a", "b", "a", "b"]);
    // Ten slices of 3 ms: a timer that could only fire at the end would have ticked once.
    expect(ticks).toBeGreaterThanOrEqual(5);
  });
});
