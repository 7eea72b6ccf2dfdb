// Fuzz: the read routes with a valid token and query strings of junk. Beyond the contract's shape:
// a 200 page holds only the requested keys, at most `limit` items and true meta; a bad
// page/limit/fields is always a 400 naming that parameter, never clamped or ignored.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { LEAD_CATALOG } from "../../src/catalog/leads.ts";
import { PROPERTY_CATALOG } from "../../src/catalog/properties.ts";
import { component, fieldsValue, junkText } from "./arbitraries.ts";
import { createFuzzTarget, type FuzzTarget } from "./harness.ts";
import { FUZZ_TIMEOUT_MS, fuzzParameters, replays } from "./regressions.ts";

let target: FuzzTarget;
beforeAll(async () => {
  target = await createFuzzTarget();
});
afterAll(() => target.close());

const ROUTES = ["/v1/properties", "/v1/leads", "/v1/changes", "/v1/properties/:ownProperty", "/v1/leads/:ownLead"];
const PARAMS = [
  "page",
  "limit",
  "sort",
  "status",
  "createdAfter",
  "updatedBefore",
  "code",
  "source",
  "entity",
  "after",
];

const value = fc.oneof(
  { weight: 3, arbitrary: junkText() },
  { weight: 3, arbitrary: fieldsValue },
  { weight: 2, arbitrary: fc.integer({ min: -3, max: 130 }).map(String) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "-createdAt",
      "updatedAt",
      "AVAILABLE",
      "NEW_LEAD",
      "leads",
      "properties",
      "2026-01-01T00:00:00Z",
    ),
  },
);

const NAMES: Record<string, string[]> = {
  properties: PROPERTY_CATALOG.fields.map((f) => f.name),
  leads: LEAD_CATALOG.fields.map((f) => f.name),
};

/**
 * Most queries start with real fields of the route's entity (or a real entity for the feed), so
 * the other parameters get past that check to be judged; the rest is junk in any order.
 */
const queryFor = (route: string) => {
  const first =
    route === "/v1/changes"
      ? fc.constantFrom("entity=leads", "entity=properties", "")
      : fc
          .subarray(NAMES[route.includes("properties") ? "properties" : "leads"]!, { minLength: 1 })
          .map((names) => `fields=${names.join(",")}`);
  const rest = fc.array(
    fc.tuple(
      component(fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...PARAMS) }, { weight: 1, arbitrary: junkText(8) })),
      component(value),
    ),
    { maxLength: 4 },
  );
  return fc
    .tuple(
      fc.oneof(
        { weight: 5, arbitrary: first },
        { weight: 1, arbitrary: component(fieldsValue).map((v) => `fields=${v}`) },
      ),
      rest,
    )
    .map(([head, pairs]) => [head, ...pairs.map(([k, v]) => `${k}=${v}`)].filter((p) => p !== "").join("&"));
};

const requestOf = fc.constantFrom(...ROUTES).chain((route) => queryFor(route).map((q) => ({ route, q })));

function expectation(route: string, q: string): { mustFail: string[] } {
  const params = new URLSearchParams(q);
  const mustFail: string[] = [];
  const fields = params.getAll("fields");
  if (route !== "/v1/changes" && (fields.length === 0 || fields[0]!.split(",").every((n) => n.trim() === "")))
    mustFail.push("fields");
  if (!route.includes(":")) {
    for (const [name, max] of [
      ["page", 1_000_000_000],
      ["limit", route === "/v1/changes" ? 1000 : 100],
    ] as const) {
      const given = params.getAll(name);
      if (
        given.length > 1 ||
        (given.length === 1 && !(/^\d+$/.test(given[0]!) && Number(given[0]) >= 1 && Number(given[0]) <= max))
      ) {
        if (!(route === "/v1/changes" && name === "page")) mustFail.push(name);
      }
    }
  }
  return { mustFail };
}

const property = () =>
  fc.asyncProperty(requestOf, async ({ route, q }) => {
    const { observed, problems } = await target.send({
      method: "GET",
      path: `${route}?${q}`,
      headers: [],
      auth: { kind: "valid" },
      body: { kind: "none" },
    });
    const fail = (why: string) => {
      throw new Error(`${why}\nGET ${route}?${q}\n${observed.status} ${observed.body.slice(0, 300)}`);
    };
    if (problems.length > 0) throw new Error(problems.join("\n"));
    if (![200, 400, 404].includes(observed.status)) fail("unexpected status");
    const body = JSON.parse(observed.body);
    const { mustFail } = expectation(route, q);
    if (mustFail.length > 0 && observed.status !== 400) fail(`should have refused ${mustFail.join(", ")}`);
    if (observed.status === 400 && body.code === "VALIDATION_ERROR") {
      const named = new Set((body.details as { field: string }[]).map((d) => d.field));
      for (const p of mustFail) if (!named.has(p)) fail(`400 does not name ${p}`);
    }
    if (
      (observed.status === 200 && route.endsWith("/properties")) ||
      (observed.status === 200 && route.endsWith("/leads"))
    ) {
      const params = new URLSearchParams(q);
      const { meta, data } = body;
      const limit = Number(params.get("limit") ?? 20);
      if (meta.limit !== limit || meta.page !== Number(params.get("page") ?? 1)) fail("meta does not echo page/limit");
      if (data.length > limit || meta.totalPages !== Math.ceil(meta.total / limit)) fail("meta is not true");
      const asked = [
        ...new Set(
          params
            .get("fields")!
            .split(",")
            .map((n) => n.trim())
            .filter(Boolean),
        ),
      ];
      for (const item of data)
        if (JSON.stringify(Object.keys(item)) !== JSON.stringify(asked)) fail(`keys ${Object.keys(item)} ≠ ${asked}`);
    }
  });

describe("fuzz: read routes under junk query strings", () => {
  test(
    "200 with exactly what was asked, or a 400 naming the bad parameter",
    async () => {
      await fc.assert(property(), fuzzParameters(700, 5_000));
    },
    FUZZ_TIMEOUT_MS,
  );

  test(
    "stored regression seeds",
    async () => {
      for (const parameters of replays("queries")) await fc.assert(property(), parameters);
    },
    FUZZ_TIMEOUT_MS,
  );

  test("the caches those queries filled still answer correctly", async () => {
    const response = await target.t.get("/v1/properties?fields=id&limit=5", target.tokens.portal);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: unknown[] }).data).toHaveLength(5);
  });
});
