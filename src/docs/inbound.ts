// The security scheme of the portal leads endpoint (docs/operators/portal-leads.md), a shared
// component of the document; its operation is declared beside its route (src/modules/inbound/openapi.ts).
import { SANDBOX_API_SECRET, SANDBOX_INBOUND } from "./examples.ts";

/** The security scheme of POST /v1/inbound/{clientId}. */
export const INBOUND_SECURITY_SCHEME = {
  type: "http",
  scheme: "basic",
  description:
    "The user and password of the client's `inbound` config, as the portal's panel sends them (Grupo ZAP: user `vivareal` and the " +
    "secret the agency chose; Chaves na Mão: the agency's e-mail there and its token). In the sandbox: " +
    `\`/v1/inbound/${SANDBOX_INBOUND.grupozap.clientId}\` (user \`vivareal\`) and \`/v1/inbound/${SANDBOX_INBOUND.chavesnamao.clientId}\` ` +
    `(any user), password \`${SANDBOX_API_SECRET}\``,
};
