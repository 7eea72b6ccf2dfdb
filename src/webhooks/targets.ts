// Where a webhook may be sent (CONTRACT §13): an absolute http(s) URL, https only unless the
// config allows http, and, unless the config allows private targets, a host that neither is
// nor resolves to a loopback, private, link-local, unique-local, metadata or other
// special-purpose address. Checked when a subscription is saved and again before every
// attempt against the addresses the host resolves to then; the attempt connects to the
// address that was checked, so a DNS answer that changes in between (rebinding) is never used.
import { lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";
import type { WebhookTargetPolicy } from "../config/model.ts";
import { memo } from "./memo.ts";

export const MAX_URL_LENGTH = 2048;

/** A host's addresses, as the system resolver gives them. Tests pass their own. */
export type Resolve = (hostname: string) => Promise<string[]>;

/**
 * IPv4 first: one address is connected to, and a local receiver (`localhost` in the sandbox)
 * more often listens on 127.0.0.1 than on ::1.
 */
export const systemResolve: Resolve = async (hostname) => (await lookup(hostname, { all: true, order: "ipv4first" })).map((a) => a.address);

/** What an address range is called in a refusal, for the ranges with a common name. */
const RANGE_WORDS: Record<string, string> = {
  loopback: "a loopback",
  private: "a private",
  linkLocal: "a link-local (cloud metadata)",
  uniqueLocal: "a unique-local",
  carrierGradeNat: "a shared (carrier-grade NAT)",
  unspecified: "an unspecified",
  multicast: "a multicast",
  broadcast: "a broadcast",
};

/** What kind of address may not be targeted (e.g. "a private address"), or null for an ordinary public unicast one. */
export function forbiddenAddress(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // IPv4-mapped IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address it is.
    parsed = ipaddr.process(address);
  } catch {
    return "not an IP address";
  }
  const range = parsed.range();
  return range === "unicast" ? null : `${RANGE_WORDS[range] ?? "a special-purpose"} address`;
}

/**
 * The host of a URL as an IP address, when it is one (`[::1]` → `::1`; `[::ffff:a00:1]` →
 * `10.0.0.1`). Remembered: every attempt asks again, and ipaddr's parsing showed in the
 * worker's profile.
 */
const literalAddress = memo((hostname): string | null => {
  const bare = hostname.startsWith("[") && hostname.endsWith("]") ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) ? ipaddr.process(bare).toString() : null;
});

const PRIVATE_RULE = "webhooks may not target loopback, private, link-local, unique-local or metadata addresses";

/**
 * Parses a subscription's URL and applies the rules that need no DNS. Returns the URL or the
 * problem, in words for the `url: …` of a VALIDATION_ERROR.
 */
export function parseTargetUrl(value: unknown, policy: WebhookTargetPolicy): URL | string {
  if (typeof value !== "string") return "must be a string";
  const text = value.trim();
  if (text === "") return "is required";
  if (text.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "must be an absolute URL, e.g. https://crm.example.com/webhooks";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must be an https:// URL";
  if (url.protocol === "http:" && !policy.allowHttp) return "must be an https:// URL (plain http is not accepted by this server)";
  if (url.username !== "" || url.password !== "") return "must not carry a user name or password; authenticate deliveries by their signature";
  if (url.hash !== "") return "must not carry a #fragment";
  if (url.hostname === "") return "must name a host";
  if (!policy.allowPrivateTargets) {
    const literal = literalAddress(url.hostname);
    if (literal !== null) {
      const kind = forbiddenAddress(literal);
      if (kind !== null) return `${literal} is ${kind}: ${PRIVATE_RULE}`;
    } else if (/(^|\.)localhost\.?$/i.test(url.hostname)) {
      return `${url.hostname} is a loopback address: ${PRIVATE_RULE}`;
    }
  }
  return url;
}

/** Where to connect for one attempt: the address resolved (and, unless private targets are allowed, checked). */
export type ResolvedTarget = { ok: true; address: string } | { ok: false; problem: string };

/**
 * Resolves the URL's host and, unless private targets are allowed, checks every address it has
 * (a connection could go to any of them). The attempt connects to the address returned.
 */
export async function resolveTarget(url: URL, policy: WebhookTargetPolicy, resolve: Resolve): Promise<ResolvedTarget> {
  const literal = literalAddress(url.hostname);
  let addresses: string[];
  if (literal !== null) {
    addresses = [literal];
  } else {
    try {
      addresses = await resolve(url.hostname);
    } catch (error) {
      return { ok: false, problem: `the host ${url.hostname} could not be resolved (${(error as { code?: string }).code ?? "no answer"})` };
    }
    if (addresses.length === 0) return { ok: false, problem: `the host ${url.hostname} has no address` };
  }
  if (!policy.allowPrivateTargets) {
    for (const address of addresses) {
      const kind = forbiddenAddress(address);
      if (kind === null) continue;
      const what = literal !== null ? `${address} is ${kind}` : `${url.hostname} resolves to ${address}, ${kind}`;
      return { ok: false, problem: `${what}: ${PRIVATE_RULE}` };
    }
  }
  return { ok: true, address: addresses[0]! };
}
