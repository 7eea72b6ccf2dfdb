// A 201 means the lead is on disk: 300 concurrent creations against the binary, kill -9 while
// they are in flight, restart, and every acknowledged lead is there, none twice.
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBinary, sandboxToken, startBinary } from "../helpers/binary.ts";

const dir = mkdtempSync(join(tmpdir(), "pa-durability-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("every lead that got a 201 survives kill -9, exactly once", async () => {
  const binary = ensureBinary();
  const db = join(dir, "sandbox.sqlite");
  const server = await startBinary(binary, ["sandbox", "--db", db, "--rate-limit", "1000000"], dir);
  const token = await sandboxToken(server.url);

  let firstAck!: () => void;
  const acknowledged = new Promise<void>((resolve) => (firstAck = resolve));
  const creations = Array.from({ length: 300 }, async (_, i) => {
    try {
      const response = await fetch(`${server.url}/v1/leads`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({
          name: `Durável ${i}`,
          email: `d${i}@example.com`,
          phone: "1",
          message: `durability-${i}`,
        }),
      });
      if (response.status !== 201) return null;
      const id = ((await response.json()) as { data: { id: string } }).data.id;
      firstAck();
      return { marker: `durability-${i}`, id };
    } catch {
      return null; // the connection died with the process: not acknowledged
    }
  });
  await acknowledged;
  server.proc.kill("SIGKILL");
  const outcomes = await Promise.all(creations);
  await server.proc.exited;
  const acked = outcomes.filter((o): o is { marker: string; id: string } => o !== null);
  expect(acked.length).toBeGreaterThan(0);

  // Restart on the same file: it must open, recover its WAL and serve.
  const restarted = await startBinary(binary, ["sandbox", "--db", db], dir);
  await restarted.stop();

  const file = new Database(db, { readonly: true });
  const stored = new Map(
    (
      file
        .query(
          "SELECT message, id, count(*) OVER (PARTITION BY message) AS copies FROM leads WHERE message LIKE 'durability-%'",
        )
        .all() as {
        message: string;
        id: string;
        copies: number;
      }[]
    ).map((row) => [row.message, row]),
  );
  expect((file.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check).toBe("ok");
  file.close();
  for (const { marker, id } of acked) {
    expect(stored.get(marker)).toEqual({ message: marker, id, copies: 1 });
  }
  for (const row of stored.values()) expect(row.copies).toBe(1);
}, 60_000);
