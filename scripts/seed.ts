// `bun run seed [flags]`: the `seed` command from the sources. Without `--out` it writes the
// sandbox's database, data/sandbox.sqlite, the file `bun run sandbox` serves; every other flag is
// the command's own (`--properties`, `--leads`, `--seed`, `--as-of`, `--force`: see
// docs/reference/cli.md).
import { main } from "../src/main.ts";

const args = process.argv.slice(2);
const hasOut = args.some((arg) => arg === "--out" || arg.startsWith("--out="));
process.exit(await main(["seed", ...(hasOut ? [] : ["--out", "data/sandbox.sqlite"]), ...args]));
