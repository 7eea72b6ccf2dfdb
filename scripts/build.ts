// `bun run build`: compiles dist/partner-api (linux x64), the version injected, no .env or
// bunfig.toml autoload in the binary, then smoke-tests it with --version.
import pkg from "../package.json" with { type: "json" };

const outfile = "dist/partner-api";
const version = process.env.PARTNER_API_VERSION ?? pkg.version;

const build = Bun.spawnSync(
  [
    process.execPath, "build", "src/main.ts",
    "--compile",
    "--minify",
    "--sourcemap",
    "--target=bun-linux-x64",
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
console.log(`built ${outfile}: ${printed}`);
