// The executable's entry: argv → one command of cli/. Bad usage or config exits 2.
import { reexecForServer } from "./allocator.ts";
import { UsageError } from "./cli/args.ts";
import { HELP } from "./cli/help.ts";
import { ConfigError } from "./config/load.ts";
import { SchemaTooNewError } from "./db/migrate.ts";
import { VERSION } from "./version.ts";

type Command = (args: string[]) => void | number | Promise<void | number>;

/**
 * Each command is loaded only when it runs: an import or a backup does not pay for the
 * server stack's memory and start-up. (The paths are literal, so the binary bundles them.)
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  sandbox: async () => (await import("./cli/sandbox.ts")).sandboxCommand,
  serve: async () => (await import("./cli/serve.ts")).serveCommand,
  seed: async () => (await import("./cli/seed.ts")).seedCommand,
  "hash-secret": async () => (await import("./cli/keys.ts")).hashSecretCommand,
  client: async () => (await import("./cli/keys.ts")).clientCommand,
  import: async () => (await import("./cli/import.ts")).importCommand,
  export: async () => (await import("./cli/export.ts")).exportCommand,
  backup: async () => (await import("./cli/backup.ts")).backupCommand,
  feeds: async () => (await import("./cli/feeds.ts")).feedsCommand,
  admin: async () => (await import("./cli/admin.ts")).adminCommand,
  privacy: async () => (await import("./cli/privacy.ts")).privacyCommand,
  healthcheck: async () => (await import("./cli/healthcheck.ts")).healthcheckCommand,
  "config-schema": async () => {
    const { ConfigSchema } = await import("./config/schema.ts");
    return () => void process.stdout.write(JSON.stringify(ConfigSchema, null, 2) + "\n");
  },
};

export async function main(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (name === "--version" || name === "-v") {
    process.stdout.write(`partner-api ${VERSION}\n`);
    return 0;
  }
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    process.stdout.write(HELP);
    return 0;
  }
  const load = COMMANDS[name];
  if (load === undefined) {
    process.stderr.write(`partner-api: unknown command "${name}"\n\n${HELP}`);
    return 2;
  }
  try {
    const code = await (await load())(args);
    return typeof code === "number" ? code : 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError || error instanceof SchemaTooNewError) {
      process.stderr.write(`partner-api ${name}: ${error.message}\n`);
      return 2;
    }
    process.stderr.write(`partner-api ${name}: ${(error as Error).message}\n`);
    return 1;
  }
}

if (import.meta.main) {
  reexecForServer(process.argv[2]);
  const code = await main(process.argv.slice(2));
  // Servers keep the process alive; one-shot commands end here with their code.
  if (code !== 0) process.exit(code);
}
