// What each use case of a new partner fills in (docs/operators/console.md): its scopes and its
// limit per minute, which the admin may change. "other" fills nothing: both are chosen by hand.
import { DEFAULT_SCOPES, type Scope } from "../../security/scopes.ts";

export const USE_CASES = ["portal", "website", "crm", "portal-leads", "other"] as const;
export type UseCase = (typeof USE_CASES)[number];

export interface Preset {
  scopes: readonly Scope[];
  rateLimitPerMinute: number;
  /** The partner posts leads with HTTP Basic credentials of its own (POST /v1/inbound/{id}). */
  inbound: boolean;
}

export const PRESETS: Readonly<Record<Exclude<UseCase, "other">, Preset>> = {
  portal: { scopes: DEFAULT_SCOPES, rateLimitPerMinute: 600, inbound: false },
  website: { scopes: ["properties:read", "leads:create", "leads:read:own"], rateLimitPerMinute: 300, inbound: false },
  crm: {
    scopes: ["properties:read", "leads:read", "leads:update", "webhooks"],
    rateLimitPerMinute: 1200,
    inbound: false,
  },
  "portal-leads": { scopes: ["leads:create"], rateLimitPerMinute: 120, inbound: true },
};

export function presetOf(useCase: UseCase): Preset | null {
  return useCase === "other" ? null : PRESETS[useCase];
}
