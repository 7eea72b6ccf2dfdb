// The POSIX locks a process holds on a database's -shm, from the kernel's lock table.
import { type FileLock, locksOn } from "../../src/db/in-use.ts";

export function shmLocksHeldBy(databasePath: string, pid: number): FileLock[] {
  return locksOn(`${databasePath}-shm`).filter((lock) => lock.pid === pid);
}
