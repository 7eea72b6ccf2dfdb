// The check of an API key and secret, in docs/reference/behaviour.md §4's order: key → IP list (before the secret,
// so a stolen secret cannot be confirmed from a blocked address) → secret → enabled → database.
// One check for every way credentials arrive: the token endpoint's headers and a portal's Basic auth.
import { SANDBOX_KEY_PREFIX } from "../config/load.ts";
import type { Client, RuntimeConfig } from "../config/model.ts";
import { verifySecret } from "./secrets.ts";

export type CredentialFailure =
  | "MISSING_CREDENTIALS"
  | "INVALID_API_KEY"
  | "IP_BLOCKED"
  | "INVALID_API_SECRET"
  | "API_DISABLED"
  | "NO_DATABASE";

export type CredentialCheck<D> =
  | {
      ok: true;
      client: Client;
      database: D;
      /** What the token is bound to: the client, or its previous secret during a rotation's overlap. */
      subject: Client | NonNullable<Client["previous"]>;
    }
  | {
      ok: false;
      code: CredentialFailure;
      /** The client, once its secret was proved (API_DISABLED, NO_DATABASE): a refusal of a known client, not a failed authentication. */
      client: Client | null;
      /** The client whose key was presented, when it exists, whatever the failure: its figures count the refusal. */
      claimed: Client | null;
    };

/**
 * Checks a key and secret presented from `ip` (null: unknown peer, refused as IP_BLOCKED).
 * `open` gives the client's database, or null when it cannot be used.
 */
export function checkCredentials<D>(
  config: RuntimeConfig,
  apiKey: string | null,
  apiSecret: string | null,
  ip: string | null,
  open: (path: string) => D | null,
  now: number = Date.now(),
): CredentialCheck<D> {
  const fail = (code: CredentialFailure, client: Client | null = null, claimed = client): CredentialCheck<D> => ({
    ok: false,
    code,
    client,
    claimed,
  });
  if (!apiKey || !apiSecret) return fail("MISSING_CREDENTIALS");
  const client = config.clientsByKey.get(apiKey);
  if (client === undefined || (config.environment === "production" && apiKey.startsWith(SANDBOX_KEY_PREFIX)))
    return fail("INVALID_API_KEY");
  if (ip === null || (client.ipWhitelist !== null && !client.ipWhitelist.matches(ip)))
    return fail("IP_BLOCKED", null, client);
  let subject: Client | NonNullable<Client["previous"]> = client;
  if (!verifySecret(apiSecret, client.secretHash)) {
    // A rotation's overlap: the replaced secret still opens the door until it ends.
    const previous = client.previous ?? null;
    if (previous === null || previous.validUntil <= now || !verifySecret(apiSecret, previous.secretHash))
      return fail("INVALID_API_SECRET", null, client);
    subject = previous;
  }
  if (!client.enabled) return fail("API_DISABLED", client);
  const database = client.databasePath === null ? null : open(client.databasePath);
  if (database === null) return fail("NO_DATABASE", client);
  return { ok: true, client, database, subject };
}
