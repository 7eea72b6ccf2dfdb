// The runnable examples of the partner docs: every fenced block in bash, ts, php or python of
// docs/partners/**/*.md. A block whose info string adds `receiver` is a webhook receiver (it
// listens on $PORT and verifies with $WEBHOOK_SECRET); every other one is a script that runs to
// its end. Blocks in other languages (text, json, and sh for fragments such as an install line)
// are shown, not run.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { ROOT } from "../helpers/binary.ts";

export type Language = "bash" | "ts" | "php" | "python";

export interface Example {
  /** `docs/partners/pt-BR/inicio-rapido.md:42`: where the block opens. */
  where: string;
  language: Language;
  receiver: boolean;
  code: string;
}

const RUNNABLE = new Set<string>(["bash", "ts", "php", "python"]);
export const DOCS = join(ROOT, "docs/partners");

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? markdownFiles(path) : name.endsWith(".md") ? [path] : [];
  });
}

export function documentedExamples(): Example[] {
  const examples: Example[] = [];
  for (const file of markdownFiles(DOCS).sort()) {
    const lines = readFileSync(file, "utf8").split("\n");
    for (let i = 0; i < lines.length; i++) {
      const open = /^```(\w+)(.*)$/.exec(lines[i]!);
      if (open === null) continue;
      const end = lines.indexOf("```", i + 1);
      if (end < 0) throw new Error(`${file}:${i + 1}: unclosed code block`);
      if (RUNNABLE.has(open[1]!)) {
        examples.push({
          where: `${relative(ROOT, file)}:${i + 1}`,
          language: open[1] as Language,
          receiver: open[2]!.trim() === "receiver",
          code: lines.slice(i + 1, end).join("\n") + "\n",
        });
      }
      i = end;
    }
  }
  return examples;
}

/** The command that runs an example written to `file`. */
export function command(example: Example, file: string, port?: number): string[] {
  switch (example.language) {
    case "bash":
      return ["bash", "-euo", "pipefail", file];
    case "ts":
      return [process.execPath, file];
    case "php":
      return example.receiver ? ["php", "-S", `127.0.0.1:${port}`, file] : ["php", file];
    case "python":
      return ["python3", file];
  }
}

export const EXTENSION: Record<Language, string> = { bash: "sh", ts: "ts", php: "php", python: "py" };
