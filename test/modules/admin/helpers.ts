// An app with a control database and admins, for the admin API's tests (docs/operators/console.md).
import { join } from "node:path";
import { ControlStore, type Role } from "../../../src/db/control/store.ts";
import { createAdmin } from "../../../src/modules/admin/service.ts";
import { totpCode } from "../../../src/modules/admin/totp.ts";
import { createTestApp, type TestApp, type TestAppOptions } from "../../helpers/app.ts";

export const LOOPBACK = "127.0.0.1";
export const PASSWORD = "correct horse battery staple 42";

export interface ConsoleApp extends TestApp {
  store: ControlStore;
  /** Invites, sets up and confirms an admin; returns its TOTP secret. */
  admin(email: string, role: Role, databases?: string[]): Promise<{ email: string; secret: string }>;
  signIn(email: string, secret: string, peer?: string): Promise<Session>;
  /** The next TOTP code (the clock moves 30 s on, so no code is used twice). */
  code(secret: string): Promise<string>;
}

export interface Session {
  cookie: string;
  csrf: string;
  setCookie: string;
  /** A request with the session's cookie (and its CSRF token unless `csrf: false`). */
  call(path: string, init?: RequestInit & { csrf?: boolean | string; peer?: string }): Promise<Response>;
}

export function jsonInit(method: string, body: unknown, headers: Record<string, string> = {}): RequestInit {
  return { method, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) };
}

export function consoleApp(options: TestAppOptions = {}): ConsoleApp {
  const t = createTestApp(options);
  const store = ControlStore.open(join(t.dir, "control.sqlite"), { create: true });
  t.runtime.attachControl(store, { pollMs: 50 });
  const code = (secret: string) => {
    t.clock.advance(30_000);
    return totpCode(secret, t.clock.now());
  };
  const app: ConsoleApp = {
    ...t,
    store,
    code,
    async admin(email, role, databases = []) {
      const { token } = createAdmin(store, { email, role, databases }, t.clock.now());
      const setup = await t.request("/admin/v1/setup", {
        ...jsonInit("POST", { token, password: PASSWORD }),
        peer: LOOPBACK,
      });
      if (setup.status !== 200) throw new Error(`setup: ${setup.status} ${await setup.text()}`);
      const { totpSecret } = ((await setup.json()) as { data: { totpSecret: string } }).data;
      const confirm = await t.request("/admin/v1/setup/confirm", {
        ...jsonInit("POST", { token, code: await code(totpSecret) }),
        peer: LOOPBACK,
      });
      if (confirm.status !== 200) throw new Error(`confirm: ${confirm.status} ${await confirm.text()}`);
      return { email, secret: totpSecret };
    },
    async signIn(email, secret, peer = LOOPBACK) {
      const response = await t.request("/admin/v1/sessions", {
        ...jsonInit("POST", { email, password: PASSWORD, code: await code(secret) }),
        peer,
      });
      if (response.status !== 201) throw new Error(`sign-in: ${response.status} ${await response.text()}`);
      const setCookie = response.headers.get("set-cookie")!;
      const cookie = setCookie.split(";")[0]!;
      const csrf = ((await response.json()) as { data: { csrfToken: string } }).data.csrfToken;
      return {
        cookie,
        csrf,
        setCookie,
        call(path, init = {}) {
          const headers = new Headers(init.headers);
          headers.set("cookie", cookie);
          if (init.csrf !== false) headers.set("x-csrf-token", typeof init.csrf === "string" ? init.csrf : csrf);
          return t.request(path, { ...init, headers, peer: init.peer ?? LOOPBACK });
        },
      };
    },
  };
  return app;
}
