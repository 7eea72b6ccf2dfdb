// `partner-api hash-secret SECRET` and `partner-api client new --id ID [--name N]`.
import { Value } from "@sinclair/typebox/value";
import { ClientSchema } from "../config/schema.ts";
import { hashSecret, newKeyPair } from "../security/secrets.ts";
import { parseFlags, UsageError } from "./args.ts";

export function hashSecretCommand(args: string[]): void {
  const { positionals } = parseFlags(args, {}, true);
  if (positionals.length !== 1 || positionals[0] === "") throw new UsageError("usage: partner-api hash-secret SECRET");
  process.stdout.write(hashSecret(positionals[0]!) + "\n");
}

export function clientCommand(args: string[]): void {
  const [sub, ...rest] = args;
  if (sub !== "new") throw new UsageError("usage: partner-api client new --id ID [--name NAME]");
  const { values } = parseFlags(rest, { id: { type: "string" }, name: { type: "string" } });
  if (!values.id) throw new UsageError("--id ID is required");
  const { apiKey, secret } = newKeyPair(values.id);
  const entry = {
    id: values.id,
    ...(values.name ? { name: values.name } : {}),
    apiKey,
    secretHash: hashSecret(secret),
    enabled: true,
    database: "agency",
    rateLimitPerMinute: 60,
  };
  if (!Value.Check(ClientSchema, entry)) throw new UsageError(`--id "${values.id}" is not a valid client id (letters, digits, . _ -)`);
  process.stdout.write(
    [
      `API key:    ${apiKey}`,
      `API secret: ${secret}`,
      "",
      "Give both to the partner over a secure channel; the secret is shown only now.",
      'Add this entry to "clients" in the config file (set "database" to one of your "databases"), then send SIGHUP:',
      "",
      JSON.stringify(entry, null, 2),
      "",
    ].join("\n"),
  );
}
