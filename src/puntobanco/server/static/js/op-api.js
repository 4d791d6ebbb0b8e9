// The operator console's calls to the server (docs/api.md, docs/operator.md). The console keeps
// its own session (sessionStorage), apart from a player's on the table's page.

const TOKEN_KEY = "pb.operator.token";

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export const getToken = () => sessionStorage.getItem(TOKEN_KEY);
export function setToken(token) {
  if (token) sessionStorage.setItem(TOKEN_KEY, token);
  else sessionStorage.removeItem(TOKEN_KEY);
}

let currentLang = "fr";
export function setApiLang(lang) { currentLang = lang; }

/** A fresh idempotency key: one per click of a money action, so a retried request credits once.
 * (crypto.getRandomValues, not randomUUID: the console may be served over plain http.) */
export function newKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function send(method, path, body, accept = "application/json", extra = {}) {
  const headers = { Accept: accept, "Accept-Language": currentLang, ...extra };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiError(0, "network", String(err.message || err));
  }
  if (!response.ok) {
    let data = null;
    try { data = await response.json(); } catch { data = null; }
    if (data && data.error) throw new ApiError(response.status, data.error.code, data.error.message);
    throw new ApiError(response.status, `http-${response.status}`, response.statusText);
  }
  return response;
}

export async function request(method, path, body, extra = {}) {
  const response = await send(method, path, body, "application/json", extra);
  const text = await response.text();
  return text ? JSON.parse(text) : null;
}

/** A CSV report as a Blob (the download needs the session's Authorization header). */
export async function download(path) {
  const response = await send("GET", path, undefined, "text/csv");
  return response.blob();
}

const q = (params) => {
  const parts = Object.entries(params).filter(([, v]) => v !== undefined && v !== null && v !== "")
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
  return parts.length ? `?${parts.join("&")}` : "";
};

export const login = (username, password) => request("POST", "/api/login", { username, password });
export const logout = () => request("POST", "/api/logout");
export const me = () => request("GET", "/api/me");
export const liveTables = () => request("GET", "/api/operator/tables");
// the process's database and disk (issue 22); a 503 still carries the same JSON
export const health = () => fetch("/healthz", { cache: "no-store" }).then((answer) => answer.json());
export const tables = () => request("GET", "/api/tables");
export const createTable = (name, rules, dealing = "server") =>
  request("POST", "/api/tables", { name, rules, dealing });
export const patchTable = (id, change) => request("PATCH", `/api/tables/${id}`, change);
export const pauseTable = (id, paused) =>
  request("POST", `/api/tables/${id}/${paused ? "pause" : "resume"}`);
export const players = (search) => request("GET", `/api/players${q({ q: search })}`);
export const credit = (id, amount, key = newKey()) =>
  request("POST", `/api/players/${id}/credit`, { amount }, { "Idempotency-Key": key });
export const suspend = (id, suspended) =>
  request("POST", `/api/players/${id}/${suspended ? "suspend" : "unsuspend"}`);
export const history = (id) => request("GET", `/api/players/${id}/history?limit=50`);
export const tablesReport = (from, to) => request("GET", `/api/reports/tables${q({ from, to })}`);
export const tableReport = (id, from, to) =>
  request("GET", `/api/reports/tables/${id}${q({ from, to })}`);
export const reportCsvPath = (id, from, to) =>
  `/api/reports/tables${id ? `/${id}` : ""}${q({ from, to, format: "csv" })}`;
export const playersReport = (from, to) => request("GET", `/api/reports/players${q({ from, to })}`);
export const playersCsvPath = (from, to) => `/api/reports/players${q({ from, to, format: "csv" })}`;
export const auditLog = (params) => request("GET", `/api/audit${q(params)}`);
export const dealers = () => request("GET", "/api/dealers");
export const createDealer = (username, password, lang) =>
  request("POST", "/api/dealers", { username, password, lang });
export const assignTables = (id, tables) => request("PUT", `/api/dealers/${id}/tables`, { tables });
