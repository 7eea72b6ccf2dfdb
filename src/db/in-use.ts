// Who else has a database open, told without opening any of its files (see the rule in
// src/db/tenants.ts: a descriptor of our own, once closed, would drop SQLite's locks). Every
// SQLite connection in WAL mode holds a POSIX read lock on byte 128 of the database's `-shm`
// for as long as it is open; the kernel lists every such lock in /proc/locks with the holder's
// pid and the file's device and inode, which stat() gives us. Linux only: elsewhere, and for a
// file system that hides its inodes, nothing is found and callers proceed as before.
import { readFileSync, statSync } from "node:fs";

export interface FileLock {
  pid: number;
  kind: "READ" | "WRITE";
  start: number;
  /** Last byte locked; null for "to the end of the file". */
  end: number | null;
}

/** The device as /proc/locks prints it: major and minor in hex. */
function deviceOf(dev: bigint): string {
  // Linux's new_encode_dev: minor's low byte, then major's 12 bits, then minor's high bits.
  const major = (dev >> 8n) & 0xfffn;
  const minor = (dev & 0xffn) | ((dev >> 12n) & 0xfff00n);
  return `${major.toString(16).padStart(2, "0")}:${minor.toString(16).padStart(2, "0")}`;
}

function kernelLocks(): string[] {
  try {
    return readFileSync("/proc/locks", "utf8").split("\n");
  } catch {
    return [];
  }
}

/** The POSIX locks any process holds on `path` (none when it does not exist). */
export function locksOn(path: string): FileLock[] {
  const stat = statSync(path, { bigint: true, throwIfNoEntry: false });
  if (stat === undefined) return [];
  const file = `${deviceOf(stat.dev)}:${stat.ino}`;
  const locks: FileLock[] = [];
  for (const line of kernelLocks()) {
    // "1: POSIX  ADVISORY  READ 8998 fe:00:2146377 128 128" (a blocked waiter's line has "->").
    const fields = line.trim().split(/\s+/);
    if (fields[1] !== "POSIX" || fields[4] === undefined || fields.includes("->")) continue;
    if (fields[5] !== file) continue;
    locks.push({
      pid: Number(fields[4]),
      kind: fields[3] === "WRITE" ? "WRITE" : "READ",
      start: Number(fields[6]),
      end: fields[7] === "EOF" ? null : Number(fields[7]),
    });
  }
  return locks;
}

/** Pids of other processes with the database open (a live SQLite connection on its -shm). */
export function otherProcessesUsing(databasePath: string): number[] {
  const pids = new Set<number>();
  for (const lock of [...locksOn(`${databasePath}-shm`), ...locksOn(databasePath)]) {
    if (lock.pid !== process.pid && lock.pid > 0) pids.add(lock.pid);
  }
  return [...pids];
}

export class DatabaseInUseError extends Error {
  constructor(path: string, pids: number[]) {
    super(
      `${path} is open in another process (pid ${pids.join(", ")}), a server perhaps: stop it first; replacing a database under a live connection would corrupt it`,
    );
  }
}

/** Throws DatabaseInUseError when another process has the database open. */
export function refuseIfInUse(databasePath: string): void {
  const pids = otherProcessesUsing(databasePath);
  if (pids.length > 0) throw new DatabaseInUseError(databasePath, pids);
}
