// The REST client: JSON in and out, the bearer token when one is set, and every non-2xx answer
// (application/problem+json) turned into an ApiError carrying the daemon's "errors" list.

export class ApiError extends Error {
  /** status 0 means the daemon could not be reached at all. */
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.title = problem.title || "";
    this.detail = problem.detail || "";
    this.errors = Array.isArray(problem.errors) ? problem.errors : [];
  }
}

const TIMEOUT_MS = 15000; // a request the daemon leaves unanswered this long fails (status 0)
const TEXT_TIMEOUT_MS = 120000; // a recording can be hundreds of megabytes

/** getToken() is asked before every request, so a new token applies at once. */
export function createApi(getToken, base = "") {
  // accept: a media type wanted instead of JSON, whose body comes back as text
  async function request(method, path, body, accept) {
    const headers = { Accept: `${accept || "application/json"}, application/problem+json` };
    const timeout = accept ? TEXT_TIMEOUT_MS : TIMEOUT_MS;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const token = getToken();
    if (token) headers.Authorization = `Bearer ${token}`;
    let r;
    try {
      r = await fetch(base + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: "no-store",
        signal: AbortSignal.timeout(timeout),
      });
    } catch (e) {
      const timedOut = e?.name === "TimeoutError";
      throw new ApiError(0, {
        title: timedOut ? "The daemon did not answer" : "The daemon cannot be reached",
        detail: timedOut ? `${method} ${path}: no answer in ${timeout / 1000} s` : String(e?.message || e),
      });
    }
    if (r.status === 204) return null;
    const text = await r.text();
    if (accept && r.ok) return text;
    let json = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text for the error below
    }
    if (!r.ok) {
      const problem = json && typeof json === "object" ? json : { title: `HTTP ${r.status}`, detail: text.slice(0, 200) };
      throw new ApiError(r.status, problem);
    }
    return json;
  }
  return {
    get: (path) => request("GET", path),
    /** The body as text, asked for as the media type accept (e.g. application/x-ndjson). */
    getText: (path, accept) => request("GET", path, undefined, accept),
    post: (path, body) => request("POST", path, body),
    put: (path, body) => request("PUT", path, body),
    patch: (path, body) => request("PATCH", path, body),
    del: (path) => request("DELETE", path),
  };
}

/** "/v1/sessions/ID" plus an optional suffix such as ":start" or "/actuators/LM1". */
export function sessionPath(id, suffix = "") {
  return `/v1/sessions/${encodeURIComponent(id)}${suffix}`;
}

/**
 * The stream URL the page may open: an https page cannot open a ws:// socket (mixed content),
 * and a daemon behind a TLS proxy that does not say so (no X-Forwarded-Proto) announces ws://
 * for what the proxy serves as wss://, on the same host and port.
 */
export function streamUrlForPage(url, pageProtocol) {
  return pageProtocol === "https:" && url.startsWith("ws://") ? `wss://${url.slice(5)}` : url;
}
