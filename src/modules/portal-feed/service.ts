// GET and HEAD /v1/feeds/vrsync.xml (docs/reference/behaviour-extensions.md §17): a client's published listings as the VRSync
// of `export`, streamed from one read snapshot. The order of the work: validators from the
// shared read connection (a conditional request that matches costs one index probe, no
// snapshot); then a snapshot of its own, the listings the writer cannot write as of that
// snapshot (their number is a header, so it is known before the first byte), and the body.
import type { Database } from "bun:sqlite";
import { exportProperties, selectionCondition } from "../../agency/export.ts";
import type { Client, PortalFeedSelection } from "../../config/model.ts";
import type { Tenant } from "../../db/tenants.ts";
import { ApiError } from "../../errors.ts";
import type { Logger } from "../../logging.ts";
import { CLIENT_CLOSED_REQUEST } from "../../metrics/requests.ts";
import { ClientDisconnected } from "../../plugins/body.ts";
import { answerInBackground, type RequestState } from "../../plugins/context.ts";
import { acceptsGzip } from "../../plugins/respond.ts";
import { readerOf } from "../../query/lists.ts";
import type { Runtime } from "../../runtime.ts";
import { BODY_LIMITS, type BodyLimits, BodyTurns, RETRY_AFTER_SECONDS } from "./bodies.ts";
import { type BodyEnd, feedBody } from "./body.ts";
import type { FeedOutcome, PortalFeedMetrics } from "./metrics.ts";
import { changeHead, ReadSnapshot } from "./snapshot.ts";
import { unwritableListingsOf } from "./unwritable.ts";
import { notModified, SettingsClock, type Validators, validatorsOf } from "./validators.ts";

export const FEED_PATH = "/v1/feeds/vrsync.xml";
export const XML_CONTENT_TYPE = "application/xml; charset=utf-8";
/** A reader must take the whole body within this long: a snapshot held longer keeps the WAL from being checkpointed. */
export const FEED_TIME_LIMIT_MS = 30 * 60 * 1000;

/** What the access line and /metrics record for a body that ended each way (499: nginx's "client closed request"). */
const STATUS_OF_END: Readonly<Record<BodyEnd["outcome"], number>> = {
  complete: 200,
  "hung-up": CLIENT_CLOSED_REQUEST,
  "too-slow": 408,
  failed: 500,
};

const OUTCOME_OF_END: Readonly<Record<BodyEnd["outcome"], FeedOutcome>> = {
  complete: "full",
  "hung-up": "hung_up",
  "too-slow": "too_slow",
  failed: "failed",
};

export interface PortalFeedDeps {
  runtime: Runtime;
  metrics: PortalFeedMetrics;
  logger: Logger;
  /** Tests shorten it. */
  timeLimitMs?: number;
  /** How many bodies stream at once, and how many wait and for how long (bodies.ts); tests pass smaller ones. */
  bodyLimits?: BodyLimits;
}

/** How many of the listings the writer cannot write fall in a client's selection. */
function skippedIn(db: Database, selection: PortalFeedSelection, unwritable: ReadonlySet<string>): number {
  if (unwritable.size === 0) return 0;
  const { sql, params } = selectionCondition(selection);
  return db
    .query<{ n: number }, string[]>(
      `SELECT count(*) AS n FROM properties p WHERE ${sql} AND p.id IN (SELECT value FROM json_each(?))`,
    )
    .get(...params, JSON.stringify([...unwritable]))!.n;
}

/**
 * What a 200 and a 304 both carry (RFC 9110 §15.4.5). Last-Modified is left out of an answer
 * given within the second of that time: HTTP dates have whole seconds, so an If-Modified-Since
 * echoing it could not tell a later change of the same second; the ETag can.
 */
function validatorHeaders(validators: Validators): Record<string, string> {
  const settled = Date.now() >= validators.lastModified.getTime() + 1000;
  return {
    etag: validators.etag,
    ...(settled ? { "last-modified": validators.lastModified.toUTCString() } : {}),
    // Authenticated content: no shared cache may keep it; the client may, and must ask again.
    "cache-control": "private, no-cache",
    vary: "accept-encoding, authorization",
  };
}

/**
 * A HEAD's body: empty, and ended only in a later turn of the event loop. The GET streams, with
 * no length known before its last byte, and the HEAD must say the same. Bun writes a HEAD's
 * framing from the body it is given: one already ended is announced as `Content-Length: 0` (a
 * portal checking the size first read the feed as empty), one still open as chunked, like the
 * GET. (A Transfer-Encoding header of our own would do it too, but Elysia then streams the
 * response again itself and drops its Content-Encoding.)
 */
