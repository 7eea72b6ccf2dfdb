// Whether a feed's listing says anything new about a stored one, and which photo ids to keep:
// the basis of "updatedAt moves only when content changed".
import type { Listing, ListingPhoto } from "../formats/listing.ts";
import type { StoredPhoto } from "./rows.ts";

/**
 * A digest of a listing's JSON text: equal digests mean the listing the last import wrote is
 * the one in the feed again. (Different digests prove nothing: key order or photo ids may
 * differ; then the listings are compared in full.)
 */
export function listingDigest(json: string): string {
  return Bun.hash(json).toString(36);
}

/** Deep equality of JSON values; object key order does not matter. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  if (aKeys.length !== bKeys.length) return false;
  return aKeys.every(
    (key) =>
      Object.hasOwn(b, key) && jsonEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}

/** Photos are equal as an ordered list; a feed photo without an id matches any stored id. */
export function photosEqual(stored: readonly ListingPhoto[], incoming: readonly ListingPhoto[]): boolean {
  return (
    stored.length === incoming.length &&
    incoming.every((photo, i) => {
      const old = stored[i]!;
      return (
        old.url === photo.url &&
        old.alt === photo.alt &&
        old.order === photo.order &&
        old.isMain === photo.isMain &&
        (photo.id === null || photo.id === old.id)
      );
    })
  );
}

export function contentEqual(stored: Listing, incoming: Listing): boolean {
  const { photos: storedPhotos, ...storedRest } = stored;
  const { photos: incomingPhotos, ...incomingRest } = incoming;
  return photosEqual(storedPhotos, incomingPhotos) && jsonEqual(storedRest, incomingRest);
}

/**
 * Ids for a replaced gallery: the feed's own when it gives them, else the id a stored photo with
 * the same URL had (partners that cache images by id keep their cache), else a fresh one.
 */
export function assignPhotoIds(
  incoming: readonly ListingPhoto[],
  stored: readonly ListingPhoto[],
  newId: () => string,
): StoredPhoto[] {
  const given = new Set(incoming.flatMap((photo) => (photo.id === null ? [] : [photo.id])));
  const byUrl = new Map<string, string[]>();
  for (const photo of stored) {
    if (photo.id === null || given.has(photo.id)) continue;
    byUrl.set(photo.url, [...(byUrl.get(photo.url) ?? []), photo.id]);
  }
  return incoming.map((photo) => ({ ...photo, id: photo.id ?? byUrl.get(photo.url)?.shift() ?? newId() }));
}
