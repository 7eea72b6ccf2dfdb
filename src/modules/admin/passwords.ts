// Admins' passwords (docs/operators/console.md): at least 12 characters, never a common one,
// hashed with Argon2id by Bun.password. The common passwords are zxcvbn-ts's list, loaded on
// first use: parsing it costs a server's start-up half a second otherwise.

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 256;

let common: Promise<Set<string>> | null = null;

function commonPasswords(): Promise<Set<string>> {
  common ??= import("@zxcvbn-ts/language-common").then(
    ({ dictionary }) => new Set((dictionary["passwords-common"] as string[]).map((p) => p.toLowerCase())),
  );
  return common;
}

/** Why a password is refused, or null when it is fine. */
export async function passwordProblem(password: string, email: string): Promise<string | null> {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) return `must have at least ${MIN_PASSWORD_LENGTH} characters`;
  if (length > MAX_PASSWORD_LENGTH) return `must have at most ${MAX_PASSWORD_LENGTH} characters`;
  const lower = password.toLowerCase();
  if ((await commonPasswords()).has(lower)) return "is among the most common passwords: choose another";
  if (new Set(lower).size < 4) return "repeats too few characters: choose another";
  const local = email.toLowerCase().split("@")[0] ?? "";
  if (lower === email.toLowerCase() || (local.length >= 4 && lower.includes(local)))
    return "must not contain your e-mail address";
  return null;
}

export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, { algorithm: "argon2id" });
}

/** A hash of nothing anyone knows: an unknown e-mail costs a sign-in the same work as a known one. */
let nobody: Promise<string> | null = null;

export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  nobody ??= hashPassword(crypto.randomUUID());
  const against = hash ?? (await nobody);
  const ok = await Bun.password.verify(password, against);
  return ok && hash !== null;
}
