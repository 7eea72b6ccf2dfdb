// Fuzz: POST /v1/leads against a model. Each generated body knows, field by field, whether it is
// valid; the server must agree exactly: 201 with the trimmed values (stored as answered, linked
// only to a published property of the caller's own database) or 400 naming exactly the bad
// fields, and the lead count moves by one only on a 201. Read-only keys never land.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { LEAD_SOURCES } from "../../src/catalog/enums.ts";
import { createFuzzTarget, type FuzzTarget } from "./harness.ts";
import { FUZZ_TIMEOUT_MS, fuzzParameters, replays } from "./regressions.ts";
import type { BodySpec } from "./spec.ts";

let target: FuzzTarget;
beforeAll(async () => {
  target = await createFuzzTarget();
});
afterAll(() => target.close());

/** A field's generated value: `undefined` means the key is absent. */
interface Choice {
  value: unknown;
  valid: boolean;
}

const ok = (value: fc.Arbitrary<unknown>): fc.Arbitrary<Choice> => value.map((v) => ({ value: v, valid: true }));
const bad = (value: fc.Arbitrary<unknown>): fc.Arbitrary<Choice> => value.map((v) => ({ value: v, valid: false }));

const padded = (text: fc.Arbitrary<string>) =>
  fc
    .tuple(fc.constantFrom("", " ", "\t", "\n ", "\u00a0"), text, fc.constantFrom("", " ", "  \n"))
    .map(([a, s, b]) => a + s + b);

/** Text whose trimmed length is 1..max and that is well-formed Unicode. */
const goodText = (max: number) =>
  fc
    .oneof(
      fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }),
      fc.integer({ min: 1, max }).map((n) => "x".repeat(n)),
    )
    .filter((s) => s.trim().length >= 1 && s.trim().length <= max && s.isWellFormed());

const wrongType = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant([]),
  fc.array(fc.string(), { minLength: 1, maxLength: 2 }),
  fc.constant({}),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const blank = fc.constantFrom("", " ", "\t\n", "\u3000");
const tooLong = (max: number) => fc.integer({ min: max + 1, max: max + 40 }).map((n) => "y".repeat(n));
const unpaired = fc.constantFrom("\ud800", "a\udc00b", "\udbff");

/** A field's pool: only good values, or good and bad mixed. */
const pick = (good: fc.Arbitrary<Choice>, worse: fc.Arbitrary<Choice>[], clean: boolean) =>
  clean ? good : fc.oneof({ weight: 4, arbitrary: good }, ...worse.map((arbitrary) => ({ weight: 1, arbitrary })));

const required = (max: number, clean: boolean) =>
  pick(
    ok(padded(goodText(max))),
    [bad(fc.constantFrom(undefined, null)), bad(fc.oneof(blank, tooLong(max), unpaired, wrongType))],
    clean,
  );

const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,8}[a-z0-9])?$/);
const goodEmail = fc
  .tuple(fc.stringMatching(/^[a-z0-9._+-]{1,20}$/), fc.array(label, { minLength: 2, maxLength: 3 }))
  .map(([local, labels]) => `${local}@${labels.join(".")}`);
const email = (clean: boolean) =>
  pick(
    ok(padded(goodEmail)),
    [
      bad(
        fc.constantFrom(
          undefined,
          null,
          "",
          "no-at",
          "a@b",
          "a@@b.co",
          "a b@c.co",
          "@b.co",
          "a@-b.co",
          `${"l".repeat(65)}@b.co`,
        ),
      ),
      bad(fc.oneof(wrongType, unpaired)),
    ],
    clean,
  );

const optional = (max: number, clean: boolean) =>
  pick(
    fc.oneof(ok(fc.constantFrom(undefined, null, "", "  ")), ok(padded(goodText(max)))),
    [bad(fc.oneof(tooLong(max), unpaired, wrongType))],
    clean,
  );

const source = (clean: boolean) =>
  pick(
    ok(fc.constantFrom(undefined, null, ...LEAD_SOURCES)),
    [bad(fc.oneof(fc.constantFrom("api", "Website", "", " API", "NONE"), wrongType))],
    clean,
  );

/** propertyCode: one of ours, one that is unpublished, the other tenant's, or junk. */
const propertyCode = (clean: boolean) =>
  fc.oneof(ok(fc.constantFrom(":ownCode", ":unpublishedCode", ":otherCode")), optional(100, clean));

/** Keys the server must ignore: read-only lead fields and anything else. */
const ignored = fc.dictionary(
  fc.oneof(
    fc.constantFrom(
      "id",
      "status",
      "priority",
      "propertyId",
      "createdAt",
      "updatedAt",
      "isPublished",
      "constructor",
      "__proto__",
    ),
    fc.string({ maxLength: 10 }),
  ),
  fc.jsonValue({ maxDepth: 2 }),
  { maxKeys: 4 },
);

const FIELDS = [
  "name",
  "email",
  "phone",
  "message",
  "source",
  "propertyCode",
  "interestedPropertyTitle",
  "interestedPropertyLink",
  "trafficOrigin",
] as const;

const leadOf = (clean: boolean) =>
  fc.record({
    name: required(200, clean),
    email: email(clean),
    phone: required(40, clean),
    message: required(5000, clean),
    source: source(clean),
    propertyCode: propertyCode(clean),
    interestedPropertyTitle: optional(300, clean),
    interestedPropertyLink: optional(2048, clean),
    trafficOrigin: optional(500, clean),
  });

