// The API client: same origin only, the key in an Authorization header (never in a URL).
const KEY = "logpipe.apiKey";
let key = null;
let onUnauthorized = () => {};

export function storedKey() {
  key = sessionStorage.getItem(KEY);
  return key;
}
export function setKey(k) {
  key = k;
  if (k) sessionStorage.setItem(KEY, k);
  else sessionStorage.removeItem(KEY);
}
export function authHeader() {
  return "Bearer " + key;
}
/** What to do when the server refuses the key (401): the page signs out. */
export function whenUnauthorized(fn) {
  onUnauthorized = fn;
}

export class ApiError extends Error {
  constructor(status, body, retryAfter) {
    super(errorMessage(body) || "HTTP " + status);
    this.status = status;
    this.body = body;
    this.retryAfter = retryAfter;
  }
}

/** The message of an error body, whichever of its shapes ({"error":".."}, {"error":{"message":..}}, {"message":..}). */
export function errorMessage(b) {
  if (!b) return "";
  if (typeof b.error === "string") return b.error;
  if (b.error && typeof b.error.message === "string") return b.error.message;
  return b.message || "";
}

/** The offset in the query an error points at (0-based), or null. */
export function errorPosition(b) {
  if (!b) return null;
  const p = b.position ?? (b.error && b.error.position);
  if (typeof p === "number") return p;
  if (p && typeof p.offset === "number") return p.offset;
  if (p && typeof p.column === "number") return Math.max(0, p.column - 1);
  return null;
}

// One URL path segment from data (a record id, a field name): always encoded; "." and ".." are path steps that
// every URL parser resolves, even encoded, so they can never name a segment (ids are checked at ingest for that).
export function segment(s) {
  s = String(s);
  if (s === "." || s === "..") throw new Error(JSON.stringify(s) + " cannot be part of a URL");
  return encodeURIComponent(s);
}

// What a 429 means, by its reason (docs/query.md, Errors): each is a different wait, so say which one it was
export function refusedFor(b, retryAfter) {
  const reason = b && b.reason;
  const retry = "retry in " + (retryAfter || "a few") + " s.";
  switch (reason) {
    case "tenant_concurrency":
      return "Too many queries at once for this tenant; " + retry;
    case "tenant_answer_memory":
      return "This tenant's answers in flight hold all the memory it may use for answers; " + retry +
        " A shorter range or a narrower query needs less.";
    case "auth_failures":
      return "Too many failed sign-ins from this address; " + retry;
    case "tail_tenant_cap":
      return "This tenant has as many live tails open as it may (another tab or user?); close one, or " + retry;
    case "tail_cap":
      return "The server has as many live tails open as it may; " + retry;
    default:
      return "The server refused for now" + (reason ? " (" + reason + ")" : "") + "; " + retry;
  }
}

/** A URL of this origin with the non-empty parameters set. */
export function apiUrl(path, params, origin) {
  const url = new URL(path, origin);
  for (const [k, v] of Object.entries(params || {})) {
    if (v !== undefined && v !== null && v !== "") url.searchParams.set(k, v);
  }
  return url;
}

export async function api(path, params, opts) {
  const headers = Object.assign({ Authorization: authHeader(), Accept: "application/json" }, opts && opts.headers);
  const res = await fetch(apiUrl(path, params, location.origin), Object.assign({}, opts, { headers }));
  let body;
  const text = await res.text();
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = { error: text };
  }
  if (res.status === 401) {
    onUnauthorized("Your key was refused (401). Sign in again.");
    throw new ApiError(401, body);
  }
  if (!res.ok) throw new ApiError(res.status, body, res.headers.get("Retry-After"));
  return body;
}

/** Which tenant a key signs in to, or an Error saying why not. */
export async function whoami(candidate) {
  const res = await fetch("/api/v1/whoami", { headers: { Authorization: "Bearer " + candidate } });
  if (res.status !== 200) {
    const b = await res.json().catch(() => ({}));
    throw new Error(res.status === 401 ? "This key was refused." :
      (errorMessage(b) || "Sign-in failed (HTTP " + res.status + ")."));
  }
  return res.json();
}
