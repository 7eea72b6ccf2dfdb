// The executable's entry: argv → one command of cli/. Bad usage or config exits 2.
import { backupCommand } from "./cli/backup.ts";
import { exportCommand } from "./cli/export.ts";
import { importCommand } from "./cli/import.ts";
import { clientCommand, hashSecretCommand } from "./cli/keys.ts";
import { HELP } from "./cli/help.ts";
import { sandboxCommand } from "./cli/sandbox.ts";
import { seedCommand } from "./cli/seed.ts";
import { serveCommand } from "./cli/serve.ts";
import { UsageError } from "./cli/args.ts";
import { ConfigError } from "./config/load.ts";
import { ConfigSchema } from "./config/schema.ts";
import { SchemaTooNewError } from "./db/migrate.ts";
import { VERSION } from "./version.ts";

type Command = (args: string[]) => void | Promise<void | number>;

const COMMANDS: Record<string, Command> = {
  sandbox: sandboxCommand,
  serve: serveCommand,
  seed: seedCommand,
  "hash-secret": hashSecretCommand,
  client: clientCommand,
  import: importCommand,
  export: exportCommand,
  backup: backupCommand,
  "config-schema": () => void process.stdout.write(JSON.stringify(ConfigSchema, null, 2) + "\n"),
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
  const command = COMMANDS[name];
  if (command === undefined) {
    process.stderr.write(`partner-api: unknown command "${name}"\n\n${HELP}`);
    return 2;
  }
  try {
    const code = await command(args);
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
  const code = await main(process.argv.slice(2));
  // Servers keep the process alive; one-shot commands end here with their code.
  if (code !== 0) process.exit(code);
}
