// The published listings of one database held in memory, one typed array per column a search
// filters, sorts or counts on (docs/internals/search.md). Built from the rows once, then kept
// current from the change log: a search reads compact arrays instead of asking SQLite to combine
// indexes, so every combination of filters costs about the same, a scan of the listings.
import type { Database } from "bun:sqlite";
import { fold } from "../db/fold.ts";

/** Codes of the distinct values of one column; 0 stands for none (NULL or empty). */
export class Dictionary {
  private readonly codes = new Map<string, number>();
  readonly values: string[] = [""];

  code(value: string | null): number {
    if (value === null || value === "") return 0;
    let code = this.codes.get(value);
    if (code === undefined) {
      code = this.values.length;
      this.codes.set(value, code);
      this.values.push(value);
    }
    return code;
  }

  /** The code of a value already seen, or -1 (no listing has it). */
  find(value: string): number {
    return this.codes.get(value) ?? -1;
  }

  get size(): number {
    return this.values.length;
  }
}

/** A bit per slot. */
export type Bitset = Uint32Array;
export const hasBit = (bits: Bitset, slot: number): boolean => (bits[slot >>> 5]! & (1 << (slot & 31))) !== 0;

/** What a listing's row gives the index, in the order of COLUMNS. */
type Row = [
  rowid: number,
  status: string,
  operation: string,
  type: string | null,
  highlight: string,
  city: string | null,
  neighborhood: string | null,
  uf: string | null,
  price: number | null,
  area: number | null,
  bedrooms: number | null,
  bathrooms: number | null,
  suites: number | null,
  parking: number | null,
  furnished: number,
  financing: number,
  exclusive: number,
  createdAt: number,
  updatedAt: number,
  latitude: number | null,
  longitude: number | null,
  shownLatitude: number | null,
  shownLongitude: number | null,
  amenities: string,
  id: string,
];

/** A stored date (ISO 8601, UTC, milliseconds) as milliseconds since 1970, computed by SQLite: quicker than Date.parse. */
const MILLISECONDS = (column: string) =>
  `(CAST(strftime('%s', ${column}) AS INTEGER) * 1000 + CAST(substr(${column}, 21, 3) AS INTEGER))`;

/**
 * The columns of a published listing the index holds. The coordinates partners are shown are
 * computed by SQLite, exactly as the records show them (catalog/properties.ts shownCoordinate).
 */
const COLUMNS = `rowid, status, operation_type, property_type, highlight, city, neighborhood, uf, deal_price, search_area, bedrooms, bathrooms, suites, parking_spaces, is_furnished, accepts_financing,
  exclusive, ${MILLISECONDS("created_at")}, ${MILLISECONDS("updated_at")}, latitude, longitude,
  CASE display_address WHEN 'ALL' THEN latitude WHEN 'STREET' THEN round(latitude, 3) END,
  CASE display_address WHEN 'ALL' THEN longitude WHEN 'STREET' THEN round(longitude, 3) END,
  amenities, id`;
/** The published listings in rowid order, a small chunk at a time: the build never holds many rows at once. */
const CHUNK_SQL = `SELECT ${COLUMNS} FROM properties WHERE is_published = 1 AND rowid > ? ORDER BY rowid LIMIT ?`;
const CHUNK = 2_000;
/**
 * Chunks read between two collections of the garbage they leave. Left to itself, the heap grows
 * with the index's arrays and keeps the rows' garbage until it is twice as large: 770 MB of
 * memory for an index of 140 MB at a million listings, against 320 MB collected every 100,000
 * rows (each collection some milliseconds: the build takes as long).
 */
const CHUNKS_BETWEEN_COLLECTIONS = 50;
/** Every row's rowid in id order: the ties of every sort are broken by id. */
const ID_ORDER_SQL = "SELECT json_group_array(rowid) FROM (SELECT rowid FROM properties ORDER BY id)";
const ROWS_BY_ID_SQL = `SELECT ${COLUMNS}, is_published FROM properties WHERE id IN (SELECT value FROM json_each(?))`;
const PUBLISHED_ROWIDS_SQL = "SELECT json_group_array(rowid) FROM properties WHERE is_published = 1";
const SIZE_SQL =
  "SELECT (SELECT count(*) FROM properties WHERE is_published = 1), coalesce(max(rowid), 0) FROM properties";
