// The dealer's page (docs/dealer.md): drives a hand-dealt table through the dealer API. The
// server says what the rules require at each step and refuses, in one sentence, what they do
// not allow; the page shows both, the hands, the betting state and the shoe.

import { ApiError, getToken, login, logout, me, request, setToken, setTokenKey } from "./api.js";
import { cardElement } from "./cards.js";
import { DEALER_WORDS } from "./dealer-words.js";
import { guessLanguage, lang, setLang } from "./i18n.js";
import { TableSocket } from "./ws.js";

setTokenKey("pb.dealer.token"); // this page's own sign-in, apart from the player's (issue 18)
/** The roles this page opens for: a dealer, or the operator (who may drive any such table). */
const DESK_ROLES = ["dealer", "operator"];

const $ = (id) => document.getElementById(id);
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SUITS = [["S", "♠"], ["H", "♥"], ["D", "♦"], ["C", "♣"]];
const BETS = ["punto", "banco", "egalite", "lion-punto", "lion-banco"];

let tableId = null;
let state = null;
let socket = null;
let pickedRank = null;
let refreshTimer = null;

const w = (key) => (DEALER_WORDS[lang()] || DEALER_WORDS.en)[key] ?? key;

function translate() {
  for (const el of document.querySelectorAll("[data-d]")) el.textContent = w(el.dataset.d);
  for (const el of document.querySelectorAll("[data-d-placeholder]")) {
    el.placeholder = w(el.dataset.dPlaceholder);
  }
  for (const button of document.querySelectorAll(".langs button")) {
    button.classList.toggle("active", button.dataset.lang === lang());
  }
  document.title = `Punto Banco 2000 · ${w("title")}`;
}

function showRefusal(text) {
  const box = $("refusal");
  box.textContent = text || "";
  box.hidden = !text;
}

const api = (method, path, body) => request(method, `${path}?lang=${lang()}`, body);

async function act(action, body = {}) {
  if (tableId === null) return;
  try {
    state = await api("POST", `/api/tables/${tableId}/dealer/${action}`, body);
    showRefusal("");
    render();
  } catch (err) {
    showRefusal(err instanceof ApiError ? err.message : String(err));
    if (err instanceof ApiError && err.status === 401) signOut();
  }
  $("card-input").focus();
}

async function refresh() {
  if (tableId === null) return;
  try {
    state = await api("GET", `/api/tables/${tableId}/dealer`);
    render();
  } catch (err) {
    showRefusal(err instanceof ApiError ? err.message : String(err));
  }
}

function refreshSoon() {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(refresh, 80);
}

function hint() {
  if (!state.shoe) return w("hint.no_shoe");
  if (state.shoe.finished && !["open", "closed"].includes(state.phase)) return w("hint.finished");
  if (state.phase === "open") return w("hint.open");
  return w("hint.between");
}

function render() {
  if (!state) return;
  $("table-name").textContent = state.name;
  const phase = $("phase");
  phase.dataset.phase = state.phase;
  phase.textContent = w(`phase.${state.phase}`);
  $("step").textContent = state.step ? state.step.text : hint();
  $("step").dataset.reason = state.step ? state.step.reason : "";
  for (const side of ["punto", "banco"]) {
    const hand = state.hands[side];
    $(`${side}-cards`).replaceChildren(...hand.cards.map((code) => cardElement(code)));
    $(`${side}-total`).textContent = hand.total === null ? "" : String(hand.total);
    const next = state.step && !state.step.complete && state.step.side === side;
    document.querySelector(`.hand[data-side="${side}"]`).dataset.next = next ? "true" : "false";
  }
  for (const button of document.querySelectorAll("[data-act]")) {
    const key = button.dataset.act.replace("-", "_").replace("shoe", "new_shoe");
    button.disabled = !state.can[key];
  }
  // Cards are typed while the coup is dealt; one the rules do not call for is refused by the
  // server, in the dealer's language — also one typed while betting is open (it says why).
  const canType = ["open", "closed"].includes(state.phase);
  $("enter-card").disabled = !canType;
  for (const b of document.querySelectorAll(".pad button")) b.disabled = !canType;
  const shoe = state.shoe;
  $("shoe-no").textContent = shoe ? `#${shoe.shoe_no} (${shoe.decks} × 52)` : "—";
  $("coup-no").textContent = state.coup_in_shoe ? String(state.coup_in_shoe) : "—";
  $("cards-left").textContent = shoe ? String(shoe.cards_left) : "—";
  $("spots").textContent = String(state.spots);
  const flags = [];
  if (shoe && shoe.cut_card_out) flags.push(w("flag.cut"));
  if (shoe && shoe.last_coup) flags.push(w("flag.last"));
  if (shoe && shoe.finished) flags.push(w("flag.finished"));
  $("flags").textContent = flags.join(" · ") || "—";
  $("bets").replaceChildren(...BETS.map((bet) => {
    const row = document.createElement("tr");
    const name = document.createElement("td");
    name.textContent = w(`bet.${bet}`);
    const amount = document.createElement("td");
    amount.textContent = ((state.totals[bet] || 0) / 100).toLocaleString(lang(), {
      style: "currency", currency: "EUR" });
    row.append(name, amount);
    return row;
  }));
}

