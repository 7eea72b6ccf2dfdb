// POST /v1/leads: SPEC rules 1–7 and docs/reference/behaviour.md §9 (body handling, limits, linking, idempotency).
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { client, createTestApp, read, type TestApp } from "../../helpers/app.ts";

const portal = client("portal");
const other = client("other");
let t: TestApp;
let token: string;
let otherToken: string;
let db: Database;

beforeAll(async () => {
  t = createTestApp({ clients: [portal.entry, other.entry] });
  token = await t.token(portal);
  otherToken = await t.token(other);
  db = new Database(t.runtime.config.databases.get("main")!, { readonly: true });
});
afterAll(() => {
  db.close();
  t.close();
});

const valid = {
  name: "Maria Oliveira",
  email: "maria@example.com",
  phone: "+55 11 98765-4321",
  message: "Quero visitar.",
};
const post = (body: unknown, headers: Record<string, string> = {}, bearer = token) =>
  t.request("/v1/leads", {
    method: "POST",
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
const leadCount = () => db.query("SELECT count(*) FROM leads").values()[0]![0] as number;

describe("a valid body creates a NEW_LEAD with priority MEDIUM", () => {
  test("201 with exactly SPEC's fields, stored and readable", async () => {
    const before = leadCount();
    const { status, body } = await read(await post(valid));
    expect(status).toBe(201);
    expect(Object.keys(body.data)).toEqual([
      "id",
      "name",
      "email",
      "phone",
      "message",
      "source",
      "status",
      "priority",
      "propertyId",
      "interestedPropertyTitle",
      "createdAt",
      "updatedAt",
    ]);
    expect(body.data).toMatchObject({
      ...valid,
      source: "API",
      status: "NEW_LEAD",
      priority: "MEDIUM",
      propertyId: null,
      interestedPropertyTitle: null,
    });
    expect(body.data.createdAt).toBe(new Date(t.clock.now()).toISOString());
    expect(leadCount()).toBe(before + 1);
    const again = await read(await t.get(`/v1/leads/${body.data.id}?fields=id,name,status`, token));
    expect(again.body.data).toEqual({ id: body.data.id, name: valid.name, status: "NEW_LEAD" });
  });

  test("strings are trimmed and a given source kept", async () => {
    const { body } = await read(await post({ ...valid, name: "  Ana  ", source: "WHATSAPP" }));
    expect(body.data.name).toBe("Ana");
    expect(body.data.source).toBe("WHATSAPP");
  });

  test("unknown and read-only keys are ignored, never stored", async () => {
    const { status, body } = await read(
      await post({
        ...valid,
        id: "x",
        status: "CONVERTED",
        priority: "URGENT",
        propertyId: "p",
        createdAt: "2000-01-01T00:00:00Z",
        hack: 1,
      }),
    );
    expect(status).toBe(201);
    expect(body.data.id).not.toBe("x");
    expect(body.data).toMatchObject({ status: "NEW_LEAD", priority: "MEDIUM", propertyId: null });
    expect(body.data.createdAt).not.toBe("2000-01-01T00:00:00.000Z");
  });

  test("interestedPropertyLink and trafficOrigin are stored but not readable", async () => {
    const { body } = await read(
      await post({ ...valid, interestedPropertyLink: "https://x.example/1", trafficOrigin: "utm_source=x" }),
    );
    const row = db.query("SELECT interested_property_link, traffic_origin FROM leads WHERE id = ?").get(body.data.id);
    expect(row).toEqual({ interested_property_link: "https://x.example/1", traffic_origin: "utm_source=x" });
    expect((await read(await t.get(`/v1/leads/${body.data.id}?fields=trafficOrigin`, token))).body.code).toBe(
      "INVALID_FIELDS",
    );
  });
});

describe("linking by propertyCode", () => {
  const published = () =>
    db.query("SELECT id, code, title FROM properties WHERE is_published = 1 AND code IS NOT NULL LIMIT 1").get() as {
      id: string;
      code: string;
      title: string;
    };
  const unpublished = () =>
    db.query("SELECT code FROM properties WHERE is_published = 0 AND code IS NOT NULL LIMIT 1").get() as {
      code: string;
    };

  test("a published property's code links it and fills the title", async () => {
    const p = published();
    const { body } = await read(await post({ ...valid, propertyCode: p.code }));
    expect(body.data.propertyId).toBe(p.id);
    expect(body.data.interestedPropertyTitle).toBe(p.title);
  });

  test("the caller's title wins over the property's", async () => {
    const { body } = await read(
      await post({ ...valid, propertyCode: published().code, interestedPropertyTitle: "Meu título" }),
    );
    expect(body.data.interestedPropertyTitle).toBe("Meu título");
  });

  test("an unknown or unpublished code links nothing; a supplied title is kept", async () => {
    for (const code of ["NO-SUCH", unpublished().code]) {
      const { status, body } = await read(await post({ ...valid, propertyCode: code }));
      expect(status).toBe(201);
      expect(body.data.propertyId).toBeNull();
      expect(body.data.interestedPropertyTitle).toBeNull();
    }
    const { body } = await read(await post({ ...valid, propertyCode: "NO-SUCH", interestedPropertyTitle: "Casa" }));
    expect(body.data.interestedPropertyTitle).toBe("Casa");
  });
});

describe("body errors", () => {
  const expectError = async (response: Response, status: number, code: string, error?: string) => {
    const { status: got, body } = await read(response);
    expect(got).toBe(status);
    expect(body.code).toBe(code);
    if (error !== undefined) expect(body.error).toBe(error);
  };

  test("no body or an empty one → 400 MISSING_BODY", async () => {
    await expectError(
      await t.request("/v1/leads", { method: "POST", headers: { authorization: `Bearer ${token}` } }),
      400,
      "MISSING_BODY",
      "Request body is required",
    );
    await expectError(await post(""), 400, "MISSING_BODY");
    await expectError(await post("   "), 400, "MISSING_BODY");
  });

  test("malformed JSON, and JSON that is not an object", async () => {
    await expectError(await post("{bad"), 400, "VALIDATION_ERROR", "body: must be valid JSON");
    for (const body of ["[]", "[1,2]", '"text"', "42", "null", "true"]) {
      await expectError(await post(body), 400, "VALIDATION_ERROR", "body: must be a JSON object");
    }
  });

  test("{} lists every required field", async () => {
    const { body } = await read(await post({}));
    expect(body.error).toBe("name: is required; email: is required; phone: is required; message: is required");
    expect(body.details).toHaveLength(4);
  });

  test("wrong types for every field", async () => {
    const { body } = await read(
      await post({
        name: 1,
        email: true,
        phone: [],
        message: {},
        source: 3,
        propertyCode: 4,
        interestedPropertyTitle: 5,
        interestedPropertyLink: 6,
        trafficOrigin: 7,
      }),
    );
    expect(body.details.map((d: { field: string }) => d.field)).toEqual([
      "name",
      "email",
      "phone",
      "message",
      "propertyCode",
      "interestedPropertyTitle",
      "interestedPropertyLink",
      "trafficOrigin",
      "source",
    ]);
    expect(body.details[0]).toEqual({ field: "name", message: "must be a string" });
  });

  test("e-mails without a domain or @ are invalid", async () => {
    for (const email of ["maria@", "maria", "maria@localhost", "@example.com", "maria @example.com"]) {
      await expectError(
        await post({ ...valid, email }),
        400,
        "VALIDATION_ERROR",
        "email: must be a valid e-mail address",
      );
    }
  });

  test("one e-mail rule: letters of any script are accepted in the local part and the domain alike", async () => {
    for (const email of ["joão@exemplo.com.br", "maria@exémplo.com.br", "ana@xn--exmplo-dva.com.br"]) {
      const response = await post({ ...valid, email });
      expect({ email, status: response.status }).toEqual({ email, status: 201 });
      expect(((await response.json()) as { data: { email: string } }).data.email).toBe(email);
    }
    for (const email of ["joão@exémplo", "maria@-exemplo.com", "ma ria@exemplo.com", 'ma"ria@exemplo.com']) {
      await expectError(
        await post({ ...valid, email }),
        400,
        "VALIDATION_ERROR",
        "email: must be a valid e-mail address",
      );
    }
  });

  test("length limits after trimming: a 5001-character message, a 201-character name", async () => {
    await expectError(
      await post({ ...valid, message: "x".repeat(5001) }),
      400,
      "VALIDATION_ERROR",
      "message: must be between 1 and 5000 characters",
    );
    expect((await post({ ...valid, message: ` ${"x".repeat(5000)} ` })).status).toBe(201);
    await expectError(
      await post({ ...valid, name: "n".repeat(201) }),
      400,
      "VALIDATION_ERROR",
      "name: must be between 1 and 200 characters",
    );
    await expectError(
      await post({ ...valid, propertyCode: "c".repeat(101) }),
      400,
      "VALIDATION_ERROR",
      "propertyCode: must be at most 100 characters",
    );
  });

  test("NUL and C0 control characters are refused, naming each field; tab and line breaks are not", async () => {
    // A carriage return only as the CR of a form's CRLF: alone, it is a control like the others.
    const controls = ["\u0000", "\u0001", "\u0007", "\u0008", "\u000B", "\u000C", "\r", "\u001B", "\u001F"];
    const before = leadCount();
    for (const control of controls) {
      const { status, body } = await read(
        await post({ ...valid, name: `Ana${control}Souza`, message: `Oi${control}`, trafficOrigin: `utm${control}` }),
      );
      expect(status).toBe(400);
      expect(body.code).toBe("VALIDATION_ERROR");
      expect(body.details).toEqual([
        { field: "name", message: "must not contain control characters (tab and line breaks are allowed)" },
        { field: "message", message: "must not contain control characters (tab and line breaks are allowed)" },
        { field: "trafficOrigin", message: "must not contain control characters (tab and line breaks are allowed)" },
      ]);
    }
    expect(leadCount()).toBe(before);
  });

  test("tab, line breaks (CRLF from a form), C1 controls and bidirectional marks are kept as sent", async () => {
    const message = "Linha 1\r\nLinha 2\n\tcom tab \u0085 e \u202Eolleh\u202C";
    const { status, body } = await read(await post({ ...valid, message }));
    expect(status).toBe(201);
    const stored = await read(await t.get(`/v1/leads/${body.data.id}?fields=message`, token));
    expect(stored.body.data.message).toBe(message.trim());
  });

  test("an unknown source is refused", async () => {
    const { body } = await read(await post({ ...valid, source: "TIKTOK" }));
    expect(body.error).toStartWith("source: must be one of: WEBSITE, WHATSAPP");
  });

  test("over 64 KiB → 413, declared or chunked", async () => {
    const big = JSON.stringify({ ...valid, message: "x".repeat(70_000) });
    await expectError(await post(big), 413, "PAYLOAD_TOO_LARGE");
    const chunked = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(new TextEncoder().encode("x".repeat(4096)));
        controller.close();
      },
    });
    const response = await t.request("/v1/leads", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: chunked,
    });
    await expectError(response, 413, "PAYLOAD_TOO_LARGE");
  });

  test("a non-JSON content type → 415", async () => {
    await expectError(
      await post(JSON.stringify(valid), { "content-type": "text/plain" }),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    );
    await expectError(
      await post("name=x", { "content-type": "application/x-www-form-urlencoded" }),
      415,
      "UNSUPPORTED_MEDIA_TYPE",
    );
    expect((await post(valid, { "content-type": "application/json; charset=utf-8" })).status).toBe(201);
  });

  test("nothing is stored by a failed request", async () => {
    const before = leadCount();
    await post({ ...valid, email: "bad" });
    await post("{bad");
    expect(leadCount()).toBe(before);
  });
});

