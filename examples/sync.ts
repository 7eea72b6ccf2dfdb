// A partner's sync loop against the sandbox: a full read by pages, then the change feed.
// Run: `bun run sandbox` in one terminal, then `bun examples/sync.ts [BASE_URL]` in another.
// It keeps an in-memory copy of the published listings and prints what each step changed.

const FIELDS = "id,code,title,status,pricing,updatedAt";

export async function getToken(base: string): Promise<string> {
  const response = await fetch(`${base}/v1/auth/token`, {
    method: "POST",
    headers: { "X-API-Key": "pk_sandbox_demo", "X-API-Secret": "sk_sandbox_demo" },
  });
  if (!response.ok) throw new Error(`token: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { data: { token: string } }).data.token;
}

/** GET with the bearer token; waits Retry-After on 429 and tries again. */
async function get<T>(base: string, token: string, path: string): Promise<{ status: number; body: T }> {
  for (;;) {
    const response = await fetch(`${base}${path}`, { headers: { Authorization: `Bearer ${token}` } });
    if (response.status === 429) {
      await Bun.sleep(Number(response.headers.get("Retry-After") ?? "1") * 1000);
      continue;
    }
    return { status: response.status, body: (await response.json()) as T };
  }
}

interface Page {
  data: { id: string }[];
  meta: { page: number; totalPages: number };
}
interface Changes {
  data: { sequence: number; id: string; change: "upsert" | "remove" }[];
  meta: { nextAfter: number; hasMore: boolean; head: number };
}

export async function fullRead(base: string, token: string, copy: Map<string, unknown>): Promise<number> {
  // Note the feed's head first: everything after it is caught up by following the feed.
  const head = (await get<Changes>(base, token, "/v1/changes?entity=properties&limit=1")).body.meta.head;
  for (let page = 1; ; page++) {
    const { body } = await get<Page>(
      base,
      token,
      `/v1/properties?fields=${FIELDS}&sort=createdAt&limit=100&page=${page}`,
    );
    for (const listing of body.data) copy.set(listing.id, listing);
    if (page >= body.meta.totalPages) return head;
  }
}

export async function follow(base: string, token: string, copy: Map<string, unknown>, after: number): Promise<number> {
  let cursor = after;
  for (;;) {
    const { body } = await get<Changes>(base, token, `/v1/changes?entity=properties&after=${cursor}&limit=1000`);
    for (const event of body.data) {
      if (event.change === "remove") {
        copy.delete(event.id);
        continue;
      }
      const record = await get<{ data: unknown }>(base, token, `/v1/properties/${event.id}?fields=${FIELDS}`);
      if (record.status === 200) copy.set(event.id, record.body.data);
      else copy.delete(event.id); // taken down again since the event
    }
    cursor = body.meta.nextAfter; // store this durably in a real integration
    if (!body.meta.hasMore) return cursor;
  }
}

if (import.meta.main) {
  const base = process.argv[2] ?? "http://localhost:8080";
  const token = await getToken(base);
  const copy = new Map<string, unknown>();
  let cursor = await fullRead(base, token, copy);
  console.log(`full read: ${copy.size} published listings; following the feed from sequence ${cursor}`);
  cursor = await follow(base, token, copy, cursor);
  console.log(`caught up at sequence ${cursor}: ${copy.size} listings`);
}
