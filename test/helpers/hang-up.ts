// A client that hangs up in the middle of its request: sends the head and part of a body over
// a real socket, then closes it without reading an answer.
import { connect } from "node:net";

/** POST /v1/leads to `baseUrl` with `framing` ("Content-Length: 400\r\n" or chunked) and half a body. */
export function hangUpMidBody(baseUrl: string, token: string, requestId: string, framing: string): Promise<void> {
  const { port, hostname, host } = new URL(baseUrl);
  const partial = '{"name":"Ana","email":"ana@example.com","pho';
  const body = framing.toLowerCase().includes("chunked") ? `${partial.length.toString(16)}\r\n${partial}\r\n` : partial;
  const head =
    `POST /v1/leads HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${token}\r\n` +
    `Content-Type: application/json\r\nX-Request-Id: ${requestId}\r\n${framing}\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(head + body, () => {
        // Give the server a moment to start reading the body before the hang-up.
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 100);
      });
    });
    socket.on("error", reject);
  });
}
