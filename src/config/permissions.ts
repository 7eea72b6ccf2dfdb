// Files that hold secrets, and folders that hold databases, that other users of the machine can
// read or change. ssh and PostgreSQL refuse such key files; partner-api starts anyway (a
// container's mounts, a shared test box) but says so once at start, naming the file and the
// chmod that fixes it.
import { statSync } from "node:fs";
import { dirname } from "node:path";

/** One finding: the path, what is wrong, and the command that fixes it. */
export interface ExposedPath {
  path: string;
  /** Its permission bits, octal (e.g. "0666"). */
  mode: string;
  problem: string;
  fix: string;
}

export interface ExposureInputs {
  /** The config file: it may hold jwtSecret, the metrics token, feed headers, Redis passwords. */
  config: string;
  /** The generated token-signing secret, when the config has none of its own. */
  jwtSecretFile: string | null;
  /** The configured database files: their folders are checked. */
  databases: Iterable<string>;
}

const octal = (mode: number) => (mode & 0o7777).toString(8).padStart(4, "0");

function modeOf(path: string): number | null {
  try {
    return statSync(path).mode;
  } catch {
    return null; // missing or unreadable: other messages say so
  }
}

/**
 * What other users may do with the config, the secret file and the database folders. The
 * config may be readable by its group (the systemd setup installs it 0640, group partner-api)
 * but by no one else, and writable only by its owner; the secret file is its owner's alone
 * (made 0600); a database folder writable by others lets them replace the database, or its
 * -wal and -shm files.
 */
export function exposedPaths(inputs: ExposureInputs): ExposedPath[] {
  const found: ExposedPath[] = [];
  const config = modeOf(inputs.config);
  if (config !== null && (config & 0o026) !== 0) {
    const who = [(config & 0o004) !== 0 ? "read" : null, (config & 0o022) !== 0 ? "changed" : null]
      .filter(Boolean)
      .join(" and ");
    found.push({
      path: inputs.config,
      mode: octal(config),
      problem: `the config file can be ${who} by other users`,
      fix: `chmod 600 ${inputs.config}`,
    });
  }
  if (inputs.jwtSecretFile !== null) {
    const secret = modeOf(inputs.jwtSecretFile);
    if (secret !== null && (secret & 0o077) !== 0) {
      const who = [(secret & 0o044) !== 0 ? "read" : null, (secret & 0o022) !== 0 ? "changed" : null]
        .filter(Boolean)
        .join(" and ");
      found.push({
        path: inputs.jwtSecretFile,
        mode: octal(secret),
        problem: `the token-signing secret file can be ${who} by other users (whoever reads it can sign tokens for any client)`,
        fix: `chmod 600 ${inputs.jwtSecretFile}`,
      });
    }
  }
  for (const folder of new Set([...inputs.databases].map((path) => dirname(path)))) {
    const mode = modeOf(folder);
    if (mode !== null && (mode & 0o002) !== 0) {
      found.push({
        path: folder,
        mode: octal(mode),
        problem: "the database folder can be written by other users (they could replace a database or its -wal file)",
        fix: `chmod o-w ${folder}`,
      });
    }
  }
  return found;
}
