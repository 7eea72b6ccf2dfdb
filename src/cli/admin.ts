// `partner-api admin new --config FILE --email E --role owner|admin|viewer [--database NAME…] [--url BASE]`:
// an admin of the console (docs/operators/console.md), waiting for its set-up. Prints the one-time
// link (valid 24 hours) where the person sets a password and enrols TOTP.
import { wallClock } from "../clock.ts";
import { loadConfigFile } from "../config/load.ts";
import { ControlStore, ROLES, type Role } from "../db/control/store.ts";
import { ApiError } from "../errors.ts";
import { createAdmin, isEmail, setupUrl } from "../modules/admin/service.ts";
import { parseFlags, UsageError, urlHost } from "./args.ts";

export async function adminCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== "new")
    throw new UsageError("usage: partner-api admin new --config FILE --email E --role owner|admin|viewer");
  const { values } = parseFlags(rest, {
    config: { type: "string" },
    email: { type: "string" },
    role: { type: "string" },
    database: { type: "string", multiple: true },
    url: { type: "string" },
  });
  if (!values.email || !isEmail(values.email)) throw new UsageError("--email must be an e-mail address");
  if (!values.role || !(ROLES as readonly string[]).includes(values.role))
    throw new UsageError("--role must be owner, admin or viewer");
  const config = loadConfigFile(values.config ?? "./config.json");
  const databases = values.database ?? [];
  for (const name of databases) {
    if (!config.databases.has(name))
      throw new UsageError(
        `--database ${name}: the config has no such database (it names ${[...config.databases.keys()].join(", ") || "none"})`,
      );
  }
  if (values.url !== undefined && !/^https?:\/\/[^\s/]+$/.test(values.url))
    throw new UsageError("--url must be the console's base URL, e.g. https://api.example.com");
  const base =
    values.url ?? `http://${urlHost(config.host === "0.0.0.0" ? "127.0.0.1" : config.host)}:${config.port ?? 8080}`;
  const store = ControlStore.open(config.controlPath, { create: true });
  try {
    const made = store.transaction(() => {
      const made = createAdmin(store, { email: values.email!, role: values.role as Role, databases }, wallClock.now());
      store.audit({
        at: wallClock.now(),
        actor: "command line",
        ip: null,
        action: "admin.invite",
        target: values.email!,
        changes: { role: values.role, databases },
      });
      return made;
    });
    process.stdout.write(
      `admin ${values.email} (${values.role}) waits for its set-up; send this one-time link (valid 24 hours):\n` +
        `${setupUrl(base, made.token)}\n`,
    );
    return 0;
  } catch (error) {
    if (error instanceof ApiError) throw new UsageError(error.message);
    throw error;
  } finally {
    store.close();
  }
}
