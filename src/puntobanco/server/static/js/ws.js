// The table's WebSocket (docs/api.md): JSON messages {type, ...}, the first a snapshot. It
// reconnects by itself (each reconnection starts with a fresh snapshot) and pings to stay alive.

export class TableSocket {
  constructor(tableId, token, { onMessage, onStatus }) {
    this.tableId = tableId;
    this.token = token;
    this.onMessage = onMessage;
    this.onStatus = onStatus || (() => {});
    this.socket = null;
    this.closed = false;
    this.retry = 0;
    this.pingTimer = null;
    this.retryTimer = null;
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    return `${scheme}://${location.host}/ws/tables/${this.tableId}?token=${encodeURIComponent(this.token)}`;
  }

  connect() {
    this.closed = false;
    const socket = new WebSocket(this.url());
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.retry = 0;
      this.onStatus("open");
      clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => this.send({ type: "ping" }), 20000);
    });
    socket.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.type !== "pong") this.onMessage(message);
    });
    socket.addEventListener("close", (event) => {
      clearInterval(this.pingTimer);
      if (this.socket !== socket || this.closed) return;
      // 4401: the token was refused, 4404: no such table; a retry would be refused too.
      if ([4401, 4403, 4404, 1008].includes(event.code)) {
        this.onStatus("unauthorized");
        return;
      }
      this.onStatus("reconnecting");
      const delay = Math.min(8000, 500 * 2 ** this.retry);
      this.retry += 1;
      this.retryTimer = setTimeout(() => this.connect(), delay);
    });
  }

  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(message));
    }
  }

  close() {
    this.closed = true;
    clearInterval(this.pingTimer);
    clearTimeout(this.retryTimer);
    if (this.socket) this.socket.close();
    this.socket = null;
  }
}
