// Where a server's time goes: `bun bench/lib/cpuprofile.ts FILE.cpuprofile [N]` prints the N
// functions with the most self time (and their share) from a profile written by
// `bun --cpu-prof`, plus the share spent in each source folder, so a reader sees at a glance
// whether time goes to the framework, SQLite, JSON or the product's own code.
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function place(url: string, functionName: string): string {
  if (url === "") return functionName === "(idle)" ? "(idle)" : "(native / runtime)";
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return `node_modules/${nm[1]}`;
  const src = /\/(src\/[^/]+(?:\/[^/]+)?)\//.exec(url);
  if (src) return src[1]!;
  return url.replace(/^.*\//, "");
}

export function summarise(profile: Profile, top: number): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const frame = (n: ProfileNode) =>
    `${n.callFrame.functionName || "(anonymous)"}${n.callFrame.url ? `  ${n.callFrame.url.replace(/^.*\/(src|node_modules)\//, "$1/")}:${n.callFrame.lineNumber + 1}` : ""}`;
  // A native function ("get", "Response") says little alone: name the JavaScript that called it.
  const caller = (n: ProfileNode): string => {
    for (let up = parent.get(n.id); up !== undefined; up = parent.get(up)) {
      const p = byId.get(up);
      if (p?.callFrame.url) return `  ← ${frame(p)}`;
    }
    return "";
  };
  const self = new Map<string, number>();
  const folders = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const node = byId.get(id);
    const delta = profile.timeDeltas[i] ?? 0;
    if (!node) return;
    const { functionName, url } = node.callFrame;
    const key = url ? frame(node) : `${frame(node)}${caller(node)}`;
    self.set(key, (self.get(key) ?? 0) + delta);
    const where = place(url, functionName);
    folders.set(where, (folders.get(where) ?? 0) + delta);
    total += delta;
  });
  const lines = (map: Map<string, number>, n: number) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(
        ([key, us]) =>
          `${((us / total) * 100).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(7)} ms  ${key}`,
      );
  return [
    `total sampled: ${(total / 1000).toFixed(0)} ms`,
    "",
    "self time by function:",
    ...lines(self, top),
    "",
    "self time by place:",
    ...lines(folders, 15),
  ].join("\n");
}

if (import.meta.main) {
  const [file, top = "30"] = process.argv.slice(2);
  if (!file) {
    console.error("usage: bun bench/lib/cpuprofile.ts FILE.cpuprofile [N]");
    process.exit(2);
  }
  console.log(summarise(JSON.parse(readFileSync(file, "utf8")) as Profile, Number(top)));
}