describe("Idempotency-Key", () => {
  test("the same key and body replays the first 201 without a second lead", async () => {
    const before = leadCount();
    const first = await read(await post(valid, { "idempotency-key": "order-1" }));
    const second = await post(valid, { "idempotency-key": "order-1" });
    expect(second.status).toBe(201);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect((await read(second)).body.data).toEqual(first.body.data);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(leadCount()).toBe(before + 1);
  });

  test("the same key with another body → 422 IDEMPOTENCY_KEY_REUSED", async () => {
    await post(valid, { "idempotency-key": "order-2" });
    const { status, body } = await read(await post({ ...valid, message: "outra" }, { "idempotency-key": "order-2" }));
    expect(status).toBe(422);
    expect(body.code).toBe("IDEMPOTENCY_KEY_REUSED");
  });

  test("keys are per client: another client's key neither replays nor conflicts", async () => {
    const mine = await read(await post(valid, { "idempotency-key": "shared-key" }));
    const theirs = await read(
      await post({ ...valid, message: "other body" }, { "idempotency-key": "shared-key" }, otherToken),
    );
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get("idempotent-replayed")).toBeNull();
    expect(theirs.body.data.id).not.toBe(mine.body.data.id);
  });

  test("20 parallel requests with one key: one lead, twenty 201s with the same body", async () => {
    const before = leadCount();
    const responses = await Promise.all(Array.from({ length: 20 }, () => post(valid, { "idempotency-key": "burst" })));
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    const ids = new Set(
      await Promise.all(responses.map(async (r) => ((await r.json()) as { data: { id: string } }).data.id)),
    );
    expect(ids.size).toBe(1);
    expect(leadCount()).toBe(before + 1);
  });

  test("a key is forgotten after 24 h", async () => {
    const first = await read(await post(valid, { "idempotency-key": "day-old" }));
    t.clock.advance(24 * 60 * 60 * 1000 + 1000);
    token = await t.token(portal); // the old token expired with the day
    otherToken = await t.token(other);
    const later = await read(await post(valid, { "idempotency-key": "day-old" }));
    expect(later.headers.get("idempotent-replayed")).toBeNull();
    expect(later.body.data.id).not.toBe(first.body.data.id);
  });

  test("errors are not remembered", async () => {
    expect((await post({ ...valid, email: "x" }, { "idempotency-key": "fix-me" })).status).toBe(400);
    expect((await post(valid, { "idempotency-key": "fix-me" })).status).toBe(201);
  });

  test("a key that is not 1..255 printable ASCII characters is a VALIDATION_ERROR", async () => {
    for (const key of ["", "x".repeat(256), "tab\there", "ç"]) {
      const response = await post(valid, { "idempotency-key": key });
      const { status, body } = await read(response);
      expect(status).toBe(400);
      expect(body.error).toBe("Idempotency-Key: must be 1 to 255 printable ASCII characters");
    }
  });
});

describe("security", () => {
  test("no token → 401 and nothing stored", async () => {
    const before = leadCount();
    const response = await t.request("/v1/leads", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(valid),
    });
    expect(response.status).toBe(401);
    expect(leadCount()).toBe(before);
  });
});
