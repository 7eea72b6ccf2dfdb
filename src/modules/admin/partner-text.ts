// The text an admin sends a new partner with its credentials, in pt-BR and in English
// (docs/operators/console.md). Plain text: the console shows it in a <pre>, escaped.

export interface Handover {
  name: string;
  baseUrl: string;
  docsUrl: string;
  apiKey: string;
  apiSecret: string;
  inbound: { url: string; username: string; password: string } | null;
}

export function partnerText(h: Handover): { "pt-BR": string; en: string } {
  const inboundPt = h.inbound
    ? `\nPara enviar leads do portal (HTTP Basic):\n  URL: ${h.inbound.url}\n  Usuário: ${h.inbound.username}\n  Senha: ${h.inbound.password}\n`
    : "";
  const inboundEn = h.inbound
    ? `\nTo post the portal's leads (HTTP Basic):\n  URL: ${h.inbound.url}\n  User: ${h.inbound.username}\n  Password: ${h.inbound.password}\n`
    : "";
  return {
    "pt-BR":
      `Olá, ${h.name}!\n\nSuas credenciais da API de parceiros:\n  URL base: ${h.baseUrl}\n  X-API-Key: ${h.apiKey}\n` +
      `  X-API-Secret: ${h.apiSecret}\n${inboundPt}\nTroque a chave e o segredo por um token em POST ${h.baseUrl}/v1/auth/token ` +
      `(válido por uma hora). Documentação: ${h.docsUrl}\n\nGuarde o segredo em local seguro: ele não será mostrado de novo.\n`,
    en:
      `Hello, ${h.name}!\n\nYour Partner API credentials:\n  Base URL: ${h.baseUrl}\n  X-API-Key: ${h.apiKey}\n` +
      `  X-API-Secret: ${h.apiSecret}\n${inboundEn}\nExchange the key and secret for a token at POST ${h.baseUrl}/v1/auth/token ` +
      `(valid for one hour). Documentation: ${h.docsUrl}\n\nKeep the secret somewhere safe: it will not be shown again.\n`,
  };
}
