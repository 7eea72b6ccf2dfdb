// Where this program's own code lives: inside the compiled executable, or in src/ when Bun runs
// the sources (development, tests). What starts another copy of it, or a thread of it, asks here.
import { fileURLToPath } from "node:url";

/** True inside the executable `bun run build` compiles (its files live in Bun's embedded /$bunfs/). */
export const runsCompiled = Bun.main.startsWith("/$bunfs/") || Bun.main.startsWith("B:\\~BUN\\");

/** The command that runs this program again with `args`: the executable itself, or Bun on src/main.ts. */
export function selfCommand(args: string[]): string[] {
  return runsCompiled
    ? [process.execPath, ...args]
    : [process.execPath, fileURLToPath(new URL("./main.ts", import.meta.url)), ...args];
}
