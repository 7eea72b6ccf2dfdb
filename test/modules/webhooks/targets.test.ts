// The one classifier of outbound webhook targets (src/webhooks/targets.ts): every way of writing
// a refused IPv4 address inside an IPv6 one is refused, as written in a URL and as a resolver
// answers it, and ordinary public addresses of both families pass.
import { describe, expect, test } from "bun:test";
import { forbiddenAddress, parseTargetUrl, resolveTarget } from "../../../src/modules/webhooks/targets.ts";

const STRICT = { allowHttp: false, allowPrivateTargets: false };

/** Refused IPv4 addresses, each written in every IPv6 form that carries an IPv4 address. */
const REFUSED_V4 = ["127.0.0.1", "169.254.169.254", "10.0.0.1", "192.168.1.1", "172.16.0.1", "100.64.0.1", "0.0.0.0"];
const hex = (v4: string) => {
  const [a, b, c, d] = v4.split(".").map(Number) as [number, number, number, number];
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
};
function embeddings(v4: string): string[] {
  const [high, low] = hex(v4);
  const inverted = hex(
    v4
      .split(".")
      .map((n) => 255 - Number(n))
      .join("."),
  );
  return [
    `::${v4}`, // IPv4-compatible, dotted
    `::${high}:${low}`, // IPv4-compatible, as URLs normalise it
    `0:0:0:0:0:0:${v4}`,
    `::ffff:${v4}`, // IPv4-mapped
    `::ffff:${high}:${low}`,
    `::ffff:0:${v4}`, // SIIT
    `64:ff9b::${v4}`, // NAT64
    `64:ff9b:1::${high}:${low}`, // local-use NAT64
    `2002:${high}:${low}::1`, // 6to4
    `2001:0:${high}:${low}::1`, // Teredo, the server's address
    `2001:0:5db8:d70e:0:0:${inverted[0]}:${inverted[1]}`, // Teredo, the client's (inverted) address
  ];
}

describe("forbiddenAddress: one classifier for every outbound target", () => {
  test("a refused IPv4 address is refused in every IPv6 form that carries it", () => {
    for (const v4 of REFUSED_V4) {
      expect({ v4, kind: forbiddenAddress(v4) }).toEqual({ v4, kind: expect.any(String) });
      for (const v6 of embeddings(v4))
        expect({ v6, kind: forbiddenAddress(v6) }).toEqual({ v6, kind: expect.stringContaining("address") });
    }
  });

  test("the probe's forms: [::127.0.0.1], [::169.254.169.254], [::10.0.0.1] are refused as URLs, naming what they carry", () => {
    const cases: [string, string][] = [
      ["https://[::127.0.0.1]/", "127.0.0.1, a loopback address"],
      ["https://[::169.254.169.254]/latest/meta-data", "169.254.169.254, a link-local (cloud metadata) address"],
      ["https://[::10.0.0.1]/hooks", "10.0.0.1, a private address"],
    ];
    for (const [url, carried] of cases) {
      const parsed = parseTargetUrl(url, STRICT);
      expect(typeof parsed).toBe("string");
      expect(parsed as string).toContain(`IPv4-compatible (deprecated) address carrying ${carried}`);
    }
  });

  test("the translation forms are refused whatever they carry: where they lead is the host's routing", () => {
    for (const v6 of ["::5db8:d70e", "64:ff9b::5db8:d70e", "2002:5db8:d70e::1", "::ffff:0:5db8:d70e"]) {
      expect({ v6, kind: forbiddenAddress(v6) }).toEqual({
        v6,
        kind: expect.stringContaining("routed by the host's own rules"),
      });
    }
  });

  test("public addresses pass: IPv4, IPv4-mapped public, global IPv6", () => {
    for (const address of [
      "93.184.215.14",
      "::ffff:93.184.215.14",
      "2606:4700:4700::1111",
      "2a00:1450:4001:82a::200e",
    ]) {
      expect({ address, kind: forbiddenAddress(address) }).toEqual({ address, kind: null });
    }
  });

  test("at delivery, a host resolving to an embedded refused address is refused", async () => {
    for (const answer of ["::7f00:1", "64:ff9b::a9fe:a9fe", "2002:a00:1::1"]) {
      const resolved = await resolveTarget(new URL("https://receiver.example.com/hooks"), STRICT, async () => [answer]);
      expect(resolved).toEqual({
        ok: false,
        problem: expect.stringContaining(`receiver.example.com resolves to ${answer}, a`),
      });
    }
  });
});
