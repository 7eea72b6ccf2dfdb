// Outside programs some tests drive for real (Chromium, k6, Prometheus, podman, redis-server).
// On a fresh machine with only Node and npm they may be absent: those tests are then skipped
// with a visible notice, so the README's test command passes there. CI lists the tools it
// installed in REQUIRE_TOOLS (comma-separated, or "all"), and there a missing tool fails the
// suite instead of skipping it, so CI can never skip a test silently.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Tools CI requires, from REQUIRE_TOOLS. */
function requiredTools(): { all: boolean; names: Set<string> } {
  const value = (process.env.REQUIRE_TOOLS ?? "").trim();
  const names = new Set(
    value
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== ""),
  );
  return { all: names.has("all"), names };
}

/** Whether CI demands `name`: then its absence is a failure, not a skip. */
export function toolRequired(name: string): boolean {
  const required = requiredTools();
  return required.all || required.names.has(name);
}

/**
 * The path of a tool: the first candidate that exists (absolute paths), else the first name
 * found on PATH. Null when none is there.
 */
export function findTool(candidates: readonly string[]): string | null {
  for (const candidate of candidates) {
    if (candidate.startsWith("/")) {
      if (existsSync(candidate)) return candidate;
    } else {
      const found = Bun.which(candidate);
      if (found !== null) return found;
    }
  }
  return null;
}

/**
 * Finds a tool for a test file. When it is absent: a notice on stderr and null (the file's
 * tests then skip), or, when CI requires it, an error naming how to install it.
 */
export function toolForTests(name: string, candidates: readonly string[], install: string): string | null {
  const path = findTool(candidates);
  if (path !== null) return path;
  const message = `${name} not found (looked for ${candidates.join(", ")}); ${install}`;
  if (toolRequired(name)) throw new Error(`${message}. REQUIRE_TOOLS demands it here.`);
  process.stderr.write(`\n*** SKIPPED: the tests that need ${name}: ${message} ***\n\n`);
  return null;
}

/**
 * Whether the machine can make a file immutable (`chattr +i`: root, e2fsprogs, and a temp
 * folder on a file system that supports it). Absent: the notice and false, or, where CI
 * requires "chattr", an error.
 */
export function immutableFilesForTests(): boolean {
  const why = immutableFilesMissing();
  if (why === null) return true;
  const message = `chattr +i is not available here (${why}); run the tests as root on ext4, xfs or btrfs`;
  if (toolRequired("chattr")) throw new Error(`${message}. REQUIRE_TOOLS demands it here.`);
  process.stderr.write(`\n*** SKIPPED: the tests that need chattr +i: ${message} ***\n\n`);
  return false;
}

function immutableFilesMissing(): string | null {
  if (process.getuid?.() !== 0) return "not root";
  const chattr = findTool(["chattr"]);
  if (chattr === null) return "chattr not found; apt-get install e2fsprogs";
  const dir = mkdtempSync(join(tmpdir(), "pa-chattr-"));
  const file = join(dir, "probe");
  try {
    writeFileSync(file, "");
    if (Bun.spawnSync([chattr, "+i", file]).exitCode !== 0) return `the file system of ${tmpdir()} refuses it`;
    Bun.spawnSync([chattr, "-i", file]);
    return null;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
