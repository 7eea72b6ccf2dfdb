// The Partner API's typed client: openapi-fetch over the types openapi-typescript generates from
// the API's document (schema.d.ts), plus what every partner otherwise writes by hand: a token
// obtained by OAuth 2.0 client credentials and renewed before it expires, 429s retried after
// Retry-After, 5xx retried with exponential backoff, an Idempotency-Key on every lead creation,
// an async iterator over pages, a follower of the change feed, and webhook verification.
import createClient, { type Client } from "openapi-fetch";
import { Webhook } from "standardwebhooks";
import type { components, operations, paths, webhooks } from "./schema.js";

export type { components, operations, paths, webhooks } from "./schema.js";

type Schemas = components["schemas"];
export type PropertyRecord = Schemas["PropertyRecord"];
export type LeadRecord = Schemas["LeadRecord"];
export type Lead = Schemas["Lead"];
export type Change = Schemas["Change"];
export type LeadInput = operations["createLead"]["requestBody"]["content"]["application/json"];
export type LeadPatch = operations["updateLead"]["requestBody"]["content"]["application/json"];
export type PropertyQuery = NonNullable<operations["listProperties"]["parameters"]["query"]>;
export type LeadQuery = NonNullable<operations["listLeads"]["parameters"]["query"]>;
export type ChangeEntity = NonNullable<operations["listChanges"]["parameters"]["query"]>["entity"];

/** Every event a webhook receiver gets, by its `type`. */
export type WebhookEvent = {
  [K in keyof webhooks]: webhooks[K] extends { post: { requestBody?: { content: { "application/json": infer P } } } }
    ? P
    : never;
}[keyof webhooks];

export interface PartnerApiOptions {
  /** The API's address, e.g. `https://api.example.com.br` (the sandbox: `http://127.0.0.1:8080`). */
  baseUrl: string;
  /** Your API key: the OAuth client id. */
  apiKey: string;
  /** Your API secret: the OAuth client secret. */
  apiSecret: string;
  /** Ask for a new token this many seconds before the current one expires (default 60). */
  renewBeforeSeconds?: number;
  /** Retries of one request after a 429 or a 5xx (default 4). */
  maxRetries?: number;
  /** First wait of the 5xx backoff, doubled on each retry (default 500 ms). */
  backoffMs?: number;
  /** The fetch to send with (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
  /** Waiting between retries (default: a timer); tests pass their own. */
  sleep?: (ms: number) => Promise<void>;
  /** The clock for token expiry, in ms (default Date.now). */
  now?: () => number;
}

/** An answer that is not a success, after any retries: its status, the API's code and the body. */
export class PartnerApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    readonly body: unknown,
    readonly response: Response,
  ) {
    super(`${status} ${code ?? ""}: ${errorMessage(body)}`.trim());
    this.name = "PartnerApiError";
  }
}

function errorMessage(body: unknown): string {
  if (typeof body === "object" && body !== null) {
    const fields = body as { error?: unknown; error_description?: unknown };
    if (typeof fields.error_description === "string") return fields.error_description;
    if (typeof fields.error === "string") return fields.error;
  }
  return typeof body === "string" ? body : "request failed";
}

