// The hand-built access line must be exactly what pino writes for the same fields, so log
// pipelines see one format whichever path wrote a line.
import { describe, expect, test } from "bun:test";
import pino from "pino";
import { type AccessEntry, accessLine, accessLogger } from "../src/logging.ts";

function pinoLine(entry: AccessEntry, time: number): string {
  const lines: string[] = [];
  const logger = pino(
    { base: undefined, timestamp: () => `,"time":${time}` },
    { write: (line: string) => void lines.push(line) },
  );
  logger.info(entry);
  return lines.join("");
}

const entry: AccessEntry = {
  reqId: "5b1f0c3e-8f1e-4c5a-9d7b-0e2a4c6f8a10",
  clientId: "portal",
  method: "GET",
  route: "/v1/properties",
  status: 200,
  ms: 0.42,
};

describe("access line", () => {
  test("is byte for byte pino's line for the same fields", () => {
    expect(accessLine(entry, 1_767_225_600_000)).toBe(pinoLine(entry, 1_767_225_600_000));
  });

  test("leaves out an unknown client and writes an unmatched route as null, as pino does", () => {
    const anonymous: AccessEntry = { ...entry, clientId: undefined, route: null, status: 404 };
    expect(accessLine(anonymous, 5)).toBe(pinoLine(anonymous, 5));
    expect(JSON.parse(accessLine(anonymous, 5))).toEqual({
      level: 30,
      time: 5,
      reqId: entry.reqId,
      method: "GET",
      route: null,
      status: 404,
      ms: 0.42,
    });
  });

  test("escapes whatever a config or a caller put in the strings", () => {
    const hostile: AccessEntry = { ...entry, clientId: 'a"b\\c\n', reqId: "x\u2028y", method: 'G"T' };
    const line = accessLine(hostile, 7);
    expect(line.endsWith("\n")).toBe(true);
    expect(line.slice(0, -1)).not.toContain("\n");
    expect(JSON.parse(line)).toMatchObject({ clientId: 'a"b\\c\n', reqId: "x\u2028y", method: 'G"T' });
    expect(line).toBe(pinoLine(hostile, 7));
  });

  test("a logger that is not the JSON stdout logger gets the entry through pino, at its level", () => {
    const lines: string[] = [];
    const write = (line: string) => void lines.push(line);
    accessLogger(pino({ base: undefined }, { write }))(entry);
    accessLogger(pino({ base: undefined, level: "warn" }, { write }))(entry);
    expect(lines.length).toBe(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ ...entry, level: 30 });
  });
});
