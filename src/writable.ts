// Why this process cannot write a file it needs (a database, the generated token secret), in
// words an operator can act on: the path, the cause, and the fix. SQLite itself says only
// "unable to open database file", naming neither the path nor the reason.
import { accessSync, constants, existsSync, readFileSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";

/** A file partner-api must write sits where this process may not write. */
export class UnwritablePathError extends Error {}

/**
 * Podman sets `container` in the environment and writes /run/.containerenv (hidden under
 * --read-only, where /run is a fresh tmpfs); Docker writes /.dockerenv.
 */
function insideContainer(): boolean {
  return process.env.container !== undefined || existsSync("/run/.containerenv") || existsSync("/.dockerenv");
}

/** Whether `folder` is a mount point of its own (field 5 of /proc/self/mountinfo, spaces escaped). */
function isMountPoint(folder: string): boolean {
  try {
    return readFileSync("/proc/self/mountinfo", "utf8")
      .split("\n")
      .some((line) => line.split(" ")[4]?.replace(/\\040/g, " ") === folder);
  } catch {
    return false;
  }
}

function accessProblem(path: string, mode: number): string | null {
  try {
    accessSync(path, mode);
    return null;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? "EACCES";
  }
}

function ownership(path: string): string {
  const stat = statSync(path);
  return `it belongs to uid ${stat.uid}, gid ${stat.gid} with mode ${(stat.mode & 0o777).toString(8).padStart(4, "0")}`;
}

function permissionFix(path: string, kind: "folder" | "file"): string {
  const owner = `${process.getuid?.() ?? 0}:${process.getgid?.() ?? 0}`;
  const chown = `chown ${kind === "folder" ? "-R " : ""}${owner}`;
  const folder = kind === "folder" ? path : dirname(path);
  // A folder mounted into a container: the fix is made on the host, where the path differs.
  if (insideContainer() && isMountPoint(folder)) {
    const what = kind === "folder" ? `the folder mounted at ${path}` : `${path} in the folder mounted at ${folder}`;
    return `Fix: on the host, ${chown} ${what} (rootless podman: podman unshare ${chown} …), or use a named volume instead.`;
  }
  return `Fix: ${chown} ${path}, or run partner-api as the user who owns it.`;
}

/** One sentence for a path that refused us, then the fix. */
function explain(path: string, kind: "folder" | "file", code: string): string {
  if (code === "EACCES" || code === "EPERM") {
    const uid = process.getuid?.() ?? 0;
    const gid = process.getgid?.() ?? 0;
    return `the ${kind} ${path} is not writable by this process (uid ${uid}, gid ${gid}); ${ownership(path)}. ${permissionFix(path, kind)}`;
  }
  if (code === "EROFS") {
    return `the ${kind} ${path} is on a read-only file system. Fix: keep it on a writable volume (in the container image: /app/data).`;
  }
  return `the ${kind} ${path} cannot be written (${code}).`;
}

/**
 * What stops this process from creating and writing `file`, or null when nothing visible does.
 * For a database (`sqlite`), SQLite's -wal and -shm files beside it must be writable too.
 */
export function unwritableReason(file: string, what: string, options: { sqlite?: boolean } = {}): string | null {
  const path = resolve(file);
  const folder = dirname(path);
  if (!existsSync(folder)) {
    return `cannot create ${what} ${path}: the folder ${folder} does not exist. Fix: create it (mkdir -p ${folder}), or give another path.`;
  }
  const folderCode = accessProblem(folder, constants.W_OK | constants.X_OK);
  if (folderCode !== null) return `cannot write ${what} ${path}: ${explain(folder, "folder", folderCode)}`;
  const files = options.sqlite === true ? [path, `${path}-wal`, `${path}-shm`] : [path];
  for (const candidate of files) {
    if (!existsSync(candidate)) continue;
    const code = accessProblem(candidate, constants.R_OK | constants.W_OK);
    if (code !== null) return `cannot write ${what} ${path}: ${explain(candidate, "file", code)}`;
  }
  return null;
}

/** Throws an UnwritablePathError when `file` visibly cannot be created and written (see unwritableReason). */
export function assertWritable(file: string, what: string, options: { sqlite?: boolean } = {}): void {
  const reason = unwritableReason(file, what, options);
  if (reason !== null) throw new UnwritablePathError(reason);
}

/** SQLite's codes for a file it could not open or may not write. */
function isStorageRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_CANTOPEN") || code.startsWith("SQLITE_READONLY"));
}

/**
 * The error to report for a failure on the database at `path`: an UnwritablePathError naming the
 * path, the cause and the fix when SQLite refused it for want of write access, else `error` itself.
 */
export function explainDatabaseError(error: unknown, path: string, what = "the database"): unknown {
  if (!isStorageRefusal(error)) return error;
  const reason = unwritableReason(path, what, { sqlite: true });
  return reason === null ? error : new UnwritablePathError(reason);
}
