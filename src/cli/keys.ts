// `partner-api hash-secret SECRET` and `partner-api client new --id ID [--name N] [--portal [--url BASE]]`.
import { Value } from "@sinclair/typebox/value";
import { ClientSchema } from "../config/schema.ts";
import { FEED_PATH } from "../modules/portal-feed/service.ts";
import { hashSecret, newKeyPair } from "../security/secrets.ts";
import { parseFlags, UsageError } from "./args.ts";

export function hashSecretCommand(args: string[]): void {
  const { positionals } = parseFlags(args, {}, true);
  if (positionals.length !== 1 || positionals[0] === "") throw new UsageError("usage: partner-api hash-secret SECRET");
  process.stdout.write(hashSecret(positionals[0]!) + "\n");
}

const USAGE = "usage: partner-api client new --id ID [--name NAME] [--portal [--url BASE]]";

/** What to paste into a portal's panel (ZAP, VivaReal, OLX take a feed URL, a user and a password), and what the portal will see. */
function portalLines(base: string, apiKey: string, secret: string): string[] {
  return [
    "In the portal's panel (ZAP, VivaReal, OLX: the XML feed loaded from a URL), paste:",
    "",
    `  URL:      ${base}${FEED_PATH}`,
    `  User:     ${apiKey}`,
    `  Password: ${secret}`,
    "",
    "The portal then fetches every published listing of the database as VRSync, whenever it likes, and takes",
    'down what the file no longer lists. Without "fullAddress": true it sees only what each listing\'s',
    'displayAddress shows. To send it fewer listings, fill "feed" in the entry, e.g.',
    '  "feed": { "operationType": ["SALE"], "status": ["AVAILABLE"], "propertyType": ["Apartamento"], "maxListings": 500 }',
    "(maxListings: the most recently updated first, for a portal plan's limit). Restrict it to the portal's",
    'addresses with "ipWhitelist" when the portal publishes them.',
  ];
}

export function clientCommand(args: string[]): void {
  const [sub, ...rest] = args;
  if (sub !== "new") throw new UsageError(USAGE);
  const { values } = parseFlags(rest, {
    id: { type: "string" },
    name: { type: "string" },
    portal: { type: "boolean" },
    url: { type: "string" },
  });
  if (!values.id) throw new UsageError("--id ID is required");
  if (values.url !== undefined && values.portal !== true) throw new UsageError(`--url goes with --portal (${USAGE})`);
  if (values.url !== undefined && !/^https?:\/\/[^/\s]+/.test(values.url)) {
    throw new UsageError(
      `--url must be the server's public address, such as https://api.agency.com.br, got "${values.url}"`,
    );
  }
  const { apiKey, secret } = newKeyPair(values.id);
  const entry = {
    id: values.id,
    ...(values.name ? { name: values.name } : {}),
    apiKey,
    secretHash: hashSecret(secret),
    enabled: true,
    database: "agency",
    rateLimitPerMinute: 60,
    // Every published listing until the agency says otherwise (the keys are printed below).
    ...(values.portal === true ? { feed: {} } : {}),
  };
  if (!Value.Check(ClientSchema, entry))
    throw new UsageError(`--id "${values.id}" is not a valid client id (letters, digits, . _ -)`);
  const base = (values.url ?? "https://<this server's public address>").replace(/\/+$/, "");
  process.stdout.write(
    [
      `API key:    ${apiKey}`,
      `API secret: ${secret}`,
      "",
      values.portal === true
        ? "Keep both for the portal's panel below; the secret is shown only now."
        : "Give both to the partner over a secure channel; the secret is shown only now.",
      'Add this entry to "clients" in the config file (set "database" to one of your "databases"), then send SIGHUP:',
      "",
      JSON.stringify(entry, null, 2),
      "",
      ...(values.portal === true ? [...portalLines(base, apiKey, secret), ""] : []),
    ].join("\n"),
  );
}
