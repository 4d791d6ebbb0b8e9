// The first requests of the page, sent as soon as this small module is loaded (an async module
// script: it does not wait for the rest of the page's modules): the words, the table list and,
// when a token is kept, the player. main.js takes them when it starts instead of asking again,
// so on a slow line their round trip overlaps the loading of the other modules. A signed-in
// player's last table's WebSocket is opened here too (its snapshot waits, kept, for ws.js).

import * as api from "./api.js";

const quiet = (promise) => {
  promise.catch(() => {}); // a failure is met where the answer is used
  return promise;
};

/** A WebSocket opened before the page's code is ready; its messages are kept until ws.js takes
 * the socket (TableSocket's `early` option) or the page opens another table. */
function openSocket(tableId, token) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  let socket;
  try {
    socket = new WebSocket(`${scheme}://${location.host}/ws/tables/${tableId}?token=${encodeURIComponent(token)}`);
  } catch {
    return null;
  }
  const held = { tableId: String(tableId), token, socket, messages: [] };
  const keep = (event) => held.messages.push(event);
  socket.addEventListener("message", keep);
  held.release = () => socket.removeEventListener("message", keep);
  return held;
}

const token = api.getToken();
const lastTable = localStorage.getItem("pb.table");

export const early = {
  words: quiet(api.words()),
  tables: quiet(api.tables()),
  me: token ? quiet(api.me()) : null,
  socket: token && lastTable ? openSocket(lastTable, token) : null,
};