const HEAD_SQL = "SELECT coalesce(max(sequence), 0) FROM changes";
const OLDEST_SQL = "SELECT min(sequence) FROM changes";
/** A range of the log's write order, read by rowid (`+entity`: no index by entity may be taken for it). */
const CHANGED_SQL =
  "SELECT json_group_array(DISTINCT record_id) FROM changes WHERE +entity = 'properties' AND sequence > ? AND sequence <= ?";
/** Before the neighbours of a new listing's id: its place in the id order. */
const ID_BEFORE_SQL = "SELECT rowid FROM properties WHERE id < ? AND is_published = 1 ORDER BY id DESC LIMIT ?";
const ID_AFTER_SQL = "SELECT rowid FROM properties WHERE id > ? AND is_published = 1 ORDER BY id LIMIT ?";

const FLAG_FURNISHED = 1;
const FLAG_FINANCING = 2;
const FLAG_EXCLUSIVE = 4;
export const FLAGS = { isFurnished: FLAG_FURNISHED, acceptsFinancing: FLAG_FINANCING, exclusive: FLAG_EXCLUSIVE };

/** When removed slots are more than this share of all, the index is built anew (compacted). */
const MAX_REMOVED_SHARE = 0.25;
/** How many neighbours by id are looked at to place a new listing's id among those already held. */
const NEIGHBOURS = 64;

type Column = Int32Array | Uint8Array | Uint16Array | Uint32Array | Float64Array;

export class ListingIndex {
  /** Slots in use; a removed listing's slot stays, not live, until the index is built anew. */
  size = 0;
  live = 0;
  private capacity = 0;

  readonly statuses = new Dictionary();
  readonly operations = new Dictionary();
  readonly types = new Dictionary();
  readonly highlights = new Dictionary();
  /** Places folded (city, neighbourhood and state share the codes), and as written. */
  readonly places = new Dictionary();
  private readonly placeSpellings = new Dictionary();
  /** The folded place of each spelling's code, found the first time the spelling is seen. */
  private readonly placeOfSpelling: number[] = [0];
  readonly amenityKeys = new Dictionary();
  /** What the shown spellings were counted from (`version`), and them; counted when first asked after a change. */
  private shown: { version: number; places: Map<PlaceKind, (string | null)[]>; amenities: (string | null)[] | null } = {
    version: -1,
    places: new Map(),
    amenities: null,
  };

  rowid = new Int32Array(0);
  isLive = new Uint8Array(0);
  status = new Uint8Array(0);
  operation = new Uint8Array(0);
  type = new Uint32Array(0);
  highlight = new Uint32Array(0);
  city = new Uint32Array(0);
  neighborhood = new Uint32Array(0);
  uf = new Uint32Array(0);
  private citySpelling = new Uint32Array(0);
  private neighborhoodSpelling = new Uint32Array(0);
  private ufSpelling = new Uint32Array(0);
  /** Numbers, NaN for NULL: NaN fails every comparison, as NULL does in SQL. */
  price = new Float64Array(0);
  area = new Float64Array(0);
  bedrooms = new Float64Array(0);
  bathrooms = new Float64Array(0);
  suites = new Float64Array(0);
  parking = new Float64Array(0);
  flags = new Uint8Array(0);
  createdAt = new Float64Array(0);
  updatedAt = new Float64Array(0);
  latitude = new Float64Array(0);
  longitude = new Float64Array(0);
  shownLatitude = new Float64Array(0);
  shownLongitude = new Float64Array(0);
  /** The place of the listing's id in id order (ties of every sort); a new id gets a place between its neighbours'. */
  idRank = new Float64Array(0);
  /** A hash of the id, to tell a rowid given to another listing (SQLite may reuse the last rowid). */
  private idHash = new Uint32Array(0);
  /** Per amenity key code, a bit per slot. */
  amenities: Bitset[] = [];
  /**
   * Per slot, its amenities as a code of `amenitySets`: listings share few distinct lists, so
   * each is parsed and folded once, and a facet counts lists, not listings' amenities.
   */
  amenitySet = new Uint32Array(0);
  /** The distinct amenity lists as written (JSON), and each one's amenity codes and spellings. */
  private readonly amenitySets = new Dictionary();
  private readonly amenitySetPairs: (readonly (readonly [number, string])[])[] = [[]];

