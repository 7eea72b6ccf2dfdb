// The admin API's document (docs/operators/console.md#the-admin-apis-document) declares every
// route under /admin/v1 the app serves, and nothing it does not serve.
import { afterAll, expect, test } from "bun:test";
import { ADMIN_PREFIX, ADMIN_ROUTES } from "../../../src/modules/admin/openapi.ts";
import { consoleApp } from "./helpers.ts";

const t = consoleApp();
afterAll(() => t.close());

test("every admin route is declared, and every declaration is a route", () => {
  const served = t.app.routes
    .filter((r) => r.path.startsWith(`${ADMIN_PREFIX}/`))
    .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, "{$1}")}`)
    .sort();
  const declared = ADMIN_ROUTES.map((r) => `${r.method} ${ADMIN_PREFIX}${r.path}`).sort();
  expect(served).toEqual(declared);
});
