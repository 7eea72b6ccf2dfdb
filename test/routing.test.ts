// The router's answer for a path does not depend on the Host header (src/app.ts): a trailing
// slash is the same route as without it, whatever the length of the host name the request
// names, through app.handle and through a real listening server.
import { afterAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { client, createTestApp, DEFAULT_PEER, PEER_HEADER } from "./helpers/app.ts";

const portal = client("portal");
const t = createTestApp({ clients: [portal.entry] });
const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => t.app.handle(request) });
afterAll(() => {
  server.stop(true);
  t.close();
});

const HOSTS = [
  "a",
  "ab",
  "abc",
  "abcd",
  "abcde",
  "localhost",
  "api.imobiliaria.com.br",
  "127.0.0.1:8080",
  "[::1]:8080",
];

/** One raw HTTP/1.1 request with this Host header; the status of the answer. */
function rawStatus(path: string, host: string, extra = ""): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port!, "127.0.0.1", () => {
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: ${host}\r\n${PEER_HEADER}: ${DEFAULT_PEER}\r\n${extra}Connection: close\r\n\r\n`,
      );
    });
    let text = "";
    socket.on("data", (chunk) => (text += chunk.toString("latin1")));
    socket.on("end", () => resolve(Number(text.split(" ")[1])));
    socket.on("error", reject);
  });
}

describe("a path's route does not depend on the Host header", () => {
  test("GET /health/ and GET /v1/leads/ answer as without the slash, for every host length (app.handle)", async () => {
    const token = await t.token(portal);
    for (const host of HOSTS) {
      const health = await t.app.handle(new Request(`http://${host}/health/`));
      const leads = await t.app.handle(
        new Request(`http://${host}/v1/leads/?fields=id`, {
          headers: { authorization: `Bearer ${token}`, [PEER_HEADER]: DEFAULT_PEER },
        }),
      );
      const unknown = await t.app.handle(new Request(`http://${host}/nowhere/`));
      expect({ host, health: health.status, leads: leads.status, unknown: unknown.status }).toEqual({
        host,
        health: 200,
        leads: 200,
        unknown: 404,
      });
    }
  });

  test("the same through a listening server, whatever the Host header says", async () => {
    const token = await t.token(portal);
    for (const host of HOSTS) {
      const statuses = {
        host,
        health: await rawStatus("/health/", host),
        healthBare: await rawStatus("/health", host),
        leads: await rawStatus("/v1/leads/?fields=id", host, `Authorization: Bearer ${token}\r\n`),
      };
      expect(statuses).toEqual({ host, health: 200, healthBare: 200, leads: 200 });
    }
  });

  test("a wrong method is a 405 and an unknown path a 404, with or without the slash, for a short host too", async () => {
    for (const host of ["a", "localhost"]) {
      for (const path of ["/health", "/health/"])
        expect((await t.app.handle(new Request(`http://${host}${path}`, { method: "DELETE" }))).status).toBe(405);
      for (const path of ["/nowhere", "/v1/nowhere/"])
        expect((await t.app.handle(new Request(`http://${host}${path}`))).status).toBe(404);
    }
  });
});
