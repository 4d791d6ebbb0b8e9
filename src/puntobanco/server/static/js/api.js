// REST calls to the server (docs/api.md). Errors come back as ApiError with the server's code and
// its message, already in the player's language.

import { lang, t } from "./i18n.js";

// Each page keeps its own sign-in (issue 18): the player's table under "pb.token", the dealer's
// page under its own key (setTokenKey), the operator console in op-api.js; a sign-in on one
// page never opens another.
let tokenKey = "pb.token";

/** The storage key of this page's session token (the dealer's page sets its own). */
export function setTokenKey(key) { tokenKey = key; }

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export function getToken() {
  return localStorage.getItem(tokenKey);
}

export function setToken(token) {
  if (token) localStorage.setItem(tokenKey, token);
  else localStorage.removeItem(tokenKey);
}

/** A random UUID, also where crypto.randomUUID is missing (plain http on a LAN address). */
export function uuid() {
  if (crypto.randomUUID) return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

function errorFrom(status, data, fallback) {
  if (data && data.error) return new ApiError(status, data.error.code, data.error.message);
  if (data && Array.isArray(data.detail) && data.detail.length) {
    return new ApiError(status, "bad-request", data.detail.map((d) => d.msg).join("; "));
  }
  if (data && typeof data.detail === "string") return new ApiError(status, "bad-request", data.detail);
  return new ApiError(status, `http-${status}`, fallback);
}

export async function request(method, path, body) {
  const headers = { Accept: "application/json", "Accept-Language": lang() };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const token = getToken();
  if (token) headers.Authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(path, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    // Never "Failed to fetch": the player's language says the server cannot be reached.
    throw new ApiError(0, "network", t("ui.offline"));
  }
  let data = null;
  const text = await response.text();
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!response.ok) throw errorFrom(response.status, data, response.statusText || text);
  return data;
}

export const signup = (username, password, language) =>
  request("POST", "/api/signup", { username, password, lang: language });
export const login = (username, password) => request("POST", "/api/login", { username, password });
export const logout = () => request("POST", "/api/logout");
export const me = () => request("GET", "/api/me");
export const setMyLang = (language) => request("PATCH", "/api/me", { lang: language });
export const words = () => request("GET", "/api/words");
export const tables = () => request("GET", "/api/tables");
export const table = (id) => request("GET", `/api/tables/${id}`);
// Bets go on the table's WebSocket while it is up (issue 21, docs/api.md "Bets on the socket"):
// the same body, its idempotency key as the message's key; a refusal is the same ApiError. If
// the socket goes away before the answer, the same bet (same key) goes over HTTP: a bet the
// socket had placed is answered as placed, never placed twice.
let betSocket = null;

/** The TableSocket bets go on (ws.js sets it when its socket is up; null: HTTP). */
export function setBetSocket(socket, unless = undefined) {
  if (unless === undefined || betSocket === unless) betSocket = socket;
}

function sendBet(tableId, path, body) {
  const socket = betSocket;
  if (!socket || !socket.isUp() || String(socket.tableId) !== String(tableId)) {
    return request("POST", path, body);
  }
  const { idempotency_key: key, ...rest } = body;
  return socket.bet({ type: "bet", key, ...rest }).catch((error) => {
    if (error instanceof ApiError) throw error;
    return request("POST", path, body);
  });
}

// coupId: the coup the player saw open; a bet for a coup already closed is refused, never moved
export const placeBet = (tableId, bet, stake, coupId = null) =>
  sendBet(tableId, `/api/tables/${tableId}/bets`,
    { bet, stake, idempotency_key: uuid(), ...(coupId === null ? {} : { coup_id: coupId }) });
/** Several stakes at once, all or nothing ({bet: cents}): the repeat and double buttons. */
export const placeBets = (tableId, bets, coupId = null) =>
  sendBet(tableId, `/api/tables/${tableId}/bets/batch`,
    { bets, idempotency_key: uuid(), ...(coupId === null ? {} : { coup_id: coupId }) });
export const withdrawBet = (tableId, bet) =>
  request("DELETE", `/api/tables/${tableId}/bets/${encodeURIComponent(bet)}`);
export const myCoups = (limit = 20) => request("GET", `/api/me/coups?limit=${limit}`);
export const coup = (id) => request("GET", `/api/coups/${id}`);
export const shoe = (id) => request("GET", `/api/shoes/${id}`);
