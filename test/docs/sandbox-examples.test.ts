// The OpenAPI examples are what the sandbox really answers: re-run the example requests on a
// fresh default sandbox and compare with src/docs/sandbox-examples.json.
import { describe, expect, test } from "bun:test";
import { SANDBOX_EXAMPLES } from "../../src/docs/examples.ts";
import { captureExamples } from "./capture-examples.ts";

const REFRESH = "the sandbox answers differently: run `bun test/docs/capture-examples.ts` and review the diff";

describe("sandbox examples", () => {
  test("every captured example equals the sandbox's answer today", async () => {
    const fresh = await captureExamples();
    const { createdLead, updatedLead, token, ...reads } = fresh;
    const { createdLead: storedLead, updatedLead: storedUpdate, token: storedToken, ...storedReads } = SANDBOX_EXAMPLES;
    expect(reads, REFRESH).toEqual(storedReads);
    // A change moves updatedAt to the current time; everything else is the same.
    expect(updatedLead.data, REFRESH).toEqual({ ...storedUpdate.data, updatedAt: expect.any(String) });
    // A new lead gets a new id and the current time; everything else is the same.
    const volatile = { id: expect.any(String), createdAt: expect.any(String), updatedAt: expect.any(String) };
    expect(createdLead.data, REFRESH).toEqual({ ...storedLead.data, ...volatile });
    expect(storedLead.data.propertyId).toBe(reads.propertyPage.data.find((p) => p.code !== null)!.id);
    // Tokens are signed with the sandbox's random key: compare the shape.
    expect({ ...token.data, token: "" }).toEqual({ ...storedToken.data, token: "" });
    expect(storedToken.data.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  }, 30_000);
});