  /** Slot of a rowid (rowids index this array; -1: none). */
  private slotOf = new Int32Array(0);
  /** The change log's last sequence the index reflects. */
  sequence = 0;
  /** Grows with every change the index takes in: what is cached by slot is keyed by it. */
  version = 0;
  /** Set when the index should be built anew: too many removed slots, or ids' places too close to tell apart. */
  stale = false;

  private constructor(private readonly db: Database) {}

  /** The index of the published listings of `db`, read in one snapshot. */
  static build(db: Database): ListingIndex {
    const index = new ListingIndex(db);
    db.transaction(() => index.fill()).deferred();
    return index;
  }

  private fill(): void {
    this.sequence = (this.db.query(HEAD_SQL).values() as [number][])[0]![0];
    // Room for every listing at once: growing the arrays as rows come would copy them again and again.
    const [published, lastRowid] = (this.db.query(SIZE_SQL).values() as [number, number][])[0]!;
    this.grow(published);
    this.mapRowid(lastRowid, -1);
    const chunk = this.db.prepare(CHUNK_SQL);
    let after = 0;
    let chunks = 0;
    for (;;) {
      const rows = chunk.values(after, CHUNK) as unknown as Row[];
      for (const row of rows) this.put(row, null);
      if (rows.length < CHUNK) break;
      if (++chunks % CHUNKS_BETWEEN_COLLECTIONS === 0) Bun.gc(true);
      after = rows[rows.length - 1]![0];
    }
    chunk.finalize();
    // Ranks by id: every rowid in id order, the published ones numbered in turn.
    const order = JSON.parse((this.db.query(ID_ORDER_SQL).values() as [string][])[0]![0]) as number[];
    let rank = 0;
    for (const rowid of order) {
      const slot = this.slotFor(rowid);
      if (slot >= 0) this.idRank[slot] = ++rank;
    }
  }

  /**
   * Takes in what the change log says changed since the index was read: each changed listing's
   * row read again, and removed ones found by the published rowids when a changed id is gone.
   * Call it inside the read transaction the search then reads in.
   */
  refresh(): number[] {
    const head = (this.db.query(HEAD_SQL).values() as [number][])[0]![0];
    if (head === this.sequence) return [];
    const oldest = (this.db.query(OLDEST_SQL).values() as [number | null][])[0]![0];
    // Compaction removed changes the index has not seen: only a new build can be sure of every listing.
    if (oldest !== null && oldest > this.sequence + 1) {
      this.stale = true;
      return [];
    }
    const ids = (this.db.query(CHANGED_SQL).values(this.sequence, head) as [string][])[0]![0];
    if (ids === "[]") {
      // Only leads changed: nothing the index holds.
      this.sequence = head;
      return [];
    }
    const rows = (this.db.query(ROWS_BY_ID_SQL).values(ids) as unknown as [...Row, number][]).sort((a, b) =>
      a[24] < b[24] ? -1 : 1,
    );
    let missing = (JSON.parse(ids) as string[]).length > rows.length;
    const written: number[] = [];
    for (const row of rows) {
      const [id, published] = [row[24], row[25]];
      const slot = this.slotFor(row[0]);
      const same = slot >= 0 && this.idHash[slot] === Bun.hash.crc32(id);
      if (published === 1) {
        if (!same && slot >= 0 && this.isLive[slot] === 1) {
          // The rowid now holds another listing: the old one is gone, and the new one needs its own slot.
          this.uncount(slot);
          this.slotOf[row[0]] = -1;
          missing = true;
        }
        this.put(row as unknown as Row, same ? null : id);
        written.push(row[0]);
      } else if (slot >= 0 && this.isLive[slot] === 1) {
        this.uncount(slot);
      }
    }
    if (missing) {
      const published = new Set(
        JSON.parse((this.db.query(PUBLISHED_ROWIDS_SQL).values() as [string][])[0]![0]) as number[],
      );
      for (let slot = 0; slot < this.size; slot++) {
        if (this.isLive[slot] === 1 && !published.has(this.rowid[slot]!)) this.uncount(slot);
      }
    }
    this.sequence = head;
    this.version++;
    if (this.size - this.live > MAX_REMOVED_SHARE * this.size && this.size > 1024) this.stale = true;
    return written;
  }