async function bodyOf(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const TOKEN_PATH = "/v1/auth/token";
/** 5xx worth another try: the server or a proxy in front could not answer now. */
const TRANSIENT = new Set([500, 502, 503, 504]);

export class PartnerApi {
  /** The typed openapi-fetch client: every operation of the API, with tokens and retries applied. */
  readonly api: Client<paths>;
  private readonly baseUrl: string;
  private readonly send: (request: Request) => Promise<Response>;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly now: () => number;
  private token: { value: string; expiresAt: number } | null = null;
  private pending: Promise<string> | null = null;

  constructor(private readonly options: PartnerApiOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.send = options.fetch ?? ((request) => fetch(request));
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.now = options.now ?? Date.now;
    this.api = createClient<paths>({ baseUrl: this.baseUrl, fetch: (request) => this.authorizedFetch(request) });
  }

  /** A valid access token: the current one, or a new one when it expires within `renewBeforeSeconds`. */
  async accessToken(): Promise<string> {
    const margin = (this.options.renewBeforeSeconds ?? 60) * 1000;
    if (this.token !== null && this.now() < this.token.expiresAt - margin) return this.token.value;
    // Calls made while a token is on its way share it.
    this.pending ??= this.requestToken().finally(() => {
      this.pending = null;
    });
    return this.pending;
  }

  /** The client-credentials grant (RFC 6749 §4.4), the key and secret sent by HTTP Basic. */
  private async requestToken(): Promise<string> {
    const basic = btoa(`${encodeURIComponent(this.options.apiKey)}:${encodeURIComponent(this.options.apiSecret)}`);
    const response = await this.withRetries(
      () =>
        new Request(`${this.baseUrl}${TOKEN_PATH}`, {
          method: "POST",
          headers: {
            authorization: `Basic ${basic}`,
            "content-type": "application/x-www-form-urlencoded",
            accept: "application/json",
          },
          body: "grant_type=client_credentials",
        }),
    );
    const body = await bodyOf(response);
    if (!response.ok) throw new PartnerApiError(response.status, (body as { code?: string }).code, body, response);
    const { access_token, expires_in } = body as Schemas["OAuthToken"];
    this.token = { value: access_token, expiresAt: this.now() + expires_in * 1000 };
    return access_token;
  }

  /** Sends with the bearer token; a 401 INVALID_TOKEN (a key rotated, a server restarted) gets one new token and one more try. */
  private async authorizedFetch(request: Request): Promise<Response> {
    const withToken = async () => {
      const copy = request.clone();
      copy.headers.set("authorization", `Bearer ${await this.accessToken()}`);
      return copy;
    };
    const response = await this.withRetries(withToken);
    if (response.status !== 401) return response;
    const body = (await bodyOf(response.clone())) as { code?: string };
    if (body.code !== "INVALID_TOKEN") return response;
    this.token = null;
    return this.withRetries(withToken);
  }

  /**
   * Sends the request `make` builds, again after a 429 (as Retry-After says: the server counted
   * nothing) and after a transient 5xx with exponential backoff, when a repeat cannot do harm:
   * a read, or a write carrying an Idempotency-Key.
   */
  private async withRetries(make: () => Request | Promise<Request>): Promise<Response> {
    const maxRetries = this.options.maxRetries ?? 4;
    const backoff = this.options.backoffMs ?? 500;
    for (let attempt = 0; ; attempt++) {
      const request = await make();
      const response = await this.send(request);
      if (attempt >= maxRetries) return response;
      if (response.status === 429) {
        const seconds = Number(response.headers.get("retry-after"));
        await this.sleep((Number.isFinite(seconds) && seconds > 0 ? seconds : 1) * 1000);
        continue;
      }
      const repeatable =
        request.method === "GET" ||
        request.method === "HEAD" ||
        request.headers.has("idempotency-key") ||
        new URL(request.url).pathname === TOKEN_PATH;
      if (TRANSIENT.has(response.status) && repeatable) {
        const seconds = Number(response.headers.get("retry-after"));
        await this.sleep(Math.max(backoff * 2 ** attempt, Number.isFinite(seconds) ? seconds * 1000 : 0));
        continue;
      }
      return response;
    }
  }

  /** The data of a success, or a PartnerApiError. */
  private static unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
    if (result.data !== undefined && result.response.ok) return result.data;
    const body = result.error;
    throw new PartnerApiError(
      result.response.status,
      (body as { code?: string } | undefined)?.code,
      body,
      result.response,
    );
  }

  async listProperties(query: PropertyQuery) {
    return PartnerApi.unwrap(await this.api.GET("/v1/properties", { params: { query } }));
  }

  async getProperty(id: string, fields: string) {
    return PartnerApi.unwrap(await this.api.GET("/v1/properties/{id}", { params: { path: { id }, query: { fields } } }))
      .data;
  }

  async listLeads(query: LeadQuery) {
    return PartnerApi.unwrap(await this.api.GET("/v1/leads", { params: { query } }));
  }

  async getLead(id: string, fields: string) {
    return PartnerApi.unwrap(await this.api.GET("/v1/leads/{id}", { params: { path: { id }, query: { fields } } }))
      .data;
  }

  /**
   * Creates a lead, always with an Idempotency-Key (a new UUID unless given), so a retry after a
   * lost answer returns the first lead instead of making a second one. Pass your own key (your
   * form submission's id) to be safe across restarts of your process too.
   */
  async createLead(lead: LeadInput, options: { idempotencyKey?: string } = {}) {
    const key = options.idempotencyKey ?? crypto.randomUUID();
    const result = await this.api.POST("/v1/leads", { params: { header: { "Idempotency-Key": key } }, body: lead });
    return {
      lead: PartnerApi.unwrap(result).data,
      replayed: result.response.headers.get("idempotent-replayed") === "true",
      idempotencyKey: key,
    };
  }

  /** Moves a lead in the funnel (`status`, `priority` or both): what a CRM reports back. */
  async updateLead(id: string, patch: LeadPatch) {
    return PartnerApi.unwrap(await this.api.PATCH("/v1/leads/{id}", { params: { path: { id } }, body: patch })).data;
  }

  /** Every record of a list, page after page (`limit` per request, 100 at most). */
  properties(query: Omit<PropertyQuery, "page">): AsyncGenerator<PropertyRecord> {
    return this.pages((page) => this.listProperties({ ...query, page }));
  }

  leads(query: Omit<LeadQuery, "page">): AsyncGenerator<LeadRecord> {
    return this.pages((page) => this.listLeads({ ...query, page }));
  }

  private async *pages<T>(
    get: (page: number) => Promise<{ data: T[]; meta: { page: number; totalPages: number } }>,
  ): AsyncGenerator<T> {
    for (let page = 1; ; page++) {
      const { data, meta } = await get(page);
      yield* data;
      if (page >= meta.totalPages || data.length === 0) return;
    }
  }

  /** A follower of the change feed of one entity, from `after` (0: from the beginning). */
  changes(entity: ChangeEntity, after = 0, limit = 100): ChangeFollower {
    return new ChangeFollower(this, entity, after, limit);
  }

  /** One page of the change feed (`meta.head`: the latest sequence, where a full copy's follower starts). */
  async changePage(entity: ChangeEntity, after: number, limit: number) {
    return PartnerApi.unwrap(await this.api.GET("/v1/changes", { params: { query: { entity, after, limit } } }));
  }
}

