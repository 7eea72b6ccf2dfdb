// Finished response bodies keyed by the raw query string, each valid for one database
// generation: an entry is served only while the generation it was computed at is current,
// so the cache is always exact. Bounded by entries and by characters.
import { recordPageCacheLookup } from "../metrics/storage.ts";

const MAX_CACHED_PAGES = 2_000;
/** Bodies larger than this are not worth the memory of keeping. */
const MAX_CACHED_BODY = 256 * 1024;
/**
 * Characters (keys and bodies) one cache may hold. The count cap alone let a caller pin
 * 2,000 pages of ~256 KiB each (over a gigabyte) by varying an ignored query parameter.
 */
const MAX_CACHED_CHARS = 16 * 1024 * 1024;

interface CachedPage {
  generation: number;
  body: string;
}

export class PageCache {
  private readonly pages = new Map<string, CachedPage>();
  private cachedChars = 0;

  /** The body cached for `key` at this generation, if any. */
  get(key: string, generation: number): string | undefined {
    const cached = this.pages.get(key);
    const hit = cached !== undefined && cached.generation === generation;
    recordPageCacheLookup(hit);
    return hit ? cached.body : undefined;
  }

  /** Keeps `body` for `key` at `generation`, evicting the oldest entries to stay in bounds. */
  set(key: string, generation: number, body: string): void {
    if (body.length > MAX_CACHED_BODY) return;
    const previous = this.pages.get(key);
    if (previous !== undefined) this.forget(key, previous);
    const size = key.length + body.length;
    while (this.pages.size >= MAX_CACHED_PAGES || (this.pages.size > 0 && this.cachedChars + size > MAX_CACHED_CHARS)) {
      const [oldestKey, oldest] = this.pages.entries().next().value!;
      this.forget(oldestKey, oldest);
    }
    this.pages.set(key, { generation, body });
    this.cachedChars += size;
  }

  private forget(key: string, page: CachedPage): void {
    this.pages.delete(key);
    this.cachedChars -= key.length + page.body.length;
  }
}
