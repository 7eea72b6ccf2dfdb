// Has anyone committed to the database since we last looked? Asking SQLite (`PRAGMA
// data_version`) opens a read transaction, which takes and releases file locks: measured at
// a fifth of a cached list request. Every commit in WAL mode, from any connection of any
// process, rewrites the wal-index header in the database's `-shm` file, and that header
// carries a counter "incremented with each transaction" (https://sqlite.org/walformat.html,
// "The WAL-Index Header"). Reading it from a shared memory map costs nanoseconds.
//
// The header is stored twice; a writer updates the second copy, then the first. Both copies
// agreeing means no update was under way while we read. The counter only tells whether
// something changed: the generation itself still comes from `PRAGMA data_version`, asked
// again whenever the counter moved (see Tenant.generation).

/** Byte layout of the header copy (SQLite's WalIndexHdr, native byte order): 48 bytes each. */
const HEADER_BYTES = 48;
const CHANGE_COUNTER = 8; // u32 iChange
const IS_INIT = 12; // u8 isInit

export class WalChangeCounter {
  private constructor(
    private readonly bytes: Uint8Array,
    private readonly words: Uint32Array,
  ) {}

  /**
   * Maps the header of `<database>-shm`. Null when there is none to map (not in WAL mode, or
   * the file is not initialised yet): callers then ask SQLite every time.
   */
  static open(databasePath: string): WalChangeCounter | null {
    try {
      const bytes = Bun.mmap(`${databasePath}-shm`, { shared: true, size: 2 * HEADER_BYTES });
      if (bytes.byteLength < 2 * HEADER_BYTES || bytes.byteOffset % 4 !== 0) return null;
      return new WalChangeCounter(bytes, new Uint32Array(bytes.buffer, bytes.byteOffset, (2 * HEADER_BYTES) / 4));
    } catch {
      return null;
    }
  }

  /** The header's change counter, or null when it cannot be trusted at this instant. */
  read(): number | null {
    const first = this.words[CHANGE_COUNTER / 4]!;
    const second = this.words[(HEADER_BYTES + CHANGE_COUNTER) / 4]!;
    if (first !== second || this.bytes[IS_INIT] !== 1 || this.bytes[HEADER_BYTES + IS_INIT] !== 1) return null;
    return first;
  }
}
