// The read routes' logic for both entities: pages with exact totals, single records, values.
// Finished page bodies are cached per tenant (PageCache) and keyed by the raw query string; an
// entry is served only while the database is unchanged for its entity (Tenant.generation and
// outsideGeneration), so the cache is always exact.
import type { EntityCatalog } from "../../catalog/index.ts";
import type { Tenant } from "../../db/tenants.ts";
import { ApiError } from "../../errors.ts";
import { parseListQuery, parseRecordQuery } from "./params.ts";
import { PageCache } from "./page-cache.ts";
import { ListingRepo } from "./repo.ts";

class EntityListing {
  readonly repo: ListingRepo;
  private readonly pages = new PageCache();
  private readonly generation: () => number;

  constructor(
    tenant: Tenant,
    private readonly catalog: EntityCatalog,
  ) {
    this.repo = new ListingRepo(tenant, catalog);
    // Properties change only through other processes (imports); leads change with every creation here.
    this.generation = catalog.entity === "properties" ? () => tenant.outsideGeneration() : () => tenant.generation();
  }

  /** The whole response body of a list request; `rawQuery` is the URL's search string. */
  page(rawQuery: string): string {
    const generation = this.generation();
    const cached = this.pages.get(rawQuery, generation);
    if (cached !== undefined) return cached;

    const query = parseListQuery(this.catalog, new URLSearchParams(rawQuery));
    const { rows, total } = this.repo.list(query);
    const totalPages = Math.ceil(total / query.limit);
    const body =
      `{"data":[${rows.join(",")}],"meta":{"page":${query.page},"limit":${query.limit},` +
      `"total":${total},"totalPages":${totalPages}}}`;
    this.pages.set(rawQuery, generation, body);
    return body;
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
