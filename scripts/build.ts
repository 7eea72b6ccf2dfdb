// `bun run build [--baseline]`: compiles dist/partner-api for this machine's OS and CPU (x64 or
// arm64), the version injected, no .env or bunfig.toml autoload in the binary, then smoke-tests
// it with --version. Bun's x64 build needs AVX2 (Haswell, 2013, and later); `--baseline` builds
// for older x64 CPUs instead, a little slower.
import { parseArgs } from "node:util";
import pkg from "../package.json" with { type: "json" };

const outfile = "dist/partner-api";
// `||`: an empty value (an unset build argument of the container image) means "not given".
const version = process.env.PARTNER_API_VERSION || pkg.version;

function fail(message: string): never {
  console.error(`build: ${message}`);
  process.exit(2);
}

let baseline = false;
try {
  baseline =
    parseArgs({ args: Bun.argv.slice(2), options: { baseline: { type: "boolean" } }, strict: true }).values.baseline ===
    true;
} catch (error) {
  fail(`${(error as Error).message} (usage: bun run build [--baseline])`);
}

const os = process.platform;
const arch = process.arch;
if (os !== "linux" && os !== "darwin")
  fail(`no build for ${os}: partner-api runs on Linux (and macOS for development)`);
if (arch !== "x64" && arch !== "arm64") fail(`no build for the ${arch} CPU: Bun compiles for x64 and arm64`);
if (baseline && arch !== "x64") fail("--baseline is for x64 CPUs without AVX2; arm64 has a single build");
// The host's own target, so the smoke test below can run what was built.
const target = `bun-${os}-${arch}${baseline ? "-baseline" : ""}`;

const build = Bun.spawnSync(
  [
    // The checkpointer's, the reader threads, the figures' writer and the seed's side thread are
    // entry points too: Bun bundles a worker only when told.
    process.execPath,
    "build",
    "src/main.ts",
    "src/db/checkpoint-worker.ts",
    "src/reads/reader-thread.ts",
    "src/usage/writer-thread.ts",
    "src/seed/side-thread.ts",
    "--compile",
    "--minify",
    "--sourcemap",
    `--target=${target}`,
    "--no-compile-autoload-dotenv",
    "--no-compile-autoload-bunfig",
    `--define=PARTNER_API_VERSION=${JSON.stringify(version)}`,
    `--outfile=${outfile}`,
  ],
  { stdout: "inherit", stderr: "inherit" },
);
if (build.exitCode !== 0) process.exit(build.exitCode ?? 1);

const smoke = Bun.spawnSync([outfile, "--version"]);
const printed = smoke.stdout.toString().trim();
if (smoke.exitCode !== 0 || printed !== `partner-api ${version}`) {
  console.error(`smoke test failed: "${outfile} --version" printed "${printed}" (exit ${smoke.exitCode})`);
  process.exit(1);
}
console.log(`built ${outfile} (${target}): ${printed}`);
