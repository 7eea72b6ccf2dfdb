// The e-mail rule of the whole API: lead creation validates with it, and the lead schemas of
// requests, records and webhook payloads all name its format.
import { FormatRegistry } from "@sinclair/typebox";

// One rule for every address the API takes and gives back (RFC 6531's internationalised form,
// JSON Schema's `idn-email`): letters of any script are accepted in the local part and the
// domain alike (joão@exemplo.com.br, maria@exémplo.com.br); spaces, quotes and the specials
// of RFC 5322 are not, and the domain needs a dot and labels of letters, digits and inner hyphens.
const LABEL = "[\\p{L}\\p{N}](?:[\\p{L}\\p{N}\\p{M}-]{0,61}[\\p{L}\\p{N}\\p{M}])?";
const EMAIL = new RegExp(`^[^\\s@"(),:;<>[\\]\\\\\\p{Cc}]{1,64}@(?=.{1,253}$)${LABEL}(?:\\.${LABEL})+$`, "u");

/** The name of the e-mail format in the schemas and the document. */
export const EMAIL_FORMAT = "idn-email";

export function isEmail(value: string): boolean {
  return value.length <= 254 && EMAIL.test(value);
}
if (!FormatRegistry.Has(EMAIL_FORMAT)) FormatRegistry.Set(EMAIL_FORMAT, isEmail);
