// The read routes' logic for both entities: pages with exact totals, single records, values.
// Finished page bodies are cached per tenant and keyed by the raw query string; an entry is
// served only while the database is unchanged for its entity (Tenant.generation and
// outsideGeneration), so the cache is always exact.
import type { EntityCatalog } from "../../catalog/index.ts";
import type { Tenant } from "../../db/tenants.ts";
import { ApiError } from "../../errors.ts";
import { parseListQuery, parseRecordQuery } from "./params.ts";
import { ListingRepo } from "./repo.ts";

const MAX_CACHED_PAGES = 2_000;
/** Bodies larger than this are not worth the memory of keeping. */
const MAX_CACHED_BODY = 256 * 1024;
/**
 * Characters (keys and bodies) one listing may hold. The count cap alone let a caller pin
 * 2,000 pages of ~256 KiB each (over a gigabyte) by varying an ignored query parameter.
 */
const MAX_CACHED_CHARS = 16 * 1024 * 1024;

interface CachedPage {
  generation: number;
  body: string;
}

class EntityListing {
  readonly repo: ListingRepo;
  private readonly pages = new Map<string, CachedPage>();
  private cachedChars = 0;

  constructor(
    private readonly tenant: Tenant,
    private readonly catalog: EntityCatalog,
  ) {
    this.repo = new ListingRepo(tenant, catalog);
    // Properties change only through other processes (imports); leads change with every creation here.
    this.generation = catalog.entity === "properties" ? () => tenant.outsideGeneration() : () => tenant.generation();
  }

  private readonly generation: () => number;

  /** The whole response body of a list request; `rawQuery` is the URL's search string. */
  page(rawQuery: string): string {
    const generation = this.generation();
    const cached = this.pages.get(rawQuery);
    if (cached !== undefined && cached.generation === generation) return cached.body;

    const query = parseListQuery(this.catalog, new URLSearchParams(rawQuery));
    const { rows, total } = this.repo.snapshot(() => ({ rows: this.repo.pageRows(query), total: this.repo.total(query) }));
    const totalPages = Math.ceil(total / query.limit);
    const body =
      `{"data":[${rows.join(",")}],"meta":{"page":${query.page},"limit":${query.limit},` +
      `"total":${total},"totalPages":${totalPages}}}`;

    if (body.length <= MAX_CACHED_BODY) {
      if (cached !== undefined) this.forget(rawQuery, cached);
      const size = rawQuery.length + body.length;
      while (this.pages.size >= MAX_CACHED_PAGES || (this.pages.size > 0 && this.cachedChars + size > MAX_CACHED_CHARS)) {
        const [oldestKey, oldest] = this.pages.entries().next().value!;
        this.forget(oldestKey, oldest);
      }
      this.pages.set(rawQuery, { generation, body });
      this.cachedChars += size;
    }
    return body;
  }

  private forget(key: string, page: CachedPage): void {
    this.pages.delete(key);
    this.cachedChars -= key.length + page.body.length;
  }

  /** `{ data: {…} }` of one visible record; NOT_FOUND when missing, hidden or elsewhere. */
  record(id: string | null, rawQuery: string): string {
    const fields = parseRecordQuery(this.catalog, new URLSearchParams(rawQuery));
    // Elysia hands over null for a path segment that is not valid percent-encoding (`%zz`).
    const json = typeof id === "string" && id.length <= 64 ? this.repo.record(id, fields) : null;
    if (json === null) throw new ApiError("NOT_FOUND", `No ${this.catalog.entity === "leads" ? "lead" : "property"} with this id`);
    return `{"data":${json}}`;
  }
}

const listings = new WeakMap<Tenant, Map<EntityCatalog, EntityListing>>();

/** The listing of an entity in a tenant's database (created on first use). */
export function listingFor(tenant: Tenant, catalog: EntityCatalog): EntityListing {
  let byCatalog = listings.get(tenant);
  if (byCatalog === undefined) {
    byCatalog = new Map();
    listings.set(tenant, byCatalog);
  }
  let listing = byCatalog.get(catalog);
  if (listing === undefined) {
    listing = new EntityListing(tenant, catalog);
    byCatalog.set(catalog, listing);
  }
  return listing;
}

/** The search part of a URL without the "?", cheaply. */
export function rawQueryOf(url: string): string {
  const index = url.indexOf("?");
  return index === -1 ? "" : url.slice(index + 1);
}
