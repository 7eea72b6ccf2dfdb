// OWASP API6:2023 Unrestricted Access to Sensitive Business Flows. The flow worth abusing here is
// lead creation (spam into an agency's CRM): it is limited per client across all its tokens,
// a configured burst cap holds within the minute, and a retried request never makes a second lead.
import { afterEach, describe, expect, test } from "bun:test";
import { client, createTestApp, type TestApp } from "../helpers/app.ts";
import { LEAD, postLead } from "./tenants.ts";

let t: TestApp;
afterEach(() => t?.close());

const leadTotal = async (token: string) =>
  ((await (await t.get("/v1/leads?fields=id&limit=1", token)).json()) as { meta: { total: number } }).meta.total;

describe("API6 unrestricted access to sensitive business flows", () => {
  test("the per-minute limit is per client, not per token: ten tokens do not buy ten times the leads", async () => {
    const spammer = client("spammer", { rateLimitPerMinute: 10 });
    const reader = client("reader", { rateLimitPerMinute: 1000 });
    t = createTestApp({ clients: [spammer.entry, reader.entry] });
    const tokens = await Promise.all(Array.from({ length: 10 }, () => t.token(spammer)));
    const before = await leadTotal(await t.token(reader));
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++)
      statuses.push((await postLead(t, tokens[i % 10]!, { ...LEAD, name: `spam ${i}` })).status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20);
    expect((await leadTotal(await t.token(reader))) - before).toBe(10);
  });

  test("a burst cap holds inside the minute: 3 a second, then 429 until the next second", async () => {
    const bursty = client("bursty", { rateLimitPerMinute: 1000, burstPerSecond: 3 });
    t = createTestApp({ clients: [bursty.entry] });
    const token = await t.token(bursty);
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await postLead(t, token, LEAD)).status);
    expect(statuses).toEqual([201, 201, 201, 429, 429]);
    t.clock.advance(1_000);
    expect((await postLead(t, token, LEAD)).status).toBe(201);
  });

  test("a client retrying a timed-out creation with its Idempotency-Key gets the same lead, however often", async () => {
    const crm = client("crm", { rateLimitPerMinute: 1000 });
    t = createTestApp({ clients: [crm.entry] });
    const token = await t.token(crm);
    const before = await leadTotal(token);
    const ids = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const response = await postLead(t, token, LEAD, { "idempotency-key": "form-submit-7f3a" });
      ids.add(((await response.json()) as { data: { id: string } }).data.id);
    }
    expect(ids.size).toBe(1);
    expect((await leadTotal(token)) - before).toBe(1);
  });
});
