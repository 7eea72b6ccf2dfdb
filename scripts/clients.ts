// `bun run clients`: everything generated from the OpenAPI document for partners, in one go:
// the document itself (clients/typescript/openapi.json), the typed client's types (by
// openapi-typescript, in that package) and the Postman collection with its sandbox environment.
// A test regenerates each in memory and fails when a committed copy is stale.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { clientDocument, POSTMAN_ENVIRONMENT, postmanCollection } from "./clients/artifacts.ts";

const ROOT = join(import.meta.dir, "..");
const CLIENT = join(ROOT, "clients/typescript");

const document = clientDocument();
writeFileSync(join(CLIENT, "openapi.json"), `${JSON.stringify(document, null, 2)}\n`);
const generate = Bun.spawnSync([process.execPath, "scripts/generate.ts"], {
  cwd: CLIENT,
  stdout: "inherit",
  stderr: "inherit",
});
if (generate.exitCode !== 0) process.exit(generate.exitCode ?? 1);
writeFileSync(
  join(ROOT, "clients/postman/partner-api.postman_collection.json"),
  `${JSON.stringify(await postmanCollection(document), null, 2)}\n`,
);
writeFileSync(
  join(ROOT, "clients/postman/sandbox.postman_environment.json"),
  `${JSON.stringify(POSTMAN_ENVIRONMENT, null, 2)}\n`,
);
console.log("wrote clients/typescript/openapi.json, clients/typescript/src/schema.ts, clients/postman/*.json");