/** A third of the bodies are valid throughout, so creation is explored as much as refusal. */
const leadArb = fc.oneof({ weight: 1, arbitrary: leadOf(true) }, { weight: 2, arbitrary: leadOf(false) });

/** The same JSON sent whole, pretty, or streamed in chunks cut at arbitrary code points. */
const framing = fc.constantFrom("plain", "pretty", "chunked");
const JSON_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "Application/JSON",
  "application/vnd.partner+json",
];
const contentType = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...JSON_TYPES) },
  { weight: 1, arbitrary: fc.constantFrom("text/plain", "application/x-www-form-urlencoded", "") },
);

function bodyOf(text: string, how: string, cuts: number[]): BodySpec {
  if (how === "plain") return { kind: "text", text };
  if (how === "pretty") return { kind: "text", text: JSON.stringify(JSON.parse(text), null, 2) };
  const points = Array.from(text);
  const at = [...new Set(cuts.map((c) => c % (points.length + 1)))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let from = 0;
  for (const cut of [...at, points.length]) {
    chunks.push(points.slice(from, cut).join(""));
    from = cut;
  }
  return { kind: "chunked", chunks };
}

const caseArb = fc.record({
  lead: leadArb,
  extra: ignored,
  how: framing,
  cuts: fc.array(fc.nat(), { maxLength: 4 }),
  type: contentType,
});

const property = () =>
  fc.asyncProperty(caseArb, async ({ lead, extra, how, cuts, type }) => {
    const codes: Record<string, string> = {
      ":ownCode": target.own.propertyCode,
      ":unpublishedCode": target.own.unpublishedCode,
      ":otherCode": target.other.propertyCode,
    };
    const body: Record<string, unknown> = { ...extra };
    for (const field of FIELDS) {
      let value = lead[field].value;
      if (typeof value === "string" && Object.hasOwn(codes, value)) value = codes[value];
      if (value === undefined) delete body[field];
      else body[field] = value;
    }
    const invalid = FIELDS.filter((f) => !lead[f].valid).sort();
    const before = target.leadCount();
    const { observed, problems } = await target.send({
      method: "POST",
      path: "/v1/leads",
      headers: type === "" ? [] : [["content-type", type]],
      auth: { kind: "valid" },
      body: bodyOf(JSON.stringify(body), how, cuts),
    });
    const fail = (why: string) => {
      throw new Error(
        `${why}\nbody: ${JSON.stringify(body).slice(0, 500)}\n${observed.status} ${observed.body.slice(0, 400)}`,
      );
    };
    if (problems.length > 0) throw new Error(problems.join("\n"));
    const answer = JSON.parse(observed.body);
    const created = target.leadCount() - before;
    if (created !== (observed.status === 201 ? 1 : 0)) fail(`${created} leads created for a ${observed.status}`);
    if (!JSON_TYPES.includes(type)) {
      if (observed.status !== 415) fail("a non-JSON media type must be 415");
      return;
    }
    if (invalid.length > 0) {
      if (observed.status !== 400 || answer.code !== "VALIDATION_ERROR") fail(`expected 400 naming ${invalid}`);
      const named = [...new Set((answer.details as { field: string }[]).map((d) => d.field))].sort();
      if (JSON.stringify(named) !== JSON.stringify(invalid)) fail(`400 named ${named}, invalid were ${invalid}`);
      return;
    }
    if (observed.status !== 201) fail("a valid lead must be created");
    const data = answer.data;
    const trimmed = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v.trim() : null);
    const link =
      typeof body.propertyCode === "string" && body.propertyCode.trim() !== ""
        ? target.publishedByCode(body.propertyCode.trim())
        : null;
    const expected = {
      name: trimmed(body.name),
      email: trimmed(body.email),
      phone: trimmed(body.phone),
      message: trimmed(body.message),
      source: body.source ?? "API",
      status: "NEW_LEAD",
      priority: "MEDIUM",
      propertyId: link?.id ?? null,
      interestedPropertyTitle: trimmed(body.interestedPropertyTitle) ?? link?.title ?? null,
    };
    for (const [key, value] of Object.entries(expected))
      if (data[key] !== value) fail(`${key}: ${JSON.stringify(data[key])} ≠ ${JSON.stringify(value)}`);
    if (data.id === body.id || data.createdAt !== data.updatedAt) fail("read-only keys leaked into the lead");
    const stored = await target.t.get(
      `/v1/leads/${data.id}?fields=${Object.keys(data).join(",")}`,
      target.tokens.portal,
    );
    if (JSON.stringify(((await stored.json()) as { data: unknown }).data) !== JSON.stringify(data))
      fail("stored lead differs from the 201");
  });

describe("fuzz: lead bodies against a field-by-field model", () => {
  test(
    "201 exactly when every field is valid, with the values stored as answered; else 400 naming exactly the bad fields",
    async () => {
      await fc.assert(property(), fuzzParameters(400, 6_000));
    },
    FUZZ_TIMEOUT_MS,
  );

  test(
    "stored regression seeds",
    async () => {
      for (const parameters of replays("leads")) await fc.assert(property(), parameters);
    },
    FUZZ_TIMEOUT_MS,
  );

  test("the other tenant's database got no lead from any of it", async () => {
    const response = await target.t.get("/v1/leads?fields=id&limit=1", target.tokens.other);
    expect(((await response.json()) as { meta: { total: number } }).meta.total).toBe(80);
  });
});
