// One route of the admin API as its OpenAPI document (openapi.ts) lists it; the personal-data
// routes (privacy/openapi.ts) are listed the same way.

export interface AdminRouteDoc {
  method: "get" | "post" | "patch" | "delete";
  path: string;
  summary: string;
  /** Who may call it: "public" (set-up, sign-in), or the least role. */
  who: "public" | "viewer" | "admin" | "owner";
  body?: Record<string, unknown>;
  /** Query parameters, each with what it means. */
  query?: { name: string; description: string; required?: boolean }[];
  /** Answers beyond the success and the errors every route has: status → what it means. */
  errors?: Record<string, string>;
  status: number;
}
