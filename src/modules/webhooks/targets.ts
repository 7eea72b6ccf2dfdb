// Where a webhook may be sent: an absolute http(s) URL, https only unless the
// config allows http, and, unless the config allows private targets, a host that neither is
// nor resolves to a loopback, private, link-local, unique-local, metadata or other
// special-purpose address. Checked when a subscription is saved and again before every
// attempt against the addresses the host resolves to then; the attempt connects to the
// address that was checked, so a DNS answer that changes in between (rebinding) is never used.
import { lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";
import type { WebhookTargetPolicy } from "../../config/model.ts";
import { memo } from "../../lib/memo.ts";

export const MAX_URL_LENGTH = 2048;

/** A host's addresses, as the system resolver gives them. Tests pass their own. */
export type Resolve = (hostname: string) => Promise<string[]>;

/**
 * IPv4 first: one address is connected to, and a local receiver (`localhost` in the sandbox)
 * more often listens on 127.0.0.1 than on ::1.
 */
export const systemResolve: Resolve = async (hostname) =>
  (await lookup(hostname, { all: true, order: "ipv4first" })).map((a) => a.address);

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

/**
 * IPv6 forms that carry an IPv4 address inside them, and where. Where such an address leads
 * depends on the host's routing (a kernel may still deliver the IPv4-compatible ::7f00:1 to
 * 127.0.0.1, a NAT64 or 6to4 gateway forwards to the address it carries), so none of them is a
 * target: refused whatever they carry, and the refusal names the IPv4 address when that one is
 * refused on its own. The IPv4-mapped form (::ffff:a.b.c.d) is not here: it is that IPv4
 * address, and judged as one.
 */
const EMBEDDINGS: readonly { cidr: [ipaddr.IPv6, number]; words: string; carried: (bytes: number[]) => number[][] }[] =
  [
    // ::/96 but :: and ::1, which are judged by their own ranges below.
    {
      cidr: ipaddr.IPv6.parseCIDR("::/96"),
      words: "an IPv4-compatible (deprecated)",
      carried: (b) => [b.slice(12, 16)],
    },
    {
      cidr: ipaddr.IPv6.parseCIDR("::ffff:0:0:0/96"),
      words: "an IPv4-translated (SIIT)",
      carried: (b) => [b.slice(12, 16)],
    },
    { cidr: ipaddr.IPv6.parseCIDR("64:ff9b::/96"), words: "a NAT64", carried: (b) => [b.slice(12, 16)] },
    { cidr: ipaddr.IPv6.parseCIDR("64:ff9b:1::/48"), words: "a local NAT64", carried: (b) => [b.slice(12, 16)] },
    { cidr: ipaddr.IPv6.parseCIDR("2002::/16"), words: "a 6to4", carried: (b) => [b.slice(2, 6)] },
    // Teredo: the server's address, and the client's with every bit inverted.
    {
      cidr: ipaddr.IPv6.parseCIDR("2001::/32"),
      words: "a Teredo",
      carried: (b) => [b.slice(4, 8), b.slice(12, 16).map((x) => x ^ 0xff)],
    },
  ];

/** What kind of IPv4 address may not be targeted, or null for an ordinary public unicast one. */
function forbiddenIPv4(address: ipaddr.IPv4): string | null {
  const range = address.range();
  return range === "unicast" ? null : `${RANGE_WORDS[range] ?? "a special-purpose"} address`;
}

/**
 * What kind of address may not be targeted (e.g. "a private address"), or null for an ordinary
 * public unicast one. The one classifier of every outbound target: a subscription's URL as
 * written, and every address its host resolves to at each attempt.
 */
export function forbiddenAddress(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // IPv4-mapped IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address it is.
    parsed = ipaddr.process(address);
  } catch {
    return "not an IP address";
  }
  if (parsed.kind() === "ipv4") return forbiddenIPv4(parsed as ipaddr.IPv4);
  const v6 = parsed as ipaddr.IPv6;
  const range = v6.range();
  if (range === "unspecified" || range === "loopback") return `${RANGE_WORDS[range]} address`;
  for (const embedding of EMBEDDINGS) {
    if (!v6.match(embedding.cidr)) continue;
    const carried = embedding.carried(v6.toByteArray()).map((bytes) => new ipaddr.IPv4(bytes));
    const refused = carried.map((v4) => [v4, forbiddenIPv4(v4)] as const).find(([, kind]) => kind !== null);
    return refused !== undefined
      ? `${embedding.words} address carrying ${refused[0].toString()}, ${refused[1]}`
      : `${embedding.words} address (carrying ${carried.map(String).join(" and ")}), routed by the host's own rules`;
  }
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
  if (url.protocol === "http:" && !policy.allowHttp)
    return "must be an https:// URL (plain http is not accepted by this server)";
  if (url.username !== "" || url.password !== "")
    return "must not carry a user name or password; authenticate deliveries by their signature";
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
      return {
        ok: false,
        problem: `the host ${url.hostname} could not be resolved (${(error as { code?: string }).code ?? "no answer"})`,
      };
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
