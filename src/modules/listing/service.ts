// The read routes' logic for both entities: pages with exact totals, single records, values.
// Finished page bodies are cached per tenant (PageCache) and keyed by the raw query string; an
// entry is served only while the database is unchanged for its entity (Tenant.generation and
// outsideGeneration), so the cache is always exact.
import type { EntityCatalog, FieldSpec } from "../../catalog/index.ts";
import type { RecordView } from "../../catalog/types.ts";
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

  /**
   * The whole response body of a list request; `rawQuery` is the URL's search string. Partners
   * see what the address visibility allows (the default); `stored` is every value as stored.
   */
  page(rawQuery: string, view: RecordView = "partner"): string {
    const generation = this.generation();
    // Two clients of one database may see different values: the view is part of the key.
    const key = `${view}|${rawQuery}`;
    const cached = this.pages.get(key, generation);
    if (cached !== undefined) return cached;

    const query = parseListQuery(this.catalog, new URLSearchParams(rawQuery));
    const { rows, total } = this.repo.list(query, view);
    const totalPages = Math.ceil(total / query.limit);
    const body =
      `{"data":[${rows.join(",")}],"meta":{"page":${query.page},"limit":${query.limit},` +
      `"total":${total},"totalPages":${totalPages}}}`;
    this.pages.set(key, generation, body);
    return body;
  }

  /**
   * `{ data: {…} }` of one visible record as `view` sees it; NOT_FOUND when missing, hidden or
   * elsewhere. The one read path of a single record: GET /v1/{entity}/{id} and anything that
   * must send exactly what it returns (webhook deliveries) go through here.
   */
  record(id: string | null, rawQuery: string, view: RecordView = "partner"): string {
    return this.recordWith(id, parseRecordQuery(this.catalog, new URLSearchParams(rawQuery)), view);
  }

  /** record() with its fields already parsed (webhook dispatch reads thousands with the same ones). */
  recordWith(id: string | null, fields: FieldSpec[], view: RecordView = "partner"): string {
    // Elysia hands over null for a path segment that is not valid percent-encoding (`%zz`).
    const json = typeof id === "string" && id.length <= 64 ? this.repo.record(id, fields, view) : null;
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

/** What a client may read of the records: the stored values with `fullAddress`, else a partner's view. */
export function recordViewOf(client: { fullAddress: boolean }): RecordView {
  return client.fullAddress ? "stored" : "partner";
}

/** The search part of a URL without the "?", cheaply. */
export function rawQueryOf(url: string): string {
  const index = url.indexOf("?");
  return index === -1 ? "" : url.slice(index + 1);
}
