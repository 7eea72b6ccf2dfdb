// The validators of a client's feed (docs/reference/behaviour-extensions.md §17) and the conditional requests they answer.
//
// The body is a function of: the database's published listings (the head of the properties'
// change log moves with every change to them), the client's view and selection (fullAddress,
// `feed`), the writer (FEED_FORMAT and the version), and the PublishDate it carries (the
// Last-Modified below). The ETag is a digest of exactly those, so it changes when the content
// can have changed and not otherwise (a lead created, another client's request, time passing,
// a restart change nothing). It is weak (W/): the same ETag serves the plain and the gzipped
// body, which RFC 9110 §8.8.1 allows only of a weak one, and If-None-Match compares weakly anyway.
//
// Last-Modified is the latest of: the last change to the listings, and when the client's settings
// took their current form. A process knows the latter exactly from a reload on; at start it can
// only say "no later than the config file's or the executable's last write".
import { statSync } from "node:fs";
import type { RecordView } from "../../catalog/types.ts";
import type { PortalFeedSelection } from "../../config/model.ts";
import { VERSION } from "../../version.ts";
import type { ChangeHead } from "./snapshot.ts";

/** Moves when the same data would give other bytes: the writer's output, the order, the header. */
export const FEED_FORMAT = "vrsync/1";

export interface Validators {
  etag: string;
  /** Whole seconds, as HTTP dates carry them. */
  lastModified: Date;
}

export function validatorsOf(
  head: ChangeHead,
  view: RecordView,
  selection: PortalFeedSelection,
  settingsSince: number,
): Validators {
  const changedAt = head.at === null ? 0 : Date.parse(head.at);
  const lastModified = new Date(Math.floor(Math.max(changedAt, settingsSince) / 1000) * 1000);
  const digest = new Bun.CryptoHasher("sha256")
    .update(
      JSON.stringify([
        FEED_FORMAT,
        VERSION,
        head.sequence,
        head.recordId,
        head.at,
        view,
        selection,
        lastModified.getTime(),
      ]),
    )
    .digest("base64url");
  return { etag: `W/"${digest.slice(0, 27)}"`, lastModified };
}

/** The opaque part of each entity tag of an If-None-Match list (weak comparison ignores W/), or "*". */
function entityTags(ifNoneMatch: string): string[] | "*" {
  if (ifNoneMatch.trim() === "*") return "*";
  return [...ifNoneMatch.matchAll(/(?:W\/)?("[^"]*")/g)].map((match) => match[1]!);
}

/**
 * Whether a GET or HEAD gets 304 (RFC 9110 §13.2.2): If-None-Match decides when present (weak
 * comparison); else If-Modified-Since, when it is a valid date not in the future.
 */
export function notModified(headers: Headers, validators: Validators, now: number): boolean {
  const ifNoneMatch = headers.get("if-none-match");
  if (ifNoneMatch !== null) {
    const tags = entityTags(ifNoneMatch);
    return tags === "*" || tags.includes(validators.etag.slice(2));
  }
  const ifModifiedSince = headers.get("if-modified-since");
  if (ifModifiedSince === null) return false;
  const since = Date.parse(ifModifiedSince);
  return !Number.isNaN(since) && since <= now && validators.lastModified.getTime() <= since;
}

/** The executable's last write: an upgrade can change what the writer writes. */
const EXECUTABLE_WRITTEN_AT = (() => {
  try {
    return statSync(process.execPath).mtimeMs;
  } catch {
    return 0;
  }
})();

/** When each client's feed settings took their current form, as far as this process can know. */
export class SettingsClock {
  private readonly seen = new Map<string, { fingerprint: string; since: number }>();

  constructor(private readonly now: () => number) {}

  /**
   * `configWrittenAt`: the running config file's last write (null for a config made in code).
   * First sight in this process: no later than that file's or the executable's last write. A
   * change seen since (a reload): the reloaded file's last write when it is newer than what was
   * known, else now, which is after the change (a file copied in place may keep an old mtime).
   */
  since(clientId: string, fingerprint: string, configWrittenAt: number | null): number {
    const known = this.seen.get(clientId);
    if (known?.fingerprint === fingerprint) return known.since;
    const since =
      known === undefined
        ? Math.max(configWrittenAt ?? this.now(), EXECUTABLE_WRITTEN_AT)
        : configWrittenAt !== null && configWrittenAt > known.since
          ? configWrittenAt
          : this.now();
    this.seen.set(clientId, { fingerprint, since });
    return since;
  }
}