  /** The slot of a rowid, or -1. */
  slotFor(rowid: number): number {
    return rowid < this.slotOf.length ? this.slotOf[rowid]! : -1;
  }

  private grow(needed: number): void {
    if (needed <= this.capacity) return;
    const capacity = Math.max(1024, needed, Math.ceil(this.capacity * 1.5));
    const resized = <T extends Column>(old: T): T => {
      const next = new (old.constructor as new (n: number) => T)(capacity);
      next.set(old);
      return next;
    };
    this.rowid = resized(this.rowid);
    this.isLive = resized(this.isLive);
    this.status = resized(this.status);
    this.operation = resized(this.operation);
    this.type = resized(this.type);
    this.highlight = resized(this.highlight);
    this.city = resized(this.city);
    this.neighborhood = resized(this.neighborhood);
    this.uf = resized(this.uf);
    this.citySpelling = resized(this.citySpelling);
    this.neighborhoodSpelling = resized(this.neighborhoodSpelling);
    this.ufSpelling = resized(this.ufSpelling);
    this.price = resized(this.price);
    this.area = resized(this.area);
    this.bedrooms = resized(this.bedrooms);
    this.bathrooms = resized(this.bathrooms);
    this.suites = resized(this.suites);
    this.parking = resized(this.parking);
    this.flags = resized(this.flags);
    this.createdAt = resized(this.createdAt);
    this.updatedAt = resized(this.updatedAt);
    this.latitude = resized(this.latitude);
    this.longitude = resized(this.longitude);
    this.shownLatitude = resized(this.shownLatitude);
    this.shownLongitude = resized(this.shownLongitude);
    this.idRank = resized(this.idRank);
    this.idHash = resized(this.idHash);
    this.amenitySet = resized(this.amenitySet);
    const words = Math.ceil(capacity / 32);
    this.amenities = this.amenities.map((bits) => {
      const next = new Uint32Array(words);
      next.set(bits);
      return next;
    });
    this.capacity = capacity;
  }

  private mapRowid(rowid: number, slot: number): void {
    if (rowid >= this.slotOf.length) {
      const next = new Int32Array(Math.max(rowid + 1, Math.ceil(this.slotOf.length * 1.5), 1024)).fill(-1);
      next.set(this.slotOf);
      this.slotOf = next;
    }
    this.slotOf[rowid] = slot;
  }

  /**
   * Writes a published listing's row into its rowid's slot, or a new one. `id`, for a listing
   * the index did not hold under that rowid, places it in the id order among the others.
   */
  private put(row: Row, id: string | null): void {
    let slot = this.slotFor(row[0]);
    if (slot < 0) {
      slot = this.size++;
      this.grow(this.size);
      this.mapRowid(row[0], slot);
      this.rowid[slot] = row[0];
    } else if (this.isLive[slot] === 1) {
      this.uncount(slot);
    }
    if (id !== null) this.idRank[slot] = this.rankBetween(id);
    this.idHash[slot] = Bun.hash.crc32(row[24]);
    const [, status, operation, type, highlight, city, neighborhood, uf] = row;
    this.isLive[slot] = 1;
    this.live++;
    this.status[slot] = this.statuses.code(status);
    this.operation[slot] = this.operations.code(operation);
    this.type[slot] = this.types.code(type);
    this.highlight[slot] = this.highlights.code(highlight);
    this.citySpelling[slot] = this.spellingOf(city);
    this.neighborhoodSpelling[slot] = this.spellingOf(neighborhood);
    this.ufSpelling[slot] = this.spellingOf(uf);
    this.city[slot] = this.placeOfSpelling[this.citySpelling[slot]!]!;
    this.neighborhood[slot] = this.placeOfSpelling[this.neighborhoodSpelling[slot]!]!;
    this.uf[slot] = this.placeOfSpelling[this.ufSpelling[slot]!]!;
    this.price[slot] = row[8] ?? Number.NaN;
    this.area[slot] = row[9] ?? Number.NaN;
    this.bedrooms[slot] = row[10] ?? Number.NaN;
    this.bathrooms[slot] = row[11] ?? Number.NaN;
    this.suites[slot] = row[12] ?? Number.NaN;
    this.parking[slot] = row[13] ?? Number.NaN;
    this.flags[slot] =
      (row[14] === 1 ? FLAG_FURNISHED : 0) |
      (row[15] === 1 ? FLAG_FINANCING : 0) |
      (row[16] === 1 ? FLAG_EXCLUSIVE : 0);
    this.createdAt[slot] = row[17];
    this.updatedAt[slot] = row[18];
    this.latitude[slot] = row[19] ?? Number.NaN;
    this.longitude[slot] = row[20] ?? Number.NaN;
    this.shownLatitude[slot] = row[21] ?? Number.NaN;
    this.shownLongitude[slot] = row[22] ?? Number.NaN;
    const set = this.amenitySetOf(row[23]);
    this.amenitySet[slot] = set;
    for (const [code] of this.amenitySetPairs[set]!) this.amenities[code]![slot >>> 5]! |= 1 << (slot & 31);
  }

