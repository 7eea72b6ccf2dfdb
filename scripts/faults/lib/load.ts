// A mixed load on 127.0.0.1 that keeps score: reads of every route, lead creations (half with an
// Idempotency-Key) each carrying a unique marker, token requests and bad tokens, from many source
// addresses (X-Forwarded-For, trusted from 127.0.0.1) and several clients. Every 201 is kept
// (marker → id) for verification; every answer is checked against the contract.
import { violations } from "../../../test/fuzz/contract.ts";
import type { FaultClient } from "./workspace.ts";

export interface LoadOptions {
  /** The server's base URL now, or null while it is down. */
  target(): string | null;
  clients: FaultClient[];
  concurrency: number;
  /** Distinguishes this run's markers from any other lead. */
  runId: string;
  /** How many distinct source addresses to claim (X-Forwarded-For). */
  sourceAddresses?: number;
  /** Share of operations that create a lead (default 0.3). */
  createShare?: number;
  /** 503 SERVICE_UNAVAILABLE is expected (disk full, read-only file). */
  allow503?: boolean;
  requestTimeoutMs?: number;
}

export interface PendingLead {
  marker: string;
  body: string;
  key: string | null;
  /** Keys are scoped per client: a retry must come from the same one. */
  client: FaultClient;
}

/** Request options with plain-object headers, so they can be merged. */
type Init = Omit<RequestInit, "headers"> & { headers?: Record<string, string> };

const FIELDSETS = ["id,title", "id,code,status,pricing", "id,title,address,features,photos", "id,updatedAt"];
const SORTS = ["createdAt", "-createdAt", "updatedAt", "-updatedAt"];

export class MixedLoad {
  sent = 0;
  networkErrors = 0;
  readonly byStatus = new Map<number, number>();
  readonly problems: string[] = [];
  /** Answers a legitimate caller should never get (401/403/429, or 5xx other than an allowed 503). */
  readonly unexpected = new Map<number, number>();
  /** marker → lead id, for every 201 received. */
  readonly acknowledged = new Map<string, string>();
  /** Per client, the ids of the leads it was answered 201 for: the ones it may read back (`leads:read:own`). */
  private readonly acknowledgedTo = new Map<string, string[]>();
  /** Keyed creations that got their 201 (a sample), to replay after a fault. */
  readonly keyedAcknowledged = new Map<string, PendingLead & { id: string }>();
  /** Creations whose outcome is unknown (the connection broke): checked, and retried when keyed. */
  readonly uncertain = new Map<string, PendingLead>();
  private running = false;
  private workers: Promise<void>[] = [];
  private created = 0;
  private readonly tokens = new Map<string, string>();
  private readonly propertyIds: string[] = [];

  constructor(private readonly options: LoadOptions) {}

  start(): void {
    this.running = true;
    this.workers = Array.from({ length: this.options.concurrency }, (_, i) => this.worker(i));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
  }

