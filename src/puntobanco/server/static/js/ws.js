// The table's WebSocket (docs/api.md): JSON messages {type, ...}, the first a snapshot.
//
// Liveness: the page pings when the socket has been quiet for PING_MS and expects some message
// (a pong at least) within DEAD_MS; silence means the connection is gone even if the browser has not noticed (a cut
// network), so the socket is dropped and a new one is tried, with a growing delay (backoff with
// a little jitter). Each new connection starts with a fresh snapshot: the page resyncs from it.
// onStatus gets "open", "reconnecting" (with the delay in ms) or "unauthorized".

import { ApiError, setBetSocket } from "./api.js";

export const PING_MS = 2000;
// A bet sent on the socket with no answer in this time goes over HTTP (same key: never twice).
export const BET_ANSWER_MS = 5000;
export const DEAD_MS = 5000;
// Short and capped: the page is back within ~1.5 s of the server's return (issue 19); the jitter
// spreads a crowd of pages over the retry.
const BACKOFF_MS = [250, 500, 1000, 1200];

export class TableSocket {
  constructor(tableId, token, { onMessage, onStatus, early = null }) {
    this.tableId = tableId;
    this.token = token || "";
    this.onMessage = onMessage;
    this.onStatus = onStatus || (() => {});
    this.socket = null;
    this.closed = false;
    this.retry = 0;
    this.pingTimer = null;
    this.retryTimer = null;
    this.lastHeard = 0;
    this.up = false;
    // A socket early.js opened for this table before the page was ready (its messages kept).
    this.early = early;
    this.bets = new Map(); // key -> {resolve, reject, timer}: bets waiting for their answer
  }

  /** The early socket, if it is this table's and still usable (else it is closed). */
  takeEarly() {
    const held = this.early;
    this.early = null;
    if (!held) return null;
    if (held.tableId === String(this.tableId) && held.token === this.token && held.socket.readyState <= 1) {
      return held;
    }
    held.release();
    held.socket.close();
    return null;
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const query = this.token ? `?token=${encodeURIComponent(this.token)}` : "";
    return `${scheme}://${location.host}/ws/tables/${this.tableId}${query}`;
  }

  connect() {
    this.closed = false;
    clearTimeout(this.retryTimer);
    let socket;
    const held = this.takeEarly();
    try {
      socket = held ? held.socket : new WebSocket(this.url());
    } catch {
      this.lost(null);
      return;
    }
    this.socket = socket;
    const opened = () => {
      if (this.socket !== socket) return;
      this.lastHeard = Date.now();
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.check(socket), PING_MS);
    };
    socket.addEventListener("open", opened);
    const received = (event) => {
      if (this.socket !== socket) return;
      this.lastHeard = Date.now();
      if (!this.up) { // up once the server speaks (its snapshot), not when the socket opens
        this.up = true;
        this.retry = 0;
        this.onStatus("open");
        if (this.token) setBetSocket(this);
      }
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.type === "bet-accepted" || message.type === "bet-refused") {
        this.answered(message);
        return;
      }
      if (message.type !== "pong") this.onMessage(message);
    };
    socket.addEventListener("message", received);
    socket.addEventListener("close", (event) => {
      if (this.socket !== socket || this.closed) return;
      // 4401: the token was refused, 4404: no such table; a retry would be refused too.
      if ([4401, 4403, 4404, 1008].includes(event.code)) {
        clearInterval(this.pingTimer);
        this.up = false;
        this.dropBets();
        this.onStatus("unauthorized");
        return;
      }
      this.lost(socket);
    });
    if (held) { // what came before the page was ready, in order, then the live messages
      held.release();
      if (socket.readyState === WebSocket.OPEN) opened();
      for (const event of held.messages) received(event);
    }
  }

  /** Every PING_MS: give the socket up when nothing came for DEAD_MS, else ping if it has
   * been quiet (any message from the server proves it alive: a busy table needs no pings). */
  check(socket) {
    if (this.socket !== socket) return;
    const quiet = Date.now() - this.lastHeard;
    if (quiet > DEAD_MS) {
      this.lost(socket);
      return;
    }
    if (quiet >= PING_MS - 250) this.send({ type: "ping" });
  }

  lost(socket) {
    if (socket && this.socket !== socket) return;
    clearInterval(this.pingTimer);
    this.up = false;
    this.dropBets();
    this.socket = null;
    if (socket) {
      try {
        socket.close();
      } catch {
        // already closed
      }
    }
    if (this.closed) return;
    const base = BACKOFF_MS[Math.min(this.retry, BACKOFF_MS.length - 1)];
    const delay = Math.round(base * (0.85 + Math.random() * 0.3));
    this.retry += 1;
    this.onStatus("reconnecting", delay);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  /** Send a bet message ({type: "bet", key, ...}); resolves with the route's answer, rejects
   * with the ApiError of its refusal, or with a plain Error when the socket could not answer
   * (api.js then sends the same bet over HTTP). */
  bet(message) {
    return new Promise((resolve, reject) => {
      if (!this.up || !this.socket || this.socket.readyState !== WebSocket.OPEN) {
        reject(new Error("socket down"));
        return;
      }
      const timer = setTimeout(() => {
        this.bets.delete(message.key);
        reject(new Error("no answer"));
      }, BET_ANSWER_MS);
      this.bets.set(message.key, { resolve, reject, timer });
      this.socket.send(JSON.stringify(message));
    });
  }

  answered(message) {
    const waiting = this.bets.get(message.key);
    if (!waiting) return;
    this.bets.delete(message.key);
    clearTimeout(waiting.timer);
    if (message.type === "bet-accepted") waiting.resolve(message.answer);
    else waiting.reject(new ApiError(message.status, message.error.code, message.error.message));
  }

  dropBets() {
    setBetSocket(null, this);
    for (const waiting of this.bets.values()) {
      clearTimeout(waiting.timer);
      waiting.reject(new Error("socket lost"));
    }
    this.bets.clear();
  }

  /** Whether the table's socket is up (a click while it is down is explained, not sent). */
  isUp() {
    return this.up;
  }

  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(message));
    }
  }

  close() {
    this.closed = true;
    this.up = false;
    this.dropBets();
    clearInterval(this.pingTimer);
    clearTimeout(this.retryTimer);
    if (this.socket) this.socket.close();
    this.socket = null;
  }
}
