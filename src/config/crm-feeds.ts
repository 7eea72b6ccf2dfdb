// The config's `feeds` (docs/reference/behaviour-extensions.md §14): what the schema cannot check (names that must match,
// minimums that depend on the environment, URLs), and their resolved, frozen form.
import { displayUrl } from "../formats/fetch.ts";
import { formatDuration, parseDuration } from "./duration.ts";
import type { FeedSpec } from "./model.ts";
import {
  type ConfigFile,
  DEFAULT_FEED_EVERY,
  DEFAULT_FEED_MAX_BYTES,
  DEFAULT_FEED_TIMEOUT,
  DEFAULT_MAX_UNPUBLISH_RATIO,
} from "./schema.ts";

/** The shortest interval between runs: a run of a big feed takes tens of seconds of CPU. */
export const MIN_FEED_EVERY_MS = { production: 60_000, sandbox: 30_000 } as const;
const MIN_FEED_TIMEOUT_MS = 1_000;

/** Why `url` cannot be a feed's address, or null when it can. */
function urlProblem(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "is not an absolute URL";
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:")
    return `must be an http(s) URL, not ${parsed.protocol.slice(0, -1)}`;
  // The URL is shown by `feeds status` and in logs; credentials belong in `headers`, which are not.
  if (parsed.username !== "" || parsed.password !== "")
    return "must not carry a user or password: put them in headers (Authorization), which are never shown";
  return null;
}

export function feedProblems(config: ConfigFile): string[] {
  const problems: string[] = [];
  const environment = config.environment ?? "production";
  const minimum = MIN_FEED_EVERY_MS[environment];
  const ids = new Map<string, number>();
  /** The full feed of each database: a second full feed would unpublish the first one's listings. */
  const fullFeeds = new Map<string, number>();
  (config.feeds ?? []).forEach((feed, i) => {
    const at = `/feeds/${i}`;
    const first = ids.get(feed.id);
    if (first !== undefined) problems.push(`${at}/id: duplicate feed id "${feed.id}" (also /feeds/${first}/id)`);
    else ids.set(feed.id, i);
    if (!Object.hasOwn(config.databases ?? {}, feed.database)) {
      problems.push(`${at}/database: "${feed.database}" is not a name in databases`);
    }
    const problem = urlProblem(feed.url);
    if (problem !== null) problems.push(`${at}/url: ${problem} (${displayUrl(feed.url)})`);
    const every = parseDuration(feed.every ?? DEFAULT_FEED_EVERY)!;
    if (every < minimum) {
      problems.push(
        `${at}/every: ${feed.every} is shorter than the minimum, ${formatDuration(minimum)}${environment === "sandbox" ? " in the sandbox" : " (30s in the sandbox)"}`,
      );
    }
    if (parseDuration(feed.timeout ?? DEFAULT_FEED_TIMEOUT)! < MIN_FEED_TIMEOUT_MS)
      problems.push(`${at}/timeout: must be at least 1s`);
    for (const [name, value] of Object.entries(feed.headers ?? {})) {
      // The value is a secret: named by its header, never echoed.
      if (/[\r\n\0]/.test(value)) problems.push(`${at}/headers/${name}: must not contain line breaks or NUL`);
    }
    if ((feed.mode ?? "full") === "full") {
      const other = fullFeeds.get(feed.database);
      if (other !== undefined) {
        problems.push(
          `${at}/mode: feeds "${config.feeds![other]!.id}" and "${feed.id}" are both full feeds of database "${feed.database}", ` +
            `so each run would unpublish the other's listings: make one of them "partial"`,
        );
      } else fullFeeds.set(feed.database, i);
    }
  });
  return problems;
}

/** The validated feeds, resolved against the resolved databases. */
export function resolveFeeds(config: ConfigFile, databases: ReadonlyMap<string, string>): readonly FeedSpec[] {
  return Object.freeze(
    (config.feeds ?? []).map((feed) =>
      Object.freeze({
        id: feed.id,
        database: feed.database,
        databasePath: databases.get(feed.database)!,
        url: feed.url,
        everyMs: parseDuration(feed.every ?? DEFAULT_FEED_EVERY)!,
        mode: feed.mode ?? "full",
        headers: Object.freeze({ ...(feed.headers ?? {}) }),
        maxUnpublishRatio: feed.maxUnpublishRatio ?? DEFAULT_MAX_UNPUBLISH_RATIO,
        timeoutMs: parseDuration(feed.timeout ?? DEFAULT_FEED_TIMEOUT)!,
        maxBytes: feed.maxBytes ?? DEFAULT_FEED_MAX_BYTES,
      }),
    ),
  );
}
