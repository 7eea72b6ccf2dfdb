// The arrows of docs/internals/architecture.md ("Which way imports point") as a rule over every
// import of src/: value, type-only (`import type`, `import { type X }`, `export type … from`),
// dynamic (`import()`) and type-position (`typeof import("…")`) imports alike. Bun's transpiler
// drops type-only imports when it scans, so the files are parsed with oxc-parser instead.

import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { Glob } from "bun";
import { parseSync } from "oxc-parser";

/** One import of one file of src/, both paths relative to src/. */
export interface ImportEdge {
  from: string;
  to: string;
  typeOnly: boolean;
}

/**
 * The layers, top to bottom. A file may import its own unit and any unit of a lower layer; never
 * a unit of its own layer or above. A unit is a top-level file, a top-level folder (`config/`),
 * a feature module (`modules/leads/`) or a file named here on its own (the entry points, the
 * closed vocabularies every layer names).
 */
export const LAYERS: readonly (readonly string[])[] = [
  ["main.ts", "reads/reader-thread.ts"], // entry points: the process's and each reader thread's
  ["cli/"],
  ["openapi.ts"], // the partners' OpenAPI document, assembled from the app's routes
  ["app.ts"],
  ["modules/*"], // the features: a module imports no other module
  ["plugins/"],
  ["runtime.ts"],
  ["reads/"],
  ["agency/", "seed/", "usage/"], // usage/: what each partner's requests come to, recorded for the agency
  ["config/"],
  ["docs/"], // the OpenAPI toolkit: imports no module
  ["query/"], // the query engine the modules share: lists, filters, search terms, the listing index
  ["catalog/"],
  ["security/", "redis/", "formats/"],
  ["limits/", "db/"],
  ["metrics/"],
  [
    "catalog/enums.ts", // the closed vocabularies, named by the config, formats and the seed alike
    "reads/settings.ts", // the reader threads' defaults, which the config's schema states
    "usage/settings.ts", // the request log's defaults, which the config's schema states
    "errors.ts",
    "clock.ts",
    "logging.ts",
    "lib/",
    "allocator.ts",
    "background-priority.ts",
    "writable.ts",
    "version.ts",
  ],
  ["executable.ts"],
];

/**
 * Imports against the layers that the code keeps on purpose, each with its reason. A pair is
 * `[from, to]`, each a unit or a file (relative to src/).
 */
export const EXCEPTIONS: readonly { from: string; to: string; why: string }[] = [
  {
    from: "modules/inbound/",
    to: "modules/leads/",
    why: "a portal's lead is written by the one write of a lead (leads/service.ts)",
  },
  {
    from: "security/credentials.ts",
    to: "config/",
    why: "the key → IP → secret check reads the clients of the config",
  },
  {
    from: "security/inbound-auth.ts",
    to: "config/",
    why: "the portal-lead check reads its settings from the config",
  },
  { from: "lib/per-tenant.ts", to: "db/", why: "a value per open database names the Tenant type" },
];

/** Packages a unit never imports: HTTP stays above the services and their libraries. */
export const FORBIDDEN_PACKAGES: readonly { units: readonly string[]; packages: RegExp; except?: string }[] = [
  {
    units: ["security/", "limits/", "formats/", "catalog/", "db/", "query/", "docs/"],
    packages: /^(elysia|@elysiajs\/)/,
    // Takes the verify function of @elysiajs/jwt and none of Elysia's request handling.
    except: "security/tokens.ts",
  },
];

/** Pairs of units that never meet, whatever their layers say. */
export const FORBIDDEN_PAIRS: readonly { from: string; to: string; why: string; except?: string }[] = [
  { from: "formats/", to: "db/", why: "formats know nothing of the database" },
  {
    from: "reads/",
    to: "query/",
    why: "the reader threads run the routes' own functions and know nothing of how a search is made",
    except: "reads/reader-thread.ts",
  },
];

const SRC = resolve(import.meta.dir, "../../src");

/** The unit a path (relative to src/) belongs to, the most specific one the layers name. */
export function unitOf(path: string): string {
  for (const layer of LAYERS) for (const unit of layer) if (unit === path) return unit;
  const parts = path.split("/");
  if (parts[0] === "modules" && parts.length > 2) return `modules/${parts[1]}/`;
  return parts.length > 1 ? `${parts[0]}/` : path;
}

/** The layer of a unit (0 at the top), or -1 for a unit no layer names. */
export function layerOf(unit: string): number {
  return LAYERS.findIndex((layer) =>
    layer.some((u) => u === unit || (u === "modules/*" && unit.startsWith("modules/"))),
  );
}

function covers(pattern: string, path: string): boolean {
  return pattern.endsWith("/") ? path.startsWith(pattern) : path === pattern;
}

