// Talking to a running product from the runner: tokens, the values a scenario needs (a real
// propertyType, the change feed's head, a mid-range date), responses captured for the
// ceiling, and single-request timings for cold and warm latency.

export const API_KEY = "pk_sandbox_demo";
export const API_SECRET = "sk_sandbox_demo";

export interface Captured {
  method: "GET" | "POST";
  path: string;
  status: number;
  headers: Record<string, string>;
  body: string;
}

export async function issueToken(base: string, key = API_KEY, secret = API_SECRET): Promise<string> {
  const response = await fetch(`${base}/v1/auth/token`, {
    method: "POST",
    headers: { "X-API-Key": key, "X-API-Secret": secret },
  });
  const json = (await response.json()) as { data?: { token?: string } };
  if (response.status !== 200 || typeof json.data?.token !== "string")
    throw new Error(`token request answered ${response.status}`);
  return json.data.token;
}

export async function getJson<T>(base: string, token: string, path: string): Promise<T> {
  const response = await fetch(base + path, { headers: { Authorization: `Bearer ${token}` } });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${text.slice(0, 200)}`);
  return JSON.parse(text) as T;
}

let leadCounter = 0;

/** A lead like the ones wrk posts; each one moves the database's generation. */
export function leadBody(): string {
  leadCounter++;
  const id = `runner-${process.pid}-${leadCounter}`;
  return JSON.stringify({
    name: `Bench Lead ${id}`,
    email: `bench.${id}@example.com`,
    phone: "+55 11 91234-5678",
    message: `Tenho interesse no imovel. Ref ${id}`,
  });
}

export async function postLead(base: string, token: string): Promise<Response> {
  const response = await fetch(`${base}/v1/leads`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: leadBody(),
  });
  await response.arrayBuffer();
  if (response.status !== 201) throw new Error(`POST /v1/leads answered ${response.status}`);
  return response;
}

/** Headers Bun.serve writes itself; the ceiling must not send them twice. */
const TRANSPORT_HEADERS = new Set(["date", "content-length", "connection", "keep-alive", "transfer-encoding"]);

/** One real response of the product, kept whole so the ceiling can answer with the same bytes. */
export async function capture(base: string, token: string, method: "GET" | "POST", path: string): Promise<Captured> {
  const init: RequestInit =
    method === "POST" && path === "/v1/auth/token"
      ? { method, headers: { "X-API-Key": API_KEY, "X-API-Secret": API_SECRET } }
      : method === "POST"
        ? {
            method,
            headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
            body: leadBody(),
          }
        : { method, headers: { Authorization: `Bearer ${token}` } };
  const response = await fetch(base + path, init);
  const body = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${body.slice(0, 200)}`);
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!TRANSPORT_HEADERS.has(name.toLowerCase())) headers[name] = value;
  });
  return { method, path, status: response.status, headers, body };
}

/** Milliseconds for one GET, from sending to the last byte of the body. */
export async function timeGet(base: string, token: string, path: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(base + path, { headers: { Authorization: `Bearer ${token}` } });
  await response.arrayBuffer();
  const elapsed = performance.now() - started;
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
  return elapsed;
}
