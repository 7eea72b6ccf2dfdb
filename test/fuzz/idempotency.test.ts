// Fuzz: Idempotency-Key against a model (docs/reference/behaviour.md §9). Random sequences of (client, key, body)
// and bursts of the same request sent at once: the first use creates, the same body replays the
// same lead, another body is 422, keys are per client, and never two leads for one key.
import { afterAll, beforeAll, describe, test } from "bun:test";
import fc from "fast-check";
import { createFuzzTarget, type FuzzTarget } from "./harness.ts";
import { FUZZ_TIMEOUT_MS, fuzzParameters, replays } from "./regressions.ts";

let target: FuzzTarget;
beforeAll(async () => {
  target = await createFuzzTarget();
});
afterAll(() => target.close());

/** Bodies 0 and 1 normalise to the same lead (trimming, an ignored key); 2 and 3 differ. */
const BODIES = [
  { name: "Ana", email: "ana@example.com", phone: "1", message: "m" },
  { name: "  Ana ", email: "ana@example.com", phone: "1", message: "m", status: "LOST" },
  { name: "Bia", email: "ana@example.com", phone: "1", message: "m" },
  { name: "Ana", email: "ana@example.com", phone: "1", message: "m", source: "PHONE" },
];
const normalised = (body: number) => (body === 1 ? 0 : body);

let run = 0;

const post = (who: "portal" | "other", key: string, body: number) =>
  target.send({
    method: "POST",
    path: "/v1/leads",
    headers: [
      ["content-type", "application/json"],
      ["idempotency-key", key],
    ],
    auth: { kind: who === "portal" ? "valid" : "otherTenant" },
    body: { kind: "text", text: JSON.stringify(BODIES[body]) },
  });

const totalOf = async (token: string) =>
  ((await (await target.t.get("/v1/leads?fields=id&limit=1", token)).json()) as { meta: { total: number } }).meta.total;

const op = fc.record({
  who: fc.constantFrom("portal" as const, "other" as const),
  key: fc.constantFrom("k1", "k2", "K1", "k1 "),
  body: fc.nat(3),
});

const sequenceProperty = () =>
  fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 8 }), async (ops) => {
    const prefix = `run-${++run}-`;
    const model = new Map<string, { body: number; id: string }>();
    const before = { portal: await totalOf(target.tokens.portal), other: await totalOf(target.tokens.other) };
    const created = { portal: 0, other: 0 };
    for (const { who, key, body } of ops) {
      const { observed, problems } = await post(who, prefix + key, body);
      if (problems.length > 0) throw new Error(problems.join("\n"));
      // HTTP strips a header value's surrounding whitespace: "k1 " arrives as "k1".
      const slot = `${who}\0${key.trim()}`;
      const first = model.get(slot);
      const answer = JSON.parse(observed.body);
      const replayed = observed.headers.get("idempotent-replayed") === "true";
      const where = `${who} ${JSON.stringify(key)} body ${body}: ${observed.status} ${observed.body.slice(0, 160)}`;
      if (first === undefined) {
        if (observed.status !== 201 || replayed) throw new Error(`first use must create: ${where}`);
        model.set(slot, { body: normalised(body), id: answer.data.id });
        created[who]++;
      } else if (first.body === normalised(body)) {
        if (observed.status !== 201 || !replayed || answer.data.id !== first.id)
          throw new Error(`same body must replay ${first.id}: ${where}`);
      } else if (observed.status !== 422 || answer.code !== "IDEMPOTENCY_KEY_REUSED") {
        throw new Error(`another body must be 422: ${where}`);
      }
    }
    const after = { portal: await totalOf(target.tokens.portal), other: await totalOf(target.tokens.other) };
    if (after.portal - before.portal !== created.portal || after.other - before.other !== created.other) {
      throw new Error(`leads created ${JSON.stringify({ before, after })}, model says ${JSON.stringify(created)}`);
    }
  });

/** The same keyed request n times at once: one lead, n 201s with its id, n-1 of them replays. */
const burstProperty = () =>
  fc.asyncProperty(fc.integer({ min: 2, max: 12 }), fc.nat(3), async (n, body) => {
    const key = `burst-${++run}`;
    const before = target.leadCount();
    const results = await Promise.all(Array.from({ length: n }, () => post("portal", key, body)));
    const ids = new Set(results.map((r) => JSON.parse(r.observed.body).data?.id));
    const replays = results.filter((r) => r.observed.headers.get("idempotent-replayed") === "true").length;
    if (
      results.some((r) => r.observed.status !== 201) ||
      ids.size !== 1 ||
      replays !== n - 1 ||
      target.leadCount() !== before + 1
    ) {
      throw new Error(
        `burst of ${n}: statuses ${results.map((r) => r.observed.status)}, ids ${[...ids]}, replays ${replays}, leads +${target.leadCount() - before}`,
      );
    }
  });

describe("fuzz: Idempotency-Key against a model", () => {
  test(
    "sequences: create once, replay the same body, 422 another, keys scoped per client",
    async () => {
      await fc.assert(sequenceProperty(), fuzzParameters(120, 3_000));
    },
    FUZZ_TIMEOUT_MS,
  );

  test(
    "bursts of one keyed request: never two leads",
    async () => {
      await fc.assert(burstProperty(), fuzzParameters(30, 2_000));
    },
    FUZZ_TIMEOUT_MS,
  );

  test(
    "stored regression seeds",
    async () => {
      for (const parameters of replays("idempotency")) await fc.assert(sequenceProperty(), parameters);
    },
    FUZZ_TIMEOUT_MS,
  );
});