/**
 * Reads the change feed and keeps its position: `position` is the `nextAfter` of the last page
 * read, to store beside your copy and pass back as `after` when your process starts again.
 * `drain()` yields every change there is now; `follow()` goes on waiting for new ones.
 */
export class ChangeFollower {
  constructor(
    private readonly client: PartnerApi,
    readonly entity: ChangeEntity,
    private after: number,
    private readonly limit: number,
  ) {}

  get position(): number {
    return this.after;
  }

  /** Every change after `position`, oldest first, until the feed has no more. */
  async *drain(): AsyncGenerator<Change> {
    for (;;) {
      const { data, meta } = await this.client.changePage(this.entity, this.after, this.limit);
      for (const change of data) yield change;
      this.after = meta.nextAfter;
      if (!meta.hasMore) return;
    }
  }

  /** Every change, then each new one as it comes, asking every `intervalMs` (default 5 s) until `signal` aborts. */
  async *follow(options: { intervalMs?: number; signal?: AbortSignal } = {}): AsyncGenerator<Change> {
    const interval = options.intervalMs ?? 5000;
    while (!options.signal?.aborted) {
      yield* this.drain();
      await pause(interval, options.signal);
    }
  }
}

/**
 * Waits `ms`, or less if `signal` aborts. The abort listener goes when the wait ends either way,
 * so a follower that polls for days leaves none behind on a long-lived signal.
 */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const wake = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    signal?.addEventListener("abort", wake, { once: true });
  });
}

/**
 * Verifies a webhook delivery (Standard Webhooks 1.0: `webhook-id`, `webhook-timestamp`,
 * `webhook-signature`) with your subscription's `whsec_…` secret, and returns the event. Pass
 * the body exactly as received (a string or bytes, before any JSON parsing). Throws when the
 * signature is wrong or the timestamp is more than five minutes away.
 */
export function verifyWebhook(
  secret: string,
  body: string | Uint8Array,
  headers: Headers | Record<string, string>,
): WebhookEvent {
  const plain =
    headers instanceof Headers
      ? Object.fromEntries(headers.entries())
      : Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const payload = typeof body === "string" ? body : new TextDecoder().decode(body);
  return new Webhook(secret).verify(payload, plain) as WebhookEvent;
}