  /** The code of a place as written; its folded place's code is placeOfSpelling's entry. */
  private spellingOf(place: string | null): number {
    const code = this.placeSpellings.code(place);
    if (this.placeOfSpelling[code] === undefined) this.placeOfSpelling[code] = this.places.code(fold(place!));
    return code;
  }

  /** The code of an amenity list as written, its keys folded and given codes the first time it is seen. */
  private amenitySetOf(json: string): number {
    const set = this.amenitySets.code(json === "[]" ? null : json);
    if (this.amenitySetPairs[set] === undefined) {
      this.amenitySetPairs[set] = amenitiesOf(json).map(([key, spelling]) => {
        const code = this.amenityKeys.code(key);
        this.amenities[code] ??= new Uint32Array(Math.ceil(this.capacity / 32));
        return [code, spelling] as const;
      });
    }
    return set;
  }

  /** The amenity codes and spellings of an amenity list's code. */
  amenityPairsOf(set: number): readonly (readonly [number, string])[] {
    return this.amenitySetPairs[set]!;
  }

  /** How many distinct amenity lists there are (their codes run from 0, the empty list). */
  get amenitySetCount(): number {
    return this.amenitySets.size;
  }

  /** Marks a live slot removed and takes it out of its amenities' sets. */
  private uncount(slot: number): void {
    this.isLive[slot] = 0;
    this.live--;
    for (const [code] of this.amenitySetPairs[this.amenitySet[slot]!]!) {
      this.amenities[code]![slot >>> 5]! &= ~(1 << (slot & 31));
    }
  }

  /**
   * Per place code, its most frequent spelling among the published listings in that role (ties:
   * the first in code-point order), or null when none has it: a facet or a value shows a place
   * so, and "Sao Paulo" and "São Paulo" from two feeds count as one.
   */
  shownPlaces(kind: PlaceKind): readonly (string | null)[] {
    this.countShown();
    let shown = this.shown.places.get(kind);
    if (shown === undefined) {
      const spelling = { city: this.citySpelling, neighborhood: this.neighborhoodSpelling, uf: this.ufSpelling }[kind];
      const counts = new Map<number, Map<number, number>>();
      for (let slot = 0; slot < this.size; slot++) {
        if (this.isLive[slot] === 0 || spelling[slot] === 0) continue;
        const place = this.placeOfSpelling[spelling[slot]!]!;
        let byPlace = counts.get(place);
        if (byPlace === undefined) counts.set(place, (byPlace = new Map()));
        byPlace.set(spelling[slot]!, (byPlace.get(spelling[slot]!) ?? 0) + 1);
      }
      shown = this.places.values.map((_, place) =>
        mostFrequent(counts.get(place), (code) => this.placeSpellings.values[code]!),
      );
      this.shown.places.set(kind, shown);
    }
    return shown;
  }

