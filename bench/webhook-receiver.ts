// The webhook receiver of the bench's webhooks scenario: acknowledges every delivery with a
// 204 and counts them. GET /stats answers the count and when the first and last arrived;
// POST /reset starts counting again. Run pinned beside the load generator, not the server.
//
//   bun bench/webhook-receiver.ts --port P
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { port: { type: "string" } } });
let count = 0;
let first = 0;
let last = 0;

Bun.serve({
  port: Number(values.port),
  hostname: "127.0.0.1",
  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (request.method === "GET" && path === "/health") return new Response("ok");
    if (request.method === "GET" && path === "/stats") return Response.json({ count, first, last });
    if (request.method === "POST" && path === "/reset") {
      count = first = last = 0;
      return new Response(null, { status: 204 });
    }
    await request.arrayBuffer();
    const now = Date.now();
    if (count === 0) first = now;
    count++;
    last = now;
    return new Response(null, { status: 204 });
  },
});
