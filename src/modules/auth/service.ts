// Issuing tokens from API credentials, with the checks of CONTRACT §4 in their order.
import { SANDBOX_KEY_PREFIX } from "../../config/load.ts";
import type { ErrorCode } from "../../errors.ts";
import type { Runtime } from "../../runtime.ts";
import { verifySecret } from "../../security/secrets.ts";

export type TokenResult =
  | { ok: true; clientId: string; token: string; expiresIn: number }
  | { ok: false; code: ErrorCode };

export function issueToken(
  runtime: Runtime,
  apiKey: string | null,
  apiSecret: string | null,
  ip: string | null,
): TokenResult {
  if (!apiKey || !apiSecret) return { ok: false, code: "MISSING_CREDENTIALS" };
  const { config } = runtime;
  const client = config.clientsByKey.get(apiKey);
  if (client === undefined || (config.environment === "production" && apiKey.startsWith(SANDBOX_KEY_PREFIX))) {
    return { ok: false, code: "INVALID_API_KEY" };
  }
  // Decided as soon as the key is known (CONTRACT §4, amended): from a blocked address, a right
  // and a wrong secret get the same answer, so a stolen secret cannot be confirmed from anywhere.
  if (ip === null || (client.ipWhitelist !== null && !client.ipWhitelist.matches(ip))) {
    return { ok: false, code: "IP_BLOCKED" };
  }
  if (!verifySecret(apiSecret, client.secretHash)) return { ok: false, code: "INVALID_API_SECRET" };
  if (!client.enabled) return { ok: false, code: "API_DISABLED" };
  if (client.databasePath === null || runtime.tenants.get(client.databasePath) === null) {
    return { ok: false, code: "NO_DATABASE" };
  }
  const { token, expiresIn } = runtime.tokens.issue(client);
  return { ok: true, clientId: client.id, token, expiresIn };
}