function submitCard(text) {
  const code = String(text).trim();
  if (!code) return;  // a text that is not a card is refused by the server, in its words
  const correcting = $("correcting").checked;
  $("card-input").value = "";
  if (correcting) {
    $("correcting").checked = false;
    act("correction", { card: code });
  } else {
    act("cards", { card: code });
  }
}

function buildPads() {
  $("ranks").replaceChildren(...RANKS.map((rank) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = rank;
    b.dataset.rank = rank;
    b.setAttribute("aria-pressed", "false");
    b.addEventListener("click", () => {
      pickedRank = rank;
      for (const other of $("ranks").children) {
        other.setAttribute("aria-pressed", other === b ? "true" : "false");
      }
    });
    return b;
  }));
  $("suits").replaceChildren(...SUITS.map(([code, symbol]) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = symbol;
    b.dataset.suit = code;
    b.setAttribute("aria-label", code);
    if (code === "H" || code === "D") b.classList.add("red");
    b.addEventListener("click", () => {
      if (!pickedRank) return;
      const text = `${pickedRank}${code}`;
      pickedRank = null;
      for (const other of $("ranks").children) other.setAttribute("aria-pressed", "false");
      submitCard(text);
    });
    return b;
  }));
}

function wire() {
  $("card-form").addEventListener("submit", (event) => {
    event.preventDefault();
    submitCard($("card-input").value);
  });
  for (const button of document.querySelectorAll("[data-act]")) {
    button.addEventListener("click", () => {
      const action = button.dataset.act;
      // a new shoe and a misdeal cannot be undone: the page asks first
      if ((action === "shoe" || action === "misdeal") && !window.confirm(w(`confirm.${action}`))) return;
      if (action === "shoe") act("shoe", { decks: Number($("decks").value) });
      else if (action === "burn") {
        const cards = $("burn-cards").value.split(/[\s,]+/).filter(Boolean);
        act("burn", { cards, count: Number($("burn-count").value || 0) });
        $("burn-cards").value = "";
        $("burn-count").value = "0";
      } else act(action);
    });
  }
  // Typing a card anywhere on the page goes to the card field (a dealer's hands stay on the keys).
  document.addEventListener("keydown", (event) => {
    const target = event.target;
    if (event.ctrlKey || event.metaKey || event.altKey || event.key.length !== 1) return;
    if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement) return;
    if (/^[0-9atjqkshdc]$/i.test(event.key) && !$("desk").hidden) $("card-input").focus();
  });
  $("correcting").addEventListener("change", () => { render(); $("card-input").focus(); });
  for (const button of document.querySelectorAll(".langs button")) {
    button.addEventListener("click", () => { setLang(button.dataset.lang); translate(); refresh(); });
  }
  $("logout").addEventListener("click", () => signOut());
  $("table-select").addEventListener("change", () => choose(Number($("table-select").value)));
  $("auth-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const answer = await login($("auth-username").value, $("auth-password").value);
      setToken(answer.token);
      if (!DESK_ROLES.includes(answer.player.role)) {
        await signOut(w("wrong_role"));
        return;
      }
      await start();
    } catch (err) {
      $("auth-error").textContent = err instanceof ApiError ? err.message : String(err);
      $("auth-error").hidden = false;
    }
  });
}

/** Sign out: the session ends on the server too (POST /api/logout), then the desk closes and the
 * sign-in form shows, with ``reason`` when there is one (a token of the wrong role). */
async function signOut(reason = "") {
  if (getToken()) {
    try {
      await logout();
    } catch {
      // an ended or unknown session: the token is dropped either way
    }
  }
  setToken(null);
  $("auth-error").textContent = reason;
  $("auth-error").hidden = !reason;
  if (socket) socket.close();
  socket = null;
  $("desk").hidden = true;
  $("user-box").hidden = true;
  $("auth").hidden = false;
}

function choose(id) {
  tableId = id;
  if (socket) socket.close();
  // Every message of the table (live/messages.py) redraws this page from the dealer state:
  // none is left unhandled (tests/server/test_message_clients.py).
  socket = new TableSocket(id, getToken(), { onMessage: refreshSoon });
  socket.connect();
  refresh();
}

async function start() {
  let who;
  try {
    who = await me();
  } catch {
    await signOut();
    return;
  }
  if (!DESK_ROLES.includes(who.role)) {
    await signOut(w("wrong_role"));
    return;
  }
  // the dealer account's language, unless the address asks for another (?lang=)
  if (!new URLSearchParams(location.search).get("lang") && who.lang) {
    setLang(who.lang);
    translate();
  }
  $("auth").hidden = true;
  $("user-box").hidden = false;
  $("username").textContent = who.username;
  $("desk").hidden = false;
  const tables = await request("GET", "/api/dealer/tables");
  $("no-tables").hidden = tables.length > 0;
  const select = $("table-select");
  select.replaceChildren(...tables.map((t) => {
    const option = document.createElement("option");
    option.value = String(t.id);
    option.textContent = t.name;
    return option;
  }));
  select.hidden = tables.length < 2;
  const wanted = Number(new URLSearchParams(location.search).get("table"));
  const first = tables.find((t) => t.id === wanted) || tables[0];
  if (first) {
    select.value = String(first.id);
    choose(first.id);
  }
  $("card-input").focus();
}

setLang(new URLSearchParams(location.search).get("lang") || guessLanguage());
translate();
buildPads();
wire();
if (getToken()) start();
else signOut();
