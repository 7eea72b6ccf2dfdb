// The ceiling: a bare Bun.serve answering each benchmarked route with the product's own
// response, captured by the runner (same status, headers and body, so the same bytes on the
// wire), precomputed at start. What it does per request is the least any Bun server must do:
// find the answer by method and path, read a POST body, send. The product's figures are
// printed as a ratio to this one's, measured on the same core in the same run.
//
//   bun bench/ceiling.ts --port P --routes FILE   (FILE: JSON array written by the runner)
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import type { Captured } from "./lib/api.ts";

const { values } = parseArgs({ options: { port: { type: "string" }, routes: { type: "string" } } });
if (!values.port || !values.routes) {
  console.error("usage: bun bench/ceiling.ts --port P --routes FILE");
  process.exit(2);
}

interface Answer {
  body: string;
  init: ResponseInit;
}

const answers = new Map<string, Answer>();
for (const route of JSON.parse(readFileSync(values.routes, "utf8")) as Captured[]) {
  answers.set(`${route.method} ${route.path}`, {
    body: route.body,
    init: { status: route.status, headers: route.headers },
  });
}
const health: Answer = { body: '{"status":"ok"}', init: { headers: { "Content-Type": "application/json" } } };
const notFound: Answer = {
  body: '{"error":"Not found","code":"NOT_FOUND"}',
  init: { status: 404, headers: { "Content-Type": "application/json" } },
};

function answerFor(request: Request): Answer {
  const url = request.url;
  // The path starts at the first "/" after "http://host:port"; no URL object needed.
  const path = url.slice(url.indexOf("/", url.indexOf("//") + 2));
  if (path === "/health") return health;
  return answers.get(`${request.method} ${path}`) ?? notFound;
}

Bun.serve({
  port: Number(values.port),
  hostname: "127.0.0.1",
  development: false,
  fetch(request) {
    const answer = answerFor(request);
    if (request.method === "POST") {
      // A real server reads the body it was sent; so does the ceiling.
      return request.arrayBuffer().then(() => new Response(answer.body, answer.init));
    }
    return new Response(answer.body, answer.init);
  },
});

process.on("SIGTERM", () => process.exit(0));
