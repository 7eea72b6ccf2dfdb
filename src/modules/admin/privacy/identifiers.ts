// How a person is found among the leads (docs/operators/personal-data.md): an e-mail matches
// whatever its case, a phone by its digits, with or without the country code 55, an
// international 00 before it, or the zero before the area code.

/** The e-mail as compared: trimmed and case-folded. */
export function foldEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The phone's national digits: "+55 (011) 98765-4321", "011987654321" and "11 98765 4321" fold alike. */
export function foldPhone(phone: string): string {
  let digits = phone.replace(/\D/g, "");
  if (digits.startsWith("00")) digits = digits.slice(2);
  // 55 and then a full national number (10 or 11 digits, or 11–12 with the area code's zero).
  if (digits.startsWith("55") && digits.length >= 12) digits = digits.slice(2);
  if (digits.startsWith("0")) digits = digits.slice(1);
  return digits;
}

/** What identifies the person a request is about: an e-mail or a phone. */
export type Subject = { email: string } | { phone: string };

/** A digest of the person's identifiers, kept where the identifiers may not be (the audit log, a completed request). */
export function subjectHash(subject: Subject): string {
  const folded = "email" in subject ? `email:${foldEmail(subject.email)}` : `phone:${foldPhone(subject.phone)}`;
  return new Bun.CryptoHasher("sha256").update(folded).digest("hex");
}

/** The subject of a query: exactly one of an e-mail or a phone, or null when neither (or both) is given. */
export function subjectOf(email: unknown, phone: unknown): Subject | null {
  const hasEmail = typeof email === "string" && foldEmail(email) !== "";
  const hasPhone = typeof phone === "string" && foldPhone(phone) !== "";
  if (hasEmail === hasPhone) return null;
  return hasEmail ? { email: email as string } : { phone: phone as string };
}
