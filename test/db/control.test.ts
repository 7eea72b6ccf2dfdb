// The control database: its own migrations and mark, never mistaken for a tenant file, backed up like one.
import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { backupDatabase } from "../../src/agency/backup.ts";
import { CONTROL_APPLICATION_ID, isControlDatabase, openControlDatabase } from "../../src/db/control/open.ts";
import { ControlStore } from "../../src/db/control/store.ts";
import { NotAPartnerDatabaseError, openDatabase, openExistingDatabase } from "../../src/db/open.ts";

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "pa-control-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

test("a new control database is marked, migrated, and its audit log refuses changes", () => {
  const path = join(tempDir(), "control.sqlite");
  const store = ControlStore.open(path, { create: true });
  store.audit({ at: 1, actor: "a@example.com", ip: "127.0.0.1", action: "sign-in", target: null, changes: null });
  expect(() => store.db.run("UPDATE audit_log SET actor = 'x'")).toThrow(/append-only/);
  expect(() => store.db.run("DELETE FROM audit_log")).toThrow(/append-only/);
  store.close();
  const raw = new Database(path, { readonly: true });
  expect((raw.query("PRAGMA application_id").get() as { application_id: number }).application_id).toBe(
    CONTROL_APPLICATION_ID,
  );
  expect((raw.query("SELECT count(*) AS n FROM audit_log").get() as { n: number }).n).toBe(1);
  raw.close();
  expect(isControlDatabase(path)).toBe(true);
});

test("a tenant file is not a control database, nor the control database a tenant one", () => {
  const dir = tempDir();
  const tenant = join(dir, "agency.sqlite");
  openDatabase(tenant).close();
  expect(isControlDatabase(tenant)).toBe(false);
  expect(() => openControlDatabase(tenant, { create: false })).toThrow(/not a partner-api control database/);
  const control = join(dir, "control.sqlite");
  ControlStore.open(control, { create: true }).close();
  expect(() => openExistingDatabase(control)).toThrow(NotAPartnerDatabaseError);
});

test("backup copies the control database whole", () => {
  const dir = tempDir();
  const path = join(dir, "control.sqlite");
  const store = ControlStore.open(path, { create: true });
  store.insertAdmin({
    email: "owner@example.com",
    role: "owner",
    databases: [],
    status: "pending",
    setupTokenHash: "h",
    setupExpiresAt: 5,
    createdAt: 1,
  });
  const out = join(dir, "copy.sqlite");
  backupDatabase(path, out);
  store.close();
  const copy = ControlStore.open(out, { create: false });
  expect(copy.adminByEmail("OWNER@example.com")?.role).toBe("owner");
  copy.close();
});
