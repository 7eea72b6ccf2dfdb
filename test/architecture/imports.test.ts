// Every import of src/ follows the arrows of docs/internals/architecture.md, and no files import
// each other in a cycle, even through types only.
import { describe, expect, test } from "bun:test";
import { cycles, forbiddenPackages, importGraph, importsOf, LAYERS, unitOf, violations } from "./imports.ts";

describe("imports of src/", () => {
  const graph = importGraph();

  test("the scan finds the imports the code has", () => {
    // Two imports read off the files by hand, one of them of types only.
    expect(graph.length).toBeGreaterThan(500);
    expect(graph).toContainEqual({ from: "main.ts", to: "version.ts", typeOnly: false });
    expect(graph).toContainEqual({ from: "lib/per-tenant.ts", to: "db/tenants.ts", typeOnly: true });
  });

  test("point down the layers", () => {
    expect(violations(graph)).toEqual([]);
  });

  test("form no cycle, types included", () => {
    expect(cycles(graph)).toEqual([]);
  });

  test("keep HTTP out of the layers below the routes", () => {
    expect(forbiddenPackages()).toEqual([]);
  });

  test("every file belongs to a layer", () => {
    const unplaced = graph.flatMap((e) => [e.from, e.to]).filter((f) => !placed(f));
    expect([...new Set(unplaced)]).toEqual([]);
  });
});

function placed(path: string): boolean {
  const unit = unitOf(path);
  return LAYERS.some((layer) => layer.some((u) => u === unit || (u === "modules/*" && unit.startsWith("modules/"))));
}

describe("the rule catches", () => {
  test("a type-only import, in each of its spellings", () => {
    const found = importsOf(
      "x.ts",
      [
        'import type { A } from "./a.ts";',
        'import { type B } from "./b.ts";',
        'export type { D } from "./d.ts";',
        'type G = typeof import("./g.ts");',
        'import { C } from "./c.ts";',
        'import "./side-effect.ts";',
        'const later = await import("./later.ts");',
      ].join("\n"),
    );
    expect(found).toEqual([
      { specifier: "./a.ts", typeOnly: true },
      { specifier: "./b.ts", typeOnly: true },
      { specifier: "./c.ts", typeOnly: false },
      { specifier: "./side-effect.ts", typeOnly: false },
      { specifier: "./d.ts", typeOnly: true },
      { specifier: "./later.ts", typeOnly: false },
      { specifier: "./g.ts", typeOnly: true },
    ]);
  });

  test("a module importing another module", () => {
    const source = 'import type { LeadInput } from "../leads/model.ts";\nexport type X = LeadInput;\n';
    const graph = importGraph({ "modules/health/extra.ts": source });
    expect(violations(graph)).toEqual([
      "modules/health/extra.ts → modules/leads/model.ts (types): modules/health/ imports modules/leads/, of its own layer",
    ]);
  });

  test("a lower layer importing a higher one", () => {
    const source = 'import { ApiError } from "../errors.ts";\nimport { guard } from "../plugins/guard.ts";\n';
    const graph = importGraph({ "catalog/extra.ts": source });
    expect(violations(graph)).toEqual([
      "catalog/extra.ts → plugins/guard.ts: catalog/ imports plugins/, of a layer above it",
    ]);
  });

  test("the formats reaching for the database", () => {
    const graph = importGraph({ "formats/extra.ts": 'import type { Tenant } from "../db/tenants.ts";\n' });
    expect(violations(graph)).toEqual([
      "formats/extra.ts → db/tenants.ts (types): formats know nothing of the database",
    ]);
  });

  test("a reader thread's pool reaching into the query engine", () => {
    const graph = importGraph({ "reads/extra.ts": 'import type { Search } from "../query/filters.ts";\n' });
    expect(violations(graph)).toEqual([
      "reads/extra.ts → query/filters.ts (types): the reader threads run the routes' own functions and know nothing of how a search is made",
    ]);
  });

  test("a cycle made of types only", () => {
    const graph = importGraph({
      "lib/one.ts": 'import type { Two } from "./two.ts";\nexport type One = Two[];\n',
      "lib/two.ts": 'import type { One } from "./one.ts";\nexport type Two = One | string;\n',
    });
    expect(cycles(graph)).toEqual([["lib/one.ts", "lib/two.ts"]]);
  });

  test("Elysia below the routes", () => {
    expect(forbiddenPackages({ "db/extra.ts": 'import { Elysia } from "elysia";\n' })).toEqual([
      "db/extra.ts imports elysia",
    ]);
  });
});
