// The reader threads' defaults, which the config's schema states (docs/reference/config.md, `reads`).

/** How long a read may take, from the moment it reached the server (§25: 5 s). */
export const DEFAULT_READ_DEADLINE_MS = 5_000;

/** Dear reads one client may have running at once; its others wait their turn (§25). */
export const READS_PER_CLIENT = 2;

/**
 * Threads by default: one more than a client may hold, so while one partner holds two, another's
 * read still finds a thread at once. On two cores more threads would only share them more thinly
 * (each also holds its own connections and caches); fewer would let one partner hold them all.
 */
export const DEFAULT_READER_THREADS = READS_PER_CLIENT + 1;

/**
 * The reader threads' nice value (the event loop keeps the process's, 0). When a search and the
 * event loop want the same core, Linux gives the event loop about three times the search's
 * share (weights 1024 and 335), so /health and the cheap pages of every partner are answered
 * between slices of the search, which still progresses (a search has its deadline, not a whole
 * core). Lowering one's own priority needs no privilege.
 */
export const READER_NICE = 5;