/** Every relative import of a source text, with whether it carries types only. */
export function importsOf(file: string, code: string): { specifier: string; typeOnly: boolean }[] {
  const parsed = parseSync(file, code);
  const found: { specifier: string; typeOnly: boolean }[] = [];
  for (const entry of parsed.module.staticImports) {
    // `import "./x.ts"` has no entries and runs the module: a value import.
    const typeOnly = entry.entries.length > 0 && entry.entries.every((e) => e.isType);
    found.push({ specifier: entry.moduleRequest.value, typeOnly });
  }
  for (const entry of parsed.module.staticExports) {
    const reexports = entry.entries.filter((e) => e.moduleRequest);
    if (reexports.length === 0) continue;
    found.push({ specifier: reexports[0]?.moduleRequest?.value ?? "", typeOnly: reexports.every((e) => e.isType) });
  }
  for (const dynamic of parsed.module.dynamicImports) {
    const text = code.slice(dynamic.moduleRequest.start, dynamic.moduleRequest.end);
    if (/^["'`]/.test(text)) found.push({ specifier: text.slice(1, -1), typeOnly: false });
  }
  // `typeof import("./x.ts")` and `import("./x.ts").Name` in type positions.
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const child of node) walk(child);
      return;
    }
    if (!node || typeof node !== "object") return;
    const record = node as Record<string, unknown>;
    if (record.type === "TSImportType") {
      const specifier = (record.source as { value?: unknown } | undefined)?.value;
      if (typeof specifier === "string") found.push({ specifier, typeOnly: true });
    }
    for (const key in record) if (key !== "parent") walk(record[key]);
  };
  walk(parsed.program);
  return found.filter((i) => i.specifier.startsWith("."));
}

function resolveImport(fromAbsolute: string, specifier: string): string {
  const target = resolve(dirname(fromAbsolute), specifier);
  if (existsSync(target)) return target;
  for (const ext of [".ts", "/index.ts"]) if (existsSync(target + ext)) return target + ext;
  return target;
}

/**
 * Every import between files of src/ (imports of files outside src/, such as package.json, are
 * left out). `overrides` replaces or adds source texts by path relative to src/: how a test
 * shows the rule catching an import the code does not have.
 */
export function importGraph(overrides: Record<string, string> = {}): ImportEdge[] {
  const files = new Set([...new Glob("**/*.ts").scanSync(SRC)].filter((f) => !f.endsWith(".d.ts")));
  for (const path of Object.keys(overrides)) files.add(path);
  const edges: ImportEdge[] = [];
  for (const path of [...files].sort()) {
    const absolute = join(SRC, path);
    const code = overrides[path] ?? readFileSync(absolute, "utf8");
    for (const { specifier, typeOnly } of importsOf(path, code)) {
      const target = relative(SRC, resolveImport(absolute, specifier));
      if (target.startsWith("..")) continue;
      edges.push({ from: path, to: target, typeOnly });
    }
  }
  return edges;
}

/** The imports against the arrows, each said in one line. */
export function violations(edges: readonly ImportEdge[]): string[] {
  const found: string[] = [];
  for (const edge of edges) {
    const from = unitOf(edge.from);
    const to = unitOf(edge.to);
    if (from === to) continue;
    const line = `${edge.from} → ${edge.to}${edge.typeOnly ? " (types)" : ""}`;
    const forbidden = FORBIDDEN_PAIRS.find(
      (p) => covers(p.from, edge.from) && covers(p.to, edge.to) && p.except !== edge.from,
    );
    if (forbidden) {
      found.push(`${line}: ${forbidden.why}`);
      continue;
    }
    const excepted = EXCEPTIONS.some((e) => covers(e.from, edge.from) && covers(e.to, edge.to));
    if (excepted) continue;
    const fromLayer = layerOf(from);
    const toLayer = layerOf(to);
    if (fromLayer < 0) found.push(`${line}: ${from} is in no layer`);
    else if (toLayer < 0) found.push(`${line}: ${to} is in no layer`);
    else if (toLayer <= fromLayer) {
      const what = toLayer === fromLayer ? "its own layer" : "a layer above it";
      found.push(`${line}: ${from} imports ${to}, of ${what}`);
    }
  }
  return found;
}

/** Packages imported where the rule forbids them. */
export function forbiddenPackages(overrides: Record<string, string> = {}): string[] {
  const found: string[] = [];
  const files = new Set([...new Glob("**/*.ts").scanSync(SRC)].filter((f) => !f.endsWith(".d.ts")));
  for (const path of Object.keys(overrides)) files.add(path);
  for (const path of [...files].sort()) {
    const rules = FORBIDDEN_PACKAGES.filter((r) => r.units.some((u) => covers(u, path)) && r.except !== path);
    if (rules.length === 0) continue;
    const code = overrides[path] ?? readFileSync(join(SRC, path), "utf8");
    const parsed = parseSync(path, code);
    const specifiers = [
      ...parsed.module.staticImports.map((i) => i.moduleRequest.value),
      ...parsed.module.staticExports.flatMap((e) => e.entries.map((x) => x.moduleRequest?.value ?? "")),
    ];
    for (const specifier of specifiers)
      if (rules.some((r) => r.packages.test(specifier))) found.push(`${path} imports ${specifier}`);
  }
  return found;
}

/** Every cycle of files (types included), each as its files in order; none is the rule. */
export function cycles(edges: readonly ImportEdge[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) {
    if (from === to) continue;
    const list = next.get(from) ?? [];
    list.push(to);
    next.set(from, list);
  }
  // Tarjan's strongly connected components: each component of more than one file is a cycle.
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    indices.set(node, index);
    low.set(node, index);
    index++;
    stack.push(node);
    onStack.add(node);
    for (const target of next.get(node) ?? []) {
      if (!indices.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node) ?? 0, indices.get(target) ?? 0));
    }
    if (low.get(node) === indices.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member === undefined) break;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const node of [...next.keys()].sort()) if (!indices.has(node)) visit(node);
  return components;
}
