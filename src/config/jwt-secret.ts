// Where the token-signing secret comes from when the config has no `jwtSecret`: a file, made
// once at first start (mode 0600) and read at every start after, so tokens survive restarts.
import { chmodSync, existsSync, linkSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { randomToken } from "../security/secrets.ts";
import { MIN_SECRET_BYTES } from "../security/tokens.ts";
import { UnwritablePathError, unwritableReason } from "../writable.ts";

/**
 * Names the file the generated secret is kept in, instead of beside the config. The container
 * image sets it to its data volume (/app/data/jwt-secret): beside a config mounted read-only, in
 * the container's own layer, the secret would die with every new container, and every partner's
 * token with it.
 */
export const JWT_SECRET_FILE_ENV = "PARTNER_API_JWT_SECRET_FILE";

const HOW_TO_CHOOSE =
  `Either set "jwtSecret" in the config (at least ${MIN_SECRET_BYTES} bytes; make one with: openssl rand -base64 48), ` +
  `or set ${JWT_SECRET_FILE_ENV} to a file in a folder partner-api can write, such as its data folder.`;

function readSecretFile(file: string): string {
  const secret = readFileSync(file, "utf8").trim();
  if (Buffer.byteLength(secret) < MIN_SECRET_BYTES) {
    throw new Error(
      `the token secret in ${file} is shorter than ${MIN_SECRET_BYTES} bytes: delete the file to have a new one made, or put a longer one in it`,
    );
  }
  return secret;
}

/**
 * Makes the secret file. Written aside and linked into place, so two processes starting at once
 * (serve --workers) end up with the same secret, never half a file.
 */
function createSecretFile(file: string): string {
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    writeFileSync(tmp, randomToken(64) + "\n", { mode: 0o600 });
    chmodSync(tmp, 0o600); // whatever the umask
    linkSync(tmp, file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EEXIST") {
      const reason = unwritableReason(file, "the generated token secret");
      throw new UnwritablePathError(
        `${reason ?? `cannot write the generated token secret ${file} (${code ?? (error as Error).message})`}\n${HOW_TO_CHOOSE}`,
      );
    }
  } finally {
    rmSync(tmp, { force: true });
  }
  return readSecretFile(file);
}

/**
 * The generated secret for the config at `configPath`: a file beside the config if one is there
 * (where every version so far has kept it: an upgrade keeps partners' tokens valid), else the file
 * ${JWT_SECRET_FILE_ENV} names, else one beside the config; made at first start.
 */
export function generatedJwtSecret(configPath: string): string {
  const file = jwtSecretFileOf(configPath);
  return existsSync(file) ? readSecretFile(file) : createSecretFile(file);
}

/** The file generatedJwtSecret reads (or makes) for the config at `configPath`. */
export function jwtSecretFileOf(configPath: string): string {
  const besideConfig = `${configPath}.jwt-secret`;
  if (existsSync(besideConfig)) return besideConfig;
  const named = process.env[JWT_SECRET_FILE_ENV];
  return named !== undefined && named !== "" ? resolve(named) : besideConfig;
}
