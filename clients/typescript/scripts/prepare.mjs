// `prepare`: npm runs it when the package is installed from a folder or a git checkout, and before
// `npm pack`, so dist/ is built from src/ wherever the package is taken from the repository. A
// linked folder gets no dependencies from npm: the package's own are installed first when its
// TypeScript is missing (scripts off, so this does not run again inside that install).
// Plain JavaScript run by Node: nothing here may need a build.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const tsc = join(root, "node_modules/typescript/bin/tsc");
if (!existsSync(tsc)) {
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  execFileSync(npm, ["install", "--ignore-scripts", "--no-package-lock", "--no-audit", "--no-fund"], {
    cwd: root,
    stdio: "inherit",
  });
}
execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: root, stdio: "inherit" });