  /** Distinct source addresses in 10.0.0.0/8, by index. */
  private address(i: number): string {
    return `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
  }

  private randomAddress(): string | null {
    const pool = this.options.sourceAddresses ?? 0;
    return pool > 0 ? this.address(Math.floor(Math.random() * pool)) : null;
  }

  private async worker(index: number): Promise<void> {
    while (this.running) {
      const base = this.options.target();
      if (base === null) {
        await Bun.sleep(20);
        continue;
      }
      const client = this.options.clients[index % this.options.clients.length]!;
      const roll = Math.random();
      const createShare = this.options.createShare ?? 0.3;
      try {
        if (roll < createShare) await this.createLead(base, client, null);
        else if (roll < createShare + 0.05) await this.badToken(base);
        else if (roll < createShare + 0.08) await this.fetchToken(base, client, true);
        else await this.read(base, client);
      } catch (error) {
        this.networkErrors++;
        if (this.networkErrors % 1000 === 1 && !isConnectionError(error))
          this.problems.push(`client error: ${(error as Error).message}`);
        await Bun.sleep(5);
      }
    }
  }

  private async send(base: string, path: string, init: Init = {}): Promise<{ response: Response; body: string }> {
    const address = this.randomAddress();
    const headers = { ...(init.headers ?? {}), ...(address ? { "x-forwarded-for": address } : {}) };
    this.sent++;
    const response = await fetch(`${base}${path}`, {
      ...init,
      headers,
      signal: AbortSignal.timeout(this.options.requestTimeoutMs ?? 15_000),
    });
    const body = await response.text();
    this.byStatus.set(response.status, (this.byStatus.get(response.status) ?? 0) + 1);
    const found = violations(
      { method: init.method ?? "GET", status: response.status, headers: response.headers, body },
      {
        echo: `${path}\n${typeof init.body === "string" ? init.body : ""}`,
        allow503: this.options.allow503 === true,
        protectedRoute: path.startsWith("/v1/") && !path.startsWith("/v1/auth/"),
      },
    );
    if (found.length > 0 && this.problems.length < 50)
      this.problems.push(`${init.method ?? "GET"} ${path.slice(0, 120)}: ${found.join("; ")}`);
    return { response, body };
  }

  private async fetchToken(base: string, client: FaultClient, fresh = false): Promise<string | null> {
    const cached = this.tokens.get(client.id);
    if (cached !== undefined && !fresh) return cached;
    const { response, body } = await this.send(base, "/v1/auth/token", {
      method: "POST",
      headers: { "x-api-key": client.apiKey, "x-api-secret": client.secret },
    });
    if (response.status !== 200) {
      this.noteUnexpected(response.status, "POST /v1/auth/token");
      return null;
    }
    const token = (JSON.parse(body) as { data: { token: string } }).data.token;
    this.tokens.set(client.id, token);
    return token;
  }

  private async authorized(base: string, client: FaultClient, path: string, init: Init = {}) {
    const token = await this.fetchToken(base, client);
    if (token === null) return null;
    const result = await this.send(base, path, {
      ...init,
      headers: { ...(init.headers ?? {}), authorization: `Bearer ${token}` },
    });
    if (result.response.status === 401) this.tokens.delete(client.id);
    const status = result.response.status;
    if ([401, 403, 429].includes(status) || (status >= 500 && !(status === 503 && this.options.allow503)))
      this.noteUnexpected(status, path);
    return result;
  }

  private noteUnexpected(status: number, what: string): void {
    this.unexpected.set(status, (this.unexpected.get(status) ?? 0) + 1);
    if (this.problems.length < 50) this.problems.push(`legitimate request answered ${status}: ${what.slice(0, 100)}`);
  }

  private async badToken(base: string): Promise<void> {
    const { response } = await this.send(base, "/v1/leads?fields=id", {
      headers: { authorization: "Bearer not.a.token" },
    });
    if (response.status !== 401 && response.status !== 429) this.problems.push(`bad token answered ${response.status}`);
  }

  private async read(base: string, client: FaultClient): Promise<void> {
    const pick = <T>(list: readonly T[]) => list[Math.floor(Math.random() * list.length)]!;
    const roll = Math.random();
    // A client reads back the leads it created: by default it may read no other partner's.
    const leadIds = this.acknowledgedTo.get(client.id) ?? [];
    let path: string;
    if (roll < 0.35) {
      path = `/v1/properties?fields=${pick(FIELDSETS)}&limit=${1 + Math.floor(Math.random() * 100)}&page=${1 + Math.floor(Math.random() * 4)}&sort=${pick(SORTS)}`;
    } else if (roll < 0.5) path = `/v1/leads?fields=id,name,status&limit=50&sort=${pick(SORTS)}`;
    else if (roll < 0.62 && this.propertyIds.length > 0)
      path = `/v1/properties/${pick(this.propertyIds)}?fields=id,title`;
    else if (roll < 0.75 && leadIds.length > 0) path = `/v1/leads/${pick(leadIds)}?fields=id,message`;
    else if (roll < 0.85)
      path = `/v1/changes?entity=${pick(["leads", "properties"])}&after=${Math.floor(Math.random() * 500)}&limit=100`;
    else path = pick(["/v1/fields", "/v1/values/properties/propertyType", "/v1/values/leads/source", "/health"]);
    const result = await this.authorized(base, client, path);
    if (result === null) return;
    const { response, body } = result;
    if (response.status === 200 && path.startsWith("/v1/properties?") && this.propertyIds.length < 500) {
      for (const row of (JSON.parse(body) as { data: { id: string }[] }).data) this.propertyIds.push(row.id);
    }
    // An acknowledged lead that cannot be read back is a lost lead, whatever happened since.
    if (path.startsWith("/v1/leads/") && response.status === 404)
      this.problems.push(`acknowledged lead not found: ${path}`);
  }

  /** Creates a lead with a fresh marker (or retries a pending one); keeps the 201. */
  async createLead(base: string, client: FaultClient, retry: PendingLead | null): Promise<void> {
    const n = ++this.created;
    const pending: PendingLead = retry ?? {
      marker: `${this.options.runId}:${n}`,
      key: Math.random() < 0.5 ? `key-${this.options.runId}-${n}` : null,
      body: "",
      client,
    };
    if (retry === null) {
      pending.body = JSON.stringify({
        name: `Fault Lead ${n}`,
        email: `lead${n}@example.com`,
        phone: "+55 11 90000-0000",
        message: `fault-marker:${pending.marker}`,
        source: "API",
      });
    }
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (pending.key !== null) headers["idempotency-key"] = pending.key;
    this.uncertain.set(pending.marker, pending);
    const result = await this.authorized(base, pending.client, "/v1/leads", {
      method: "POST",
      headers,
      body: pending.body,
    });
    if (result === null) return void this.uncertain.delete(pending.marker);
    this.uncertain.delete(pending.marker);
    if (result.response.status === 201) {
      const id = (JSON.parse(result.body) as { data: { id: string } }).data.id;
      const earlier = this.acknowledged.get(pending.marker);
      if (earlier !== undefined && earlier !== id)
        this.problems.push(`marker ${pending.marker} acknowledged as ${earlier} and ${id}`);
      if (earlier === undefined) {
        const mine = this.acknowledgedTo.get(pending.client.id) ?? [];
        mine.push(id);
        this.acknowledgedTo.set(pending.client.id, mine);
      }
      this.acknowledged.set(pending.marker, id);
      if (pending.key !== null && this.keyedAcknowledged.size < 2_000)
        this.keyedAcknowledged.set(pending.marker, { ...pending, id });
    }
  }

  /** Retries every keyed creation whose answer was lost; the key makes the retry safe. */
  async retryUncertain(base: string): Promise<number> {
    const keyed = [...this.uncertain.values()].filter((p) => p.key !== null);
    for (const pending of keyed) await this.createLead(base, pending.client, pending);
    return keyed.length;
  }

  /** Replays up to `count` acknowledged keyed creations: each must come back 201, replayed, same id. */
  async replayAcknowledged(base: string, count: number): Promise<{ replayed: number; wrong: string[] }> {
    const wrong: string[] = [];
    const sample = [...this.keyedAcknowledged.values()].slice(0, count);
    for (const lead of sample) {
      const result = await this.authorized(base, lead.client, "/v1/leads", {
        method: "POST",
        headers: { "content-type": "application/json", "idempotency-key": lead.key! },
        body: lead.body,
      });
      const id = result?.response.status === 201 ? (JSON.parse(result.body) as { data: { id: string } }).data.id : null;
      if (id !== lead.id || result?.response.headers.get("idempotent-replayed") !== "true") {
        wrong.push(`${lead.marker}: ${result?.response.status} ${id} ≠ ${lead.id}`);
      }
    }
    return { replayed: sample.length, wrong };
  }

  summary() {
    return {
      sent: this.sent,
      statuses: Object.fromEntries([...this.byStatus].sort(([a], [b]) => a - b)),
      networkErrors: this.networkErrors,
      leadsAcknowledged: this.acknowledged.size,
      uncertain: this.uncertain.size,
      unexpected: Object.fromEntries(this.unexpected),
      problems: this.problems.length,
    };
  }
}

function isConnectionError(error: unknown): boolean {
  const text = `${(error as Error)?.name} ${(error as Error)?.message} ${(error as { code?: string })?.code}`;
  return /ECONNREFUSED|ECONNRESET|socket|closed|Timeout|abort|EPIPE|ConnectionRefused/i.test(text);
}
