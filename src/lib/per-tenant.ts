// A value per open database, made on first use and dropped with the tenant.
import type { Tenant } from "../db/tenants.ts";

/** One `create(tenant)` per tenant, made on first use: statements are prepared once per connection. */
export function perTenant<T>(create: (tenant: Tenant) => T): (tenant: Tenant) => T {
  const made = new WeakMap<Tenant, T>();
  return (tenant) => {
    let value = made.get(tenant);
    if (value === undefined) {
      value = create(tenant);
      made.set(tenant, value);
    }
    return value;
  };
}
