// Record ids in a path are UUIDs, case-insensitive on input (docs/reference/behaviour.md §4): every
// route that takes an id finds the record whatever the case of its letters, and answers the stored,
// lower-case id.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { client, createTestApp, read, type TestApp } from "../helpers/app.ts";

const crm = client("crm");
let t: TestApp;
let token = "";
beforeAll(async () => {
  t = createTestApp({ clients: [crm.entry], webhookTargets: { allowHttp: true, allowPrivateTargets: true } });
  token = await t.token(crm);
});
afterAll(() => t.close());

const call = (method: string, path: string, body?: unknown) =>
  t.request(path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/** The first record's id of a list. */
async function firstId(path: string): Promise<string> {
  const { status, body } = await read(await call("GET", `${path}?fields=id&limit=1`));
  expect(status).toBe(200);
  return body.data[0].id;
}

describe("an id in upper case names the same record", () => {
  test("GET /v1/properties/{id} and /v1/leads/{id} in upper case answer the record with its stored id", async () => {
    for (const path of ["/v1/properties", "/v1/leads"]) {
      const id = await firstId(path);
      expect(id).toBe(id.toLowerCase());
      for (const asked of [id.toUpperCase(), id.slice(0, 9).toUpperCase() + id.slice(9)]) {
        const { status, body } = await read(await call("GET", `${path}/${asked}?fields=id`));
        expect({ path, asked, status, body }).toEqual({ path, asked, status: 200, body: { data: { id } } });
      }
    }
  });

  test("PATCH /v1/leads/{id} in upper case changes that lead and answers its stored id", async () => {
    const id = await firstId("/v1/leads");
    const { status, body } = await read(await call("PATCH", `/v1/leads/${id.toUpperCase()}`, { priority: "URGENT" }));
    expect({ status, id: body.data.id, priority: body.data.priority }).toEqual({ status: 200, id, priority: "URGENT" });
  });

  test("every webhook subscription route takes the id in upper case", async () => {
    const created = await read(
      await call("POST", "/v1/webhooks", { url: "http://127.0.0.1:9/hooks", events: ["lead.created"] }),
    );
    expect(created.status).toBe(201);
    const id: string = created.body.data.id;
    const upper = id.toUpperCase();
    const answers = {
      get: await read(await call("GET", `/v1/webhooks/${upper}`)),
      patch: await read(await call("PATCH", `/v1/webhooks/${upper}`, { description: "CRM" })),
      deliveries: await read(await call("GET", `/v1/webhooks/${upper}/deliveries`)),
      rotate: await read(await call("POST", `/v1/webhooks/${upper}/rotate-secret`)),
      replay: await read(await call("POST", `/v1/webhooks/${upper}/replay`, { after: 0 })),
    };
    expect({
      get: [answers.get.status, answers.get.body.data?.id],
      patch: [answers.patch.status, answers.patch.body.data?.id, answers.patch.body.data?.description],
      deliveries: answers.deliveries.status,
      rotate: [answers.rotate.status, answers.rotate.body.data?.id],
      replay: answers.replay.status,
    }).toEqual({
      get: [200, id],
      patch: [200, id, "CRM"],
      deliveries: 200,
      rotate: [200, id],
      replay: 202,
    });
    expect((await call("DELETE", `/v1/webhooks/${upper}`)).status).toBe(204);
    expect((await call("GET", `/v1/webhooks/${id}`)).status).toBe(404);
  });

  test("a string that is not a UUID is still a plain 404", async () => {
    const id = await firstId("/v1/properties");
    for (const asked of [`${id}x`, `{${id}}`, id.replaceAll("-", "")]) {
      const { status, body } = await read(await call("GET", `/v1/properties/${asked}?fields=id`));
      expect({ asked, status, code: body.code }).toEqual({ asked, status: 404, code: "NOT_FOUND" });
    }
  });
});
