// Shared by the inbound endpoint's tests: clients that take portal leads, a poster with Basic
// auth, and a reading of the database file of our own (our SQL, not the server's).
import { Database } from "bun:sqlite";
import { hashSecret } from "../../../src/security/secrets.ts";
import { client } from "../../helpers/app.ts";

export const ZAP_PASSWORD = "zap-secret-chosen-in-canal-pro-7Hq2";
export const CNM_USER = "contato@imobiliaria.example";
export const CNM_PASSWORD = "cnm-token-4f9a1c";

/** A Grupo ZAP client: the fixed user `vivareal`, the secret the agency chose. */
export const zap = client("zap", {
  scopes: undefined,
  inbound: { format: "grupozap", username: "vivareal", passwordHash: hashSecret(ZAP_PASSWORD) },
});
/** A Chaves na Mão client: no user required, its token as the password. */
export const cnm = client("cnm", {
  scopes: undefined,
  inbound: { format: "chavesnamao", passwordHash: hashSecret(CNM_PASSWORD) },
});
/** The agency's CRM: reads every lead, takes none from portals. */
export const crm = client("crm", { scopes: ["leads:read", "leads:update", "webhooks", "properties:read"] });

export const basicAuth = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
export const ZAP_AUTH = basicAuth("vivareal", ZAP_PASSWORD);
export const CNM_AUTH = basicAuth(CNM_USER, CNM_PASSWORD);

/** What a stored lead holds, read with our own SQL. */
export interface StoredLead {
  id: string;
  name: string;
  email: string;
  phone: string;
  message: string;
  source: string;
  status: string;
  priority: string;
  property_id: string | null;
  interested_property_title: string | null;
  interested_property_link: string | null;
  traffic_origin: string | null;
  created_at: string;
  created_by: string | null;
  origin_lead_id: string | null;
}

/** An independent look at the database file: a connection of its own, read-only. */
export class DatabaseFile {
  readonly db: Database;
  constructor(path: string) {
    this.db = new Database(path, { readonly: true });
  }
  lead(id: string): StoredLead | null {
    return this.db.query("SELECT * FROM leads WHERE id = ?").get(id) as StoredLead | null;
  }
  leadsWithOrigin(createdBy: string, originLeadId: string): StoredLead[] {
    return this.db
      .query("SELECT * FROM leads WHERE created_by = ? AND origin_lead_id = ?")
      .all(createdBy, originLeadId) as StoredLead[];
  }
  count(): number {
    return (this.db.query("SELECT count(*) AS n FROM leads").get() as { n: number }).n;
  }
  publishedProperty(offset = 0): { id: string; code: string; title: string } {
    return this.db
      .query(
        "SELECT id, code, title FROM properties WHERE is_published = 1 AND code IS NOT NULL ORDER BY id LIMIT 1 OFFSET ?",
      )
      .get(offset) as {
      id: string;
      code: string;
      title: string;
    };
  }
  unpublishedProperty(): { id: string; code: string } | null {
    return this.db
      .query("SELECT id, code FROM properties WHERE is_published = 0 AND code IS NOT NULL LIMIT 1")
      .get() as { id: string; code: string } | null;
  }
  close(): void {
    this.db.close();
  }
}
