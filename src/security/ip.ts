// IP addresses and CIDR ranges (IPv4, IPv6, IPv4-mapped IPv6 treated as IPv4), via ipaddr.js.
import ipaddr from "ipaddr.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [Address, number];

/** Parses an address; IPv4-mapped IPv6 (::ffff:1.2.3.4) becomes its IPv4 form. */
export function parseAddress(text: string): Address | null {
  try {
    return ipaddr.process(text.trim());
  } catch {
    return null;
  }
}

/** Parses "1.2.3.4", "10.0.0.0/8", "2001:db8::/32"; a bare address is a one-address range. */
export function parseRange(text: string): Range | null {
  const value = text.trim();
  try {
    if (value.includes("/")) {
      const [address, bits] = ipaddr.parseCIDR(value);
      if (address.kind() === "ipv6" && (address as ipaddr.IPv6).isIPv4MappedAddress() && bits >= 96) {
        return [(address as ipaddr.IPv6).toIPv4Address(), bits - 96];
      }
      return [address, bits];
    }
    const address = ipaddr.process(value);
    return [address, address.kind() === "ipv4" ? 32 : 128];
  } catch {
    return null;
  }
}

/** The canonical text of an address, so one peer has one key in the limiters. */
export function canonicalAddress(text: string): string | null {
  return parseAddress(text)?.toString() ?? null;
}

/** Matches addresses against a fixed list of ranges; recent answers are memoised. */
export class RangeMatcher {
  private readonly ranges: Range[];
  private readonly memo = new Map<string, boolean>();

  constructor(readonly texts: readonly string[]) {
    const ranges = texts;
    this.ranges = ranges.map((r) => {
      const parsed = parseRange(r);
      if (!parsed) throw new Error(`not an IP address or CIDR range: ${r}`);
      return parsed;
    });
  }

  get isEmpty(): boolean {
    return this.ranges.length === 0;
  }

  matches(address: string): boolean {
    const known = this.memo.get(address);
    if (known !== undefined) return known;
    const parsed = parseAddress(address);
    const result =
      parsed !== null && this.ranges.some(([base, bits]) => base.kind() === parsed.kind() && parsed.match(base, bits));
    if (this.memo.size >= 4096) this.memo.clear();
    this.memo.set(address, result);
    return result;
  }
}
