// Issuing tokens from API credentials, checked in docs/reference/behaviour.md §4's order (security/credentials.ts).
import type { ErrorCode } from "../../errors.ts";
import type { Runtime } from "../../runtime.ts";
import { checkCredentials } from "../../security/credentials.ts";

export type TokenResult =
  | { ok: true; clientId: string; token: string; expiresIn: number }
  | { ok: false; code: ErrorCode };

export function issueToken(
  runtime: Runtime,
  apiKey: string | null,
  apiSecret: string | null,
  ip: string | null,
): TokenResult {
  const checked = checkCredentials(
    runtime.config,
    apiKey,
    apiSecret,
    ip,
    (path) => runtime.tenants.get(path),
    runtime.clock.now(),
  );
  if (!checked.ok) return { ok: false, code: checked.code };
  // Bound to the secret presented: during a rotation's overlap, the old one's tokens end with it.
  const { token, expiresIn } = runtime.tokens.issue(checked.subject);
  return { ok: true, clientId: checked.client.id, token, expiresIn };
}
