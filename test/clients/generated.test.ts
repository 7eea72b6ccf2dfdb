// What `bun run clients` writes is current: the document for clients, the typed client's types
// (generated again by openapi-typescript and compared) and the Postman collection with its
// sandbox environment. A change to the API that is not regenerated fails here.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  clientDocument,
  POSTMAN_ENVIRONMENT,
  postmanCollection,
  SANDBOX_ORIGIN,
} from "../../scripts/clients/artifacts.ts";
import { ROOT } from "../helpers/binary.ts";

const CLIENT = join(ROOT, "clients/typescript");
const POSTMAN = join(ROOT, "clients/postman");
const committed = (path: string) => JSON.parse(readFileSync(path, "utf8"));
const STALE = "stale: run `bun run clients` and commit what it writes";

describe("generated artefacts are current (`bun run clients`)", () => {
  test("clients/typescript/openapi.json is the document the server serves, for the sandbox's address", () => {
    const document = clientDocument();
    expect(document.servers).toEqual([{ url: SANDBOX_ORIGIN, description: "The server this document came from" }]);
    expect({ file: committed(join(CLIENT, "openapi.json")), hint: STALE }).toEqual({ file: document, hint: STALE });
  });

  test("the client's types are what openapi-typescript generates from it", () => {
    const check = Bun.spawnSync([process.execPath, "scripts/generate.ts", "--check"], {
      cwd: CLIENT,
      stdout: "pipe",
      stderr: "pipe",
    });
    expect({ exitCode: check.exitCode, output: `${check.stdout}${check.stderr}`.trim() }).toEqual({
      exitCode: 0,
      output: "src/schema.ts is current",
    });
  }, 120_000);

  test("the client type-checks against them with its own TypeScript 5", () => {
    const check = Bun.spawnSync([process.execPath, "run", "typecheck"], {
      cwd: CLIENT,
      stdout: "pipe",
      stderr: "pipe",
    });
    expect({ exitCode: check.exitCode, output: check.exitCode === 0 ? "" : `${check.stdout}${check.stderr}` }).toEqual({
      exitCode: 0,
      output: "",
    });
  }, 120_000);

  test("the Postman collection and its sandbox environment are what the converter makes of it", async () => {
    const collection = await postmanCollection(clientDocument());
    expect({ file: committed(join(POSTMAN, "partner-api.postman_collection.json")), hint: STALE }).toEqual({
      file: collection,
      hint: STALE,
    });
    expect(committed(join(POSTMAN, "sandbox.postman_environment.json"))).toEqual(POSTMAN_ENVIRONMENT);
  }, 60_000);

  test("the collection fetches tokens by OAuth2 client credentials; the token request itself uses Basic", async () => {
    const collection = await postmanCollection(clientDocument());
    const settings = Object.fromEntries(
      (collection.auth.oauth2 as { key: string; value: string }[]).map((e) => [e.key, e.value]),
    );
    expect(collection.auth.type).toBe("oauth2");
    expect(settings).toMatchObject({
      grant_type: "client_credentials",
      accessTokenUrl: "{{baseUrl}}/v1/auth/token",
      clientId: "{{apiKey}}",
      clientSecret: "{{apiSecret}}",
    });
    const requests = (collection.item as any[]).flatMap((folder) => folder.item ?? [folder]);
    const token = requests.find((item) => item.request.url.path.join("/") === "v1/auth/token");
    expect(token.request.auth.type).toBe("basic");
    expect(token.request.body.urlencoded).toEqual([
      expect.objectContaining({ key: "grant_type", value: "client_credentials" }),
    ]);
    const properties = requests.find(
      (item) => item.request.method === "GET" && item.request.url.path.join("/") === "v1/properties",
    );
    expect(properties.request.auth).toBeUndefined(); // inherits the collection's OAuth2
    expect(properties.request.url.query.find((q: { key: string }) => q.key === "fields").value).not.toContain("<");
  }, 60_000);
});
