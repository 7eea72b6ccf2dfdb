// The second column of a run that compares this build with itself, changed one way: its config
// with an overlay merged in (`--variant-config '<json>'`), and/or its console enabled with an
// owner signed in whose session keeps loading a console page during the run (`--console`).
// Both columns then run `serve` on a config like the sandbox's (its credentials, a limit never
// reached), each on its own copy of the dataset, so the overlay or the session is the only
// difference between them.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ControlStore } from "../../src/db/control/store.ts";
import { SCOPES } from "../../src/security/scopes.ts";
import { hashSecret } from "../../src/security/secrets.ts";
import { API_KEY, API_SECRET } from "./api.ts";

export interface Variant {
  /** Merged into the variant's config (objects key by key, anything else replaced). */
  overlay: Record<string, unknown> | null;
  /** An owner signed in to the console, loading a page every CONSOLE_EVERY_MS. */
  console: boolean;
}

/** The variant the flags ask for, or null; a message naming the problem for a bad overlay. */
export function parseVariant(overlayJson: string | undefined, console: boolean): Variant | null {
  if (overlayJson === undefined && !console) return null;
  let overlay: Record<string, unknown> | null = null;
  if (overlayJson !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(overlayJson);
    } catch (error) {
      throw new Error(`--variant-config is not JSON: ${(error as Error).message}`);
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed))
      throw new Error("--variant-config must be a JSON object, merged into the product's config");
    overlay = parsed as Record<string, unknown>;
  }
  return { overlay, console };
}

/** What the report calls the variant column. */
export function variantLabel(variant: Variant): string {
  return [
    ...(variant.overlay ? [`config overlay \`${JSON.stringify(variant.overlay)}\``] : []),
    ...(variant.console ? ["console enabled, an owner signed in loading a console page every 2 s"] : []),
  ].join(" and ");
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** `overlay` merged into `base`: objects key by key (recursively), arrays and scalars replaced. */
export function mergeConfig(base: Record<string, unknown>, overlay: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overlay))
    out[key] = isObject(value) && isObject(out[key]) ? mergeConfig(out[key], value) : value;
  return out;
}

/** A config like the sandbox's for `serve`: its credentials on the dataset copy, a limit never reached. */
export function benchConfig(db: string, control: string): Record<string, unknown> {
  return {
    environment: "sandbox",
    jwtSecret: "bench-secret-long-enough-for-the-variant-comparison",
    databases: { bench: db },
    control,
    clients: [
      {
        id: "sandbox",
        apiKey: API_KEY,
        secretHash: hashSecret(API_SECRET),
        database: "bench",
        rateLimitPerMinute: 1_000_000_000,
        // Every scope, as the sandbox's client: the scenarios read every lead.
        scopes: [...SCOPES],
      },
    ],
  };
}

/** Writes one column's config file: the base, with the variant's overlay for the variant column. */
export function writeColumnConfig(path: string, db: string, control: string, overlay: Variant["overlay"]): void {
  const base = benchConfig(db, control);
  writeFileSync(path, JSON.stringify(overlay ? mergeConfig(base, overlay) : base, null, 2));
}

export const CONSOLE_EMAIL = "owner@bench.invalid";
const CONSOLE_PASSWORD = "bench-owner-password-1";
/** A person at the console: a page and what its script asks, every 2 s. */
export const CONSOLE_EVERY_MS = 2_000;

/** A control database holding one active owner (no TOTP, as the sandbox's demo owner). */
export async function ownerControl(dir: string, label: string): Promise<string> {
  const path = join(dir, `variant-control-${label}.sqlite`);
  const store = ControlStore.open(path, { create: true });
  try {
    if (store.adminByEmail(CONSOLE_EMAIL) === null)
      store.insertAdmin({
        email: CONSOLE_EMAIL,
        role: "owner",
        databases: [],
        status: "active",
        passwordHash: await Bun.password.hash(CONSOLE_PASSWORD, { algorithm: "argon2id" }),
        setupTokenHash: null,
        setupExpiresAt: null,
        createdAt: Date.now(),
      });
  } finally {
    store.close();
  }
  return path;
}

export interface ConsoleSession {
  /** Pages loaded so far, and answers other than 200. */
  readonly loads: { pages: number; failures: number };
  stop(): Promise<void>;
}

/**
 * Signs the owner in (POST /admin/v1/sessions) and, until stopped, loads the partners page as a
 * browser would every CONSOLE_EVERY_MS: the page, then the two admin API calls its script makes.
 */
export async function signedInConsole(base: string): Promise<ConsoleSession> {
  const signIn = await fetch(`${base}/admin/v1/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: CONSOLE_EMAIL, password: CONSOLE_PASSWORD, code: "" }),
  });
  const body = await signIn.text();
  const cookie = signIn.headers.get("set-cookie")?.split(";")[0];
  if (signIn.status !== 201 || !cookie) throw new Error(`console sign-in answered ${signIn.status}: ${body}`);
  const loads = { pages: 0, failures: 0 };
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      for (const path of ["/console/partners", "/admin/v1/me", "/admin/v1/partners"]) {
        const answer = await fetch(base + path, { headers: { cookie } }).catch(() => null);
        await answer?.arrayBuffer();
        if (answer?.status !== 200) loads.failures++;
      }
      loads.pages++;
      await Bun.sleep(CONSOLE_EVERY_MS);
    }
  })();
  return {
    loads,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}
