// The list engine, for both entities: pages with exact totals, single records, values.
// Finished page bodies are cached per tenant (PageCache) and keyed by the raw query string; an
// entry is served only while the database is unchanged for its entity (Tenant.generation and
// outsideGeneration), so the cache is always exact.
import type { EntityCatalog, FieldSpec } from "../catalog/index.ts";
import { CREATED_BY_FILTER } from "../catalog/leads.ts";
import type { Reader } from "../catalog/types.ts";
import type { Tenant } from "../db/tenants.ts";
import { ApiError } from "../errors.ts";
import { leadAccessOf, missingScope, type Scope } from "../security/scopes.ts";
import { ListRepo } from "./list-repo.ts";
import { PageCache } from "./page-cache.ts";
import { type ListQuery, parseListQuery, parseRecordQuery } from "./params.ts";
import type { Deadline } from "./scan.ts";

class EntityList {
  readonly repo: ListRepo;
  private readonly pages = new PageCache();
  private readonly generation: () => number;

  constructor(
    tenant: Tenant,
    private readonly catalog: EntityCatalog,
  ) {
    this.repo = new ListRepo(tenant, catalog);
    // Properties change only through other processes (imports); leads change with every creation here.
    this.generation = catalog.entity === "properties" ? () => tenant.outsideGeneration() : () => tenant.generation();
  }

  /**
   * The whole response body of a list request; `rawQuery` is the URL's search string. What the
   * reader may not see (an address the listing hides, another partner's lead) never enters it.
   */
  page(rawQuery: string, reader: Reader, deadline?: Deadline): string {
    const owner = this.ownerFor(reader);
    const generation = this.generation();
    const key = this.keyOf(rawQuery, reader, owner);
    const cached = this.pages.get(key, generation);
    if (cached !== undefined) return cached;

    const parsed = parseListQuery(this.catalog, new URLSearchParams(rawQuery));
    const query = owner === null ? parsed : ownLeadsOf(parsed, owner);
    const { rows, total } = this.repo.list(query, reader.view, deadline);
    const totalPages = Math.ceil(total / query.limit);
    const body =
      `{"data":[${rows.join(",")}],"meta":{"page":${query.page},"limit":${query.limit},` +
      `"total":${total},"totalPages":${totalPages}}}`;
    this.pages.set(key, generation, body);
    return body;
  }

  /**
   * page() in two halves, for a page a reader thread makes (src/reads/): the body cached for
   * this query at the current generation, or `keep`, which caches the body the thread returns
   * under the generation read now (the one the thread is given: what it reads is at least as new).
   */
  lookup(rawQuery: string, reader: Reader): { body: string } | { keep(body: string): void } {
    const generation = this.generation();
    const key = this.keyOf(rawQuery, reader, this.ownerFor(reader));
    const body = this.pages.get(key, generation);
    return body !== undefined ? { body } : { keep: (made) => this.pages.set(key, generation, made) };
  }

  /**
   * `{ data: {…} }` of one visible record as `reader` sees it; NOT_FOUND when missing, hidden,
   * another partner's lead or elsewhere. The one read path of a single record: GET
   * /v1/{entity}/{id} and anything that must send exactly what it returns (webhook deliveries)
   * go through here.
   */
  record(id: string | null, rawQuery: string, reader: Reader): string {
    return this.recordWith(id, parseRecordQuery(this.catalog, new URLSearchParams(rawQuery)), reader);
  }

  /** record() with its fields already parsed (webhook dispatch reads thousands with the same ones). */
  recordWith(id: string | null, fields: FieldSpec[], reader: Reader): string {
    const readable = this.catalog.entity !== "leads" || reader.leads.kind !== "none";
    // Elysia hands over null for a path segment that is not valid percent-encoding (`%zz`).
    const json =
      readable && typeof id === "string" && id.length <= 64
        ? this.repo.record(id, fields, reader.view, this.ownerFor(reader))
        : null;
    if (json === null)
      throw new ApiError("NOT_FOUND", `No ${this.catalog.entity === "leads" ? "lead" : "property"} with this id`);
    return `{"data":${json}}`;
  }

  /** Clients of one database may see different rows and values: who reads is part of the key. */
  private keyOf(rawQuery: string, reader: Reader, owner: string | null): string {
    return `${reader.view}|${owner ?? ""}|${rawQuery}`;
  }

  /**
   * `{ data: {…} }` of a record as the write under way left it, read inside its transaction on
   * the write connection (db/group-commit.ts): a later write of the same batch cannot show
   * through. Null when the reader cannot see it. Only inside a GroupCommitWriter job.
   */
  recordWritten(id: string, fields: FieldSpec[], reader: Reader): string | null {
    const json = this.repo.recordWriting(id, fields, reader.view, this.ownerFor(reader));
    return json === null ? null : `{"data":${json}}`;
  }

  /**
   * The client whose leads alone the reader sees, or null when it sees every record. A reader
   * of no lead never gets this far (its routes answer 403): refused here too, should one try.
   */
  private ownerFor(reader: Reader): string | null {
    if (this.catalog.entity !== "leads") return null;
    if (reader.leads.kind === "none") throw missingScope("leads:read:own");
    return reader.leads.kind === "own" ? reader.leads.clientId : null;
  }
}

/**
 * The list of one owner's leads: its createdBy filter first (the counters and indexes that keep
 * such a list fast are per owner), beside any other filter the caller gave. A createdBy filter
 * naming someone else stays, and nothing matches both.
 */
export function ownLeadsOf(query: ListQuery, owner: string): ListQuery {
  const others = query.filters.filter((f) => f.spec !== CREATED_BY_FILTER || f.value !== owner);
  return { ...query, filters: [{ spec: CREATED_BY_FILTER, value: owner }, ...others] };
}

const lists = new WeakMap<Tenant, Map<EntityCatalog, EntityList>>();

/** The list of an entity in a tenant's database (created on first use). */
export function listOf(tenant: Tenant, catalog: EntityCatalog): EntityList {
  let byCatalog = lists.get(tenant);
  if (byCatalog === undefined) {
    byCatalog = new Map();
    lists.set(tenant, byCatalog);
  }
  let list = byCatalog.get(catalog);
  if (list === undefined) {
    list = new EntityList(tenant, catalog);
    byCatalog.set(catalog, list);
  }
  return list;
}

/**
 * What a client may read of the records: the stored address with `fullAddress`, else a
 * partner's view; every lead, its own, or none, by its scopes (docs/partners/scopes.md).
 */
export function readerOf(client: { id: string; fullAddress: boolean; scopes: ReadonlySet<Scope> }): Reader {
  return { view: client.fullAddress ? "stored" : "partner", leads: leadAccessOf(client) };
}

/** Every field of a record, as `?fields=` naming them all would give: what a single record "with every field" is. */
export function allFieldsOf(catalog: EntityCatalog): FieldSpec[] {
  return parseRecordQuery(catalog, new URLSearchParams({ fields: catalog.fields.map((f) => f.name).join(",") }));
}

/** The search part of a URL without the "?", cheaply. */
export function rawQueryOf(url: string): string {
  const index = url.indexOf("?");
  return index === -1 ? "" : url.slice(index + 1);
}