function headBody(): ReadableStream<Uint8Array> {
  let turn: ReturnType<typeof setImmediate> | undefined;
  return new ReadableStream({
    pull: (controller) =>
      new Promise<void>((resolve) => {
        turn = setImmediate(() => {
          controller.close();
          resolve();
        });
      }),
    // Bun cancels a HEAD's body once the headers are out.
    cancel: () => clearImmediate(turn),
  });
}

export class PortalFeed {
  private readonly settings: SettingsClock;
  /** The bodies of this process streaming, and the requests waiting for their turn. */
  readonly bodies: BodyTurns;

  constructor(private readonly deps: PortalFeedDeps) {
    this.bodies = new BodyTurns(deps.bodyLimits ?? BODY_LIMITS);
    // HTTP dates are the wall clock's (the runtime's clock is the limits' and the tokens').
    this.settings = new SettingsClock(Date.now);
  }

  private validators(client: Client, head: ReturnType<typeof changeHead>): Validators {
    const view = readerOf(client).view;
    const fingerprint = JSON.stringify([view, client.feed]);
    const since = this.settings.since(client.id, fingerprint, this.deps.runtime.config.modifiedAt);
    return validatorsOf(head, view, client.feed, since);
  }

  /** The answer to a GET or HEAD that passed the guard; `state.streamed` learns how a body ends. */
  async answer(request: Request, client: Client, tenant: Tenant, state: RequestState): Promise<Response> {
    const { metrics } = this.deps;
    // Its slices give way to other requests; counted among them, they would give way to themselves.
    answerInBackground(state);
    const head = request.method === "HEAD";
    const cached = this.validators(client, changeHead(tenant.read));
    if (notModified(request.headers, cached, Date.now())) {
      metrics.answered(client.id, "not_modified");
      return new Response(null, { status: 304, headers: validatorHeaders(cached) });
    }
    // A HEAD streams nothing: it takes no body's turn.
    const turn = head ? () => {} : await this.bodies.take(request.signal);
    if (turn === null) {
      if (request.signal.aborted) throw new ClientDisconnected();
      metrics.answered(client.id, "busy");
      throw new ApiError(
        "SERVICE_UNAVAILABLE",
        "Too many portal feeds are being sent right now; fetch again after Retry-After seconds",
        undefined,
        {
          "retry-after": String(RETRY_AFTER_SECONDS),
        },
      );
    }
    let snapshot: ReadSnapshot;
    let skipped: number;
    let unwritable: ReadonlySet<string>;
    try {
      snapshot = ReadSnapshot.open(tenant.path, this.deps.runtime.tenants);
    } catch (error) {
      turn();
      throw error;
    }
    try {
      unwritable = await unwritableListingsOf(tenant).at(snapshot.db, snapshot.head);
      skipped = skippedIn(snapshot.db, client.feed, unwritable);
    } catch (error) {
      snapshot.release();
      turn();
      throw error;
    }
    // Validators of what this snapshot holds, which may be newer than what was compared above.
    const validators = this.validators(client, snapshot.head);
    const gzip = acceptsGzip(request.headers.get("accept-encoding"));
    const headers = {
      ...validatorHeaders(validators),
      "content-type": XML_CONTENT_TYPE,
      ...(gzip ? { "content-encoding": "gzip" } : {}),
      "x-feed-skipped": String(skipped),
    };
    if (head) {
      snapshot.release();
      metrics.answered(client.id, "head");
      return new Response(headBody(), { headers });
    }
    metrics.served(client.id, skipped);
    let ended!: (status: number) => void;
    state.streamed = new Promise((resolve) => (ended = resolve));
    const body = feedBody(
      (sink) =>
        exportProperties(snapshot.db, "vrsync", sink, {
          view: readerOf(client).view,
          selection: client.feed,
          unwritable,
          publishDate: validators.lastModified.toISOString(),
        }).then(() => undefined),
      {
        gzip,
        signal: request.signal,
        timeLimitMs: this.deps.timeLimitMs ?? FEED_TIME_LIMIT_MS,
        onEnd: (end) => {
          snapshot.release();
          turn();
          this.ended(client, state, end);
          ended(STATUS_OF_END[end.outcome]);
        },
      },
    );
    return new Response(body, { headers });
  }

  private ended(client: Client, state: RequestState, end: BodyEnd): void {
    const { metrics, logger } = this.deps;
    state.feedBytes = end.bytes;
    metrics.sent(client.id, end.bytes);
    metrics.answered(client.id, OUTCOME_OF_END[end.outcome]);
    if (end.outcome === "too-slow") {
      logger.warn(
        { reqId: state.requestId, clientId: client.id, bytes: end.bytes },
        "portal feed cut: not read whole within the time limit",
      );
    } else if (end.outcome === "failed") {
      logger.error(
        { reqId: state.requestId, clientId: client.id, bytes: end.bytes, err: end.error },
        "portal feed failed mid-body",
      );
    }
  }
}