  /** Per amenity code, its most frequent spelling among the published listings, as shownPlaces. */
  shownAmenities(): readonly (string | null)[] {
    this.countShown();
    if (this.shown.amenities === null) {
      const perSet = new Float64Array(this.amenitySets.size);
      for (let slot = 0; slot < this.size; slot++) if (this.isLive[slot] === 1) perSet[this.amenitySet[slot]!]!++;
      const counts = new Map<number, Map<string, number>>();
      for (let set = 1; set < perSet.length; set++) {
        if (perSet[set] === 0) continue;
        for (const [code, spelling] of this.amenitySetPairs[set]!) {
          let byCode = counts.get(code);
          if (byCode === undefined) counts.set(code, (byCode = new Map()));
          byCode.set(spelling, (byCode.get(spelling) ?? 0) + perSet[set]!);
        }
      }
      this.shown.amenities = this.amenityKeys.values.map((_, code) => mostFrequent(counts.get(code), (s) => s));
    }
    return this.shown.amenities;
  }

  /** Forgets the shown spellings when the listings changed since they were counted. */
  private countShown(): void {
    if (this.shown.version !== this.version) this.shown = { version: this.version, places: new Map(), amenities: null };
  }

  /** A place in the id order for a new id: between the nearest ids the index holds on either side. */
  private rankBetween(id: string): number {
    const nearest = (sql: string) => {
      for (const [rowid] of this.db.query(sql).values(id, NEIGHBOURS) as [number][]) {
        const slot = this.slotFor(rowid);
        if (slot >= 0 && this.isLive[slot] === 1) return this.idRank[slot]!;
      }
      return null;
    };
    const before = nearest(ID_BEFORE_SQL);
    const after = nearest(ID_AFTER_SQL);
    if (before === null) return after === null ? 1 : after - 1;
    if (after === null) return before + 1;
    const rank = (before + after) / 2;
    // Halved too often between the same two ids: a new build numbers them all again.
    if (rank === before || rank === after) this.stale = true;
    return rank;
  }

  /** Bytes the index's arrays take (the memory a search engine costs, reported by the benchmark). */
  bytes(): number {
    const columns: Column[] = [
      this.rowid,
      this.isLive,
      this.status,
      this.operation,
      this.type,
      this.highlight,
      this.city,
      this.neighborhood,
      this.uf,
      this.citySpelling,
      this.neighborhoodSpelling,
      this.ufSpelling,
      this.price,
      this.area,
      this.bedrooms,
      this.bathrooms,
      this.suites,
      this.parking,
      this.flags,
      this.createdAt,
      this.updatedAt,
      this.latitude,
      this.longitude,
      this.shownLatitude,
      this.shownLongitude,
      this.idRank,
      this.idHash,
      this.amenitySet,
      this.slotOf,
      ...this.amenities.filter((bits) => bits !== undefined),
    ];
    return columns.reduce((sum, column) => sum + column.byteLength, 0);
  }
}

/**
 * A listing's amenities as the search compares them: each folded key once, with its spelling
 * (of two spellings of one amenity in a listing, the first in code-point order).
 */
function amenitiesOf(json: string): [string, string][] {
  let values: unknown;
  try {
    values = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(values)) return [];
  const byKey = new Map<string, string>();
  for (const value of values) {
    if (typeof value !== "string") continue;
    const key = foldKey(value);
    if (key === "") continue;
    const known = byKey.get(key);
    if (known === undefined || value < known) byKey.set(key, value);
  }
  return [...byKey];
}

type PlaceKind = "city" | "neighborhood" | "uf";

/** The most frequent of some spellings by count (ties: the first in code-point order), or null for none. */
function mostFrequent<T>(counts: Map<T, number> | undefined, text: (spelling: T) => string): string | null {
  let best: string | null = null;
  let bestN = 0;
  for (const [spelling, n] of counts ?? []) {
    const written = text(spelling);
    if (n > bestN || (n === bestN && best !== null && written < best)) {
      best = written;
      bestN = n;
    }
  }
  return best;
}

const folded = new Map<string, string>();
/** fold() remembered: a few thousand distinct places and amenities repeat over a million listings. */
function foldKey(value: string): string {
  let key = folded.get(value);
  if (key === undefined) {
    key = fold(value);
    if (folded.size < 100_000) folded.set(value, key);
  }
  return key;
}
