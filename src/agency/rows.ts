// A listing as rows of the properties and photos tables, and back from the API's projection.
import type { Database, Statement } from "bun:sqlite";
import { PROPERTY_FIELDS } from "../catalog/properties.ts";
import { projection } from "../catalog/sql.ts";
import type { Listing } from "../formats/listing.ts";

/** The readable content columns, then the place keys derived from them, in the order of contentValues(). */
const CONTENT_COLUMNS = [
  "code",
  "title",
  "description",
  "operation_type",
  "status",
  "property_type",
  "highlight",
  "exclusive",
  "street",
  "number",
  "complement",
  "neighborhood",
  "city",
  "state",
  "uf",
  "cep",
  "latitude",
  "longitude",
  "total_area",
  "built_area",
  "bedrooms",
  "bathrooms",
  "suites",
  "parking_spaces",
  "floor",
  "total_floors",
  "is_furnished",
  "sale_price",
  "rental_price",
  "condominium_fee",
  "iptu",
  "accepts_financing",
  "display_address",
  "amenities",
] as const;

type SqlValue = string | number | null;

function contentValues(l: Listing): SqlValue[] {
  const { address: a, coordinates: c, features: f, pricing: p } = l;
  return [
    l.code,
    l.title,
    l.description,
    l.operationType,
    l.status,
    l.propertyType,
    l.highlight,
    l.exclusive ? 1 : 0,
    a.street,
    a.number,
    a.complement,
    a.neighborhood,
    a.city,
    a.state,
    a.uf,
    a.cep,
    c.latitude,
    c.longitude,
    f.totalArea,
    f.builtArea,
    f.bedrooms,
    f.bathrooms,
    f.suites,
    f.parkingSpaces,
    f.floor,
    f.totalFloors,
    f.isFurnished ? 1 : 0,
    p.salePrice,
    p.rentalPrice,
    p.condominiumFee,
    p.iptu,
    l.financing.acceptsFinancing ? 1 : 0,
    a.visibility,
    JSON.stringify(l.amenities),
  ];
}

/**
 * The listing inside a property's API JSON (the projection of PROPERTY_FIELDS) and its id: the
 * API's shape is the listing's shape plus what the database assigns. The code may be null
 * (properties the sandbox seed made without one).
 */
export function listingOfProjection(json: string): { id: string; listing: Listing } {
  const { id, createdAt: _c, updatedAt: _u, isPublished: _p, ...content } = JSON.parse(json) as Record<string, unknown>;
  return { id: id as string, listing: content as unknown as Listing };
}

/** A stored property as an import first looks it up: identity, visibility and the digest of what the last import wrote. */
export interface StoredRef {
  id: string;
  code: string | null;
  published: boolean;
  updatedAt: string;
  /** listingDigest() of the listing the last import wrote; null for rows written otherwise (the seed, older versions). */
  digest: string | null;
}

export interface StoredPhoto {
  id: string;
  url: string;
  alt: string | null;
  order: number;
  isMain: boolean;
}

/** Photos written by one INSERT (6 parameters each, far below SQLite's limit). */
const PHOTOS_PER_INSERT = 32;

type RefRow = { id: string; code: string | null; published: number; updated_at: string; digest: string | null };

/** The prepared statements an import needs, built once per run. */
export class PropertyRows {
  private readonly findByCode: Statement<RefRow>;
  private readonly findCodelessById: Statement<RefRow>;
  private readonly content: Statement<{ json: string }>;
  private readonly insert: Statement;
  private readonly update: Statement;
  private readonly setDigest: Statement;
  private readonly republish: Statement;
  private readonly deletePhotos: Statement;
  /** Multi-row photo inserts by row count: one call per gallery instead of one per photo. */
  private readonly insertPhotos = new Map<number, Statement>();
  private readonly all: Statement[];
  private readonly db: Database;

  constructor(db: Database) {
    const ref =
      "SELECT p.id AS id, p.code AS code, p.is_published AS published, p.updated_at AS updated_at, p.import_hash AS digest FROM properties p";
    this.findByCode = db.prepare(`${ref} WHERE p.code = ?`);
    this.findCodelessById = db.prepare(`${ref} WHERE p.id = ? AND p.code IS NULL`);
    this.content = db.prepare(
      `SELECT ${projection(PROPERTY_FIELDS, "stored")} AS json FROM properties p WHERE p.id = ?`,
    );
    this.insert = db.prepare(
      `INSERT INTO properties (id, created_at, updated_at, is_published, ${CONTENT_COLUMNS.join(", ")}, import_hash) ` +
        `VALUES (?, ?, ?, 0, ${CONTENT_COLUMNS.map(() => "?").join(", ")}, ?)`,
    );
    this.update = db.prepare(
      `UPDATE properties SET ${CONTENT_COLUMNS.map((c) => `${c} = ?`).join(", ")}, import_hash = ?, updated_at = ?, is_published = 1 WHERE id = ?`,
    );
    this.setDigest = db.prepare("UPDATE properties SET import_hash = ? WHERE id = ?");
    this.republish = db.prepare("UPDATE properties SET is_published = 1 WHERE id = ?");
    this.deletePhotos = db.prepare("DELETE FROM photos WHERE property_id = ?");
    this.db = db;
    this.all = [
      this.findByCode,
      this.findCodelessById,
      this.content,
      this.insert,
      this.update,
      this.setDigest,
      this.republish,
      this.deletePhotos,
    ];
  }

  /**
   * The stored property a feed's ListingID names: the one with that code, else a property without
   * a code whose id it is (an export writes such a property's id as its ListingID).
   */
  byListingId(listingId: string): StoredRef | null {
    const row = this.findByCode.get(listingId) ?? this.findCodelessById.get(listingId);
    return row === null
      ? null
      : { id: row.id, code: row.code, published: row.published === 1, updatedAt: row.updated_at, digest: row.digest };
  }

  /** A stored property's content as the API shows it (read only when its digest does not settle a comparison). */
  listingOf(id: string): Listing {
    return listingOfProjection(this.content.get(id)!.json).listing;
  }

  /**
   * A new property: inserted unpublished, its photos added, then published, so the triggers
   * write one change-feed event rather than one per photo.
   */
  create(id: string, listing: Listing, digest: string, photos: readonly StoredPhoto[], now: string): void {
    this.insert.run(id, now, now, ...contentValues(listing), digest);
    this.writePhotos(id, photos);
    this.republish.run(id);
  }

  /** New content (and visibility) for an existing property; photos only when they changed. */
  replace(id: string, listing: Listing, digest: string, photos: readonly StoredPhoto[] | null, now: string): void {
    if (photos !== null) {
      this.deletePhotos.run(id);
      this.writePhotos(id, photos);
    }
    this.update.run(...contentValues(listing), digest, now, id);
  }

  /** The digest of content found equal by comparison, so the next import recognises it at once (no change-feed event). */
  redigest(id: string, digest: string): void {
    this.setDigest.run(digest, id);
  }

  private writePhotos(id: string, photos: readonly StoredPhoto[]): void {
    for (let start = 0; start < photos.length; start += PHOTOS_PER_INSERT) {
      const chunk = photos.slice(start, start + PHOTOS_PER_INSERT);
      this.photoInsert(chunk.length).run(
        ...chunk.flatMap((photo) => [id, photo.id, photo.url, photo.alt, photo.order, photo.isMain ? 1 : 0]),
      );
    }
  }

  private photoInsert(rows: number): Statement {
    let statement = this.insertPhotos.get(rows);
    if (statement === undefined) {
      const values = Array.from({ length: rows }, () => "(?, ?, ?, ?, ?, ?)").join(", ");
      statement = this.db.prepare(`INSERT INTO photos (property_id, id, url, alt, position, is_main) VALUES ${values}`);
      this.insertPhotos.set(rows, statement);
    }
    return statement;
  }

  finalize(): void {
    for (const statement of [...this.all, ...this.insertPhotos.values()]) statement.finalize();
  }
}
