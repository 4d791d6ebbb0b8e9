// The page: sign-up and log-in, the table list, and one table followed live over its WebSocket.
// main.js keeps the state and routes server messages to the views (felt, payouts, roads, recall,
// shoe and fairness panels); the views draw, they do not decide.

import * as api from "./api.js";
import { verifyShoe, shortHash } from "./fair.js";
import { Felt } from "./felt.js";
import {
  LANGUAGES, guessLanguage, lang, onLangChange, pickLanguage, setLang, setServerWords, t,
  translatePage,
} from "./i18n.js";
import { formatCents } from "./money.js";
import { renderPayouts } from "./payouts.js";
import { renderRecall } from "./recall.js";
import { renderRoads } from "./roadview.js";
import { TableSocket } from "./ws.js";

const $ = (selector) => document.querySelector(selector);

const state = {
  player: null,
  tables: [],
  tableId: null,
  rules: null,
  phase: "idle",
  myBets: {},
  totals: {},
  roads: [],
  shoe: null,
  lastCoup: null,
  settlement: null,
  previousShoe: null,
  recall: [],
  socket: null,
  connection: "closed",
};

let felt = null;
let messageTimer = null;

// --- small views ---------------------------------------------------------------------------

function showMessage(text, kind = "error") {
  const box = $("#message");
  box.textContent = text;
  box.className = `message message-${kind}`;
  box.hidden = !text;
  clearTimeout(messageTimer);
  if (text) messageTimer = setTimeout(() => { box.hidden = true; }, 6000);
}

function renderBalance() {
  const node = $("#balance");
  const cents = state.player ? state.player.balance : null;
  node.textContent = cents === null ? "—" : formatCents(cents, lang());
  node.dataset.cents = cents === null ? "" : String(cents);
}

function setBalance(cents) {
  if (state.player && typeof cents === "number") {
    state.player.balance = cents;
    renderBalance();
  }
}

function renderLanguages() {
  for (const button of document.querySelectorAll("[data-lang]")) {
    const active = button.dataset.lang === lang();
    button.classList.toggle("active", active);
    button.setAttribute("aria-pressed", String(active));
  }
}

function renderShoe() {
  const root = $("#shoe-panel");
  const shoe = state.shoe;
  if (!shoe || !state.rules) {
    root.hidden = true;
    return;
  }
  root.hidden = false;
  const total = shoe.cards || state.rules.decks * 52;
  const used = total - shoe.cards_left;
  const cutIndex = shoe.cut_index ?? total - state.rules.cut_card;
  $("#shoe-title").textContent = `${t("shoe")} ${shoe.shoe_no}`;
  $("#shoe-coup").textContent = `${t("coup")} ${shoe.coups_dealt ?? 0}`;
  const left = $("#shoe-left");
  left.textContent = `${t("cards_left")} ${shoe.cards_left}`;
  left.dataset.cards = String(shoe.cards_left);
  $("#shoe-bar-fill").style.width = `${(100 * used) / total}%`;
  $("#shoe-bar-cut").style.left = `${(100 * cutIndex) / total}%`;
  $("#shoe-bar-cut").title = t("cut_card");
  const flags = [];
  if (shoe.cut_card_out) flags.push(t("cut_card"));
  if (shoe.last_coup) flags.push(t("last_coup"));
  $("#shoe-flags").textContent = flags.join(" · ");
}

function renderFair() {
  const shoe = state.shoe;
  const current = $("#fair-current");
  current.textContent = shoe ? shortHash(shoe.commitment) : "—";
  current.title = shoe ? shoe.commitment : "";
  current.dataset.commitment = shoe ? shoe.commitment : "";
  $("#fair-current-note").textContent = shoe ? `${t("shoe")} ${shoe.shoe_no} · ${t("ui.after_shoe")}` : "";
  const previous = state.previousShoe;
  const row = $("#fair-previous");
  row.hidden = !previous;
  if (!previous) return;
  row.dataset.shoe = String(previous.shoe_id);
  $("#fair-previous-label").textContent = `${t("shoe")} ${previous.shoe_no}`;
  const hash = $("#fair-previous-hash");
  hash.textContent = shortHash(previous.commitment);
  hash.title = previous.commitment;
  const verdict = $("#fair-verdict");
  if (!previous.result) {
    verdict.textContent = "…";
    verdict.className = "verdict";
  } else {
    verdict.textContent = previous.result.ok ? `✓ ${t("ui.verified")}` : `✗ ${t("ui.mismatch")}`;
    verdict.className = `verdict ${previous.result.ok ? "ok" : "bad"}`;
    verdict.title = `SHA-256 = ${previous.result.computed}`;
  }
}

function renderAll() {
  translatePage();
  renderLanguages();
  renderBalance();
  if (felt) {
    felt.translate(lang());
    felt.setBets(state.myBets, state.totals, state.phase === "open");
    if (state.lastCoup && ["dealt", "settled"].includes(state.phase)) felt.showResult(state.lastCoup);
    if (state.lastCoup && state.phase === "open") felt.showCoup(state.lastCoup, { dimmed: true });
  }
  renderRoads($("#roads"), state.roads);
  renderPayouts($("#payouts"), state.settlement, lang());
  renderRecall($("#recall"), state.recall, lang());
  renderShoe();
  renderFair();
  $("#username").textContent = state.player ? state.player.username : "";
  const select = $("#table-select");
  for (const option of select.options) {
    const table = state.tables.find((tb) => String(tb.id) === option.value);
    if (table) option.textContent = `${t("ui.table")} ${table.name}`;
  }
}

// --- log-in ----------------------------------------------------------------------------------

let authMode = "signup";

function showAuth() {
  $("#auth").hidden = false;
  $("#app").hidden = true;
  $("#user-box").hidden = true;
  setAuthMode(authMode);
  $("#auth-username").focus();
}

function setAuthMode(mode) {
  authMode = mode;
  const signup = mode === "signup";
  $("#auth-submit").dataset.w = signup ? "ui.signup" : "ui.login";
  $("#auth-title").dataset.w = signup ? "ui.signup" : "ui.login";
  $("#auth-switch-text").dataset.w = signup ? "ui.have_account" : "ui.no_account";
  $("#auth-switch").dataset.w = signup ? "ui.login" : "ui.signup";
  $("#auth-welcome").hidden = !signup;
  $("#auth-password").autocomplete = signup ? "new-password" : "current-password";
  translatePage($("#auth"));
}

async function submitAuth(event) {
  event.preventDefault();
  const username = $("#auth-username").value.trim();
  const password = $("#auth-password").value;
  const error = $("#auth-error");
  error.textContent = "";
  $("#auth-submit").disabled = true;
  try {
    const answer = authMode === "signup"
      ? await api.signup(username, password, lang()) : await api.login(username, password);
    api.setToken(answer.token);
    await enter(answer.player);
  } catch (err) {
    error.textContent = err.message;
  } finally {
    $("#auth-submit").disabled = false;
  }
}

async function enter(player) {
  state.player = player;
  if (player.lang && player.lang !== lang()) setLang(pickLanguage(player.lang));
  $("#auth").hidden = true;
  $("#app").hidden = false;
  $("#user-box").hidden = false;
  renderAll();
  await loadTables();
}

async function doLogout() {
  try {
    await api.logout();
  } catch {
    // the token is dropped either way
  }
  api.setToken(null);
  if (state.socket) state.socket.close();
  state.socket = null;
  state.player = null;
  renderBalance();
  showAuth();
}

// --- tables ----------------------------------------------------------------------------------

async function loadTables() {
  state.tables = await api.tables();
  const select = $("#table-select");
  select.replaceChildren();
  for (const table of state.tables) {
    const option = document.createElement("option");
    option.value = String(table.id);
    option.textContent = `${t("ui.table")} ${table.name}`;
    select.append(option);
  }
  select.hidden = state.tables.length < 2;
  const stored = localStorage.getItem("pb.table");
  const chosen = state.tables.find((tb) => String(tb.id) === stored) || state.tables[0];
  if (chosen) openTable(chosen.id);
}

function openTable(id) {
  if (state.socket) state.socket.close();
  state.tableId = id;
  localStorage.setItem("pb.table", String(id));
  $("#table-select").value = String(id);
  Object.assign(state, { phase: "idle", myBets: {}, totals: {}, roads: [], shoe: null, lastCoup: null,
    settlement: null, previousShoe: null });
  const table = state.tables.find((tb) => tb.id === id);
  if (table) applyRules(table.rules);
  $("#table-name").textContent = table ? table.name : "";
  state.socket = new TableSocket(id, api.getToken(), { onMessage: handle, onStatus: connectionStatus });
  state.socket.connect();
  refreshRecall();
}

function applyRules(rules) {
  state.rules = rules;
  felt.setRules(rules);
}

function connectionStatus(status) {
  state.connection = status;
  $("#connection").hidden = status === "open";
  $("#connection").textContent = status === "reconnecting" ? t("ui.reconnecting") : "";
  if (status === "unauthorized") {
    api.setToken(null);
    showAuth();
  }
}

async function refreshRecall() {
  try {
    state.recall = await api.myCoups(20);
  } catch {
    return;
  }
  renderRecall($("#recall"), state.recall, lang());
  // After a reload the payout panel shows the last coup's lines again, if it was the player's.
  const latest = state.recall[0];
  if (!state.settlement && latest && state.lastCoup && latest.id === state.lastCoup.id) {
    state.settlement = { coup_id: latest.id, lines: latest.settlement, shoe_no: latest.shoe_no,
      coup_in_shoe: latest.coup_in_shoe };
    renderPayouts($("#payouts"), state.settlement, lang());
  }
}

/** The coup of a round-settled message, fetched when its coup-dealt was missed (reconnect). */
async function showSettledCoup(coupId) {
  try {
    const coup = await api.coup(coupId);
    if (state.phase !== "settled") return;
    state.lastCoup = coup;
    felt.showCoup(coup);
  } catch {
    // the scoreboard still has the result
  }
}

// --- live messages ---------------------------------------------------------------------------

function applySnapshot(table) {
  if (table.rules) applyRules(table.rules);
  state.phase = table.phase;
  state.coupId = table.coup_id ?? null;
  state.totals = table.totals || {};
  state.myBets = table.my_bets || {};
  state.roads = table.roads || [];
  state.shoe = table.shoe ? { ...table.shoe } : null;
  state.lastCoup = table.last_result || null;
  felt.setPhase(table.phase, { deadline: table.deadline, serverTime: table.server_time,
    seconds: table.betting_seconds ?? (table.rules && table.rules.betting_seconds) });
  if (table.phase === "open" || table.phase === "idle") {
    if (state.lastCoup) felt.showCoup(state.lastCoup, { dimmed: true });
    else felt.clearCards();
  } else if (table.cards && table.cards.length) {
    const shown = { punto: [], banco: [] };
    for (const card of table.cards) shown[card.side].push(card.card);
    felt.showCards(table.cards, null);
    felt.setTotals(handTotal(shown.punto), handTotal(shown.banco));
    if (table.phase !== "closed" && state.lastCoup && state.lastCoup.id === table.coup_id) {
      felt.showResult(state.lastCoup);
    }
  } else if (table.phase === "closed") {
    felt.showBacks();
  }
  felt.setBets(state.myBets, state.totals, state.phase === "open");
  renderRoads($("#roads"), state.roads);
  renderShoe();
  renderFair();
}

function handTotal(cards) {
  const value = (c) => ("TJQK".includes(c[0]) || c.startsWith("10") ? 0 : c[0] === "A" ? 1 : Number(c[0]));
  return cards.reduce((sum, c) => sum + value(c), 0) % 10;
}

const handlers = {
  snapshot: (m) => applySnapshot(m.table),
  "shoe-started": (m) => {
    if (m.rules) applyRules(m.rules); // an operator's new settings start with a new shoe
    state.shoe = { id: m.shoe_id, shoe_no: m.shoe_no, commitment: m.commitment, cards_left: m.cards_left,
      cut_card_out: false, last_coup: false, coups_dealt: 0, cut_index: m.cut_index, cards: m.cards };
    state.roads = [];
    renderRoads($("#roads"), state.roads);
    renderShoe();
    renderFair();
  },
  "round-opened": (m) => {
    state.phase = "open";
    state.coupId = m.coup_id ?? null;
    state.myBets = {};
    state.totals = {};
    if (state.shoe) state.shoe.last_coup = Boolean(m.last_coup);
    felt.setPhase("open", { deadline: m.deadline, serverTime: m.server_time, seconds: m.seconds });
    if (state.lastCoup) felt.showCoup(state.lastCoup, { dimmed: true });
    felt.setBets(state.myBets, state.totals, true);
    renderShoe();
  },
  "bet-totals": (m) => {
    state.totals = m.totals || {};
    felt.setBets(state.myBets, state.totals, state.phase === "open");
  },
  "my-bets": (m) => {
    state.myBets = m.my_bets || {};
    setBalance(m.balance);
    felt.setBets(state.myBets, state.totals, state.phase === "open");
  },
  "bets-closed": () => {
    state.phase = "closed";
    felt.setPhase("closed");
    felt.setBets(state.myBets, state.totals, false);
    felt.showBacks();
  },
  "card-dealt": (m) => {
    if (state.phase !== "dealt") {
      state.phase = "dealt";
      felt.setPhase("dealt");
    }
    felt.dealCard(m.side, m.position, m.card, m.punto_total, m.banco_total);
  },
  "coup-dealt": (m) => {
    state.lastCoup = m.coup;
    felt.showResult(m.coup);
    if (state.shoe) {
      Object.assign(state.shoe, { cards_left: m.cards_left, cut_card_out: m.cut_card_out,
        coups_dealt: m.coup.coup_in_shoe ?? (state.shoe.coups_dealt || 0) + 1 });
      renderShoe();
    }
  },
  settlement: (m) => {
    const coup = state.lastCoup && state.lastCoup.id === m.coup_id ? state.lastCoup : null;
    state.settlement = coup ? { ...m, shoe_no: coup.shoe_no, coup_in_shoe: coup.coup_in_shoe } : m;
    renderPayouts($("#payouts"), state.settlement, lang());
    setBalance(m.balance);
    refreshRecall();
  },
  "round-settled": (m) => {
    state.phase = "settled";
    felt.setPhase("settled");
    const coup = state.lastCoup && state.lastCoup.id === m.coup_id ? state.lastCoup : null;
    if (!state.roads.some((r) => r.coup_id === m.coup_id)) {
      state.roads.push({ coup_id: m.coup_id, winner: m.winner,
        punto_total: coup ? coup.punto.total : undefined, banco_total: coup ? coup.banco.total : undefined,
        natural: coup ? coup.natural : false });
    }
    renderRoads($("#roads"), state.roads);
    if (!coup) showSettledCoup(m.coup_id);
  },
  "shoe-finished": async (m) => {
    if (m.dealing === "dealer") return;  // a hand-dealt shoe has no commitment (docs/dealer.md)
    state.previousShoe = { shoe_id: m.shoe_id, shoe_no: m.shoe_no, commitment: m.commitment,
      result: null };
    renderFair();
    const result = await verifyShoe({ salt: m.salt, order: m.order, commitment: m.commitment });
    if (state.previousShoe && state.previousShoe.shoe_no === m.shoe_no) state.previousShoe.result = result;
    renderFair();
  },
};

function handle(message) {
  const handler = handlers[message.type];
  if (handler) handler(message);
}

// --- bets ------------------------------------------------------------------------------------

async function placeChip(bet) {
  if (!felt.chip || state.tableId === null) return;
  try {
    const answer = await api.placeBet(state.tableId, bet, felt.chip, state.coupId ?? null);
    state.myBets = answer.my_bets || state.myBets;
    setBalance(answer.balance);
    felt.setBets(state.myBets, state.totals, state.phase === "open");
    felt.flashBox(bet, "placed");
    showMessage("");
  } catch (err) {
    felt.flashBox(bet, "refused");
    showMessage(err.message);
  }
}

async function clearBet(bet) {
  try {
    const answer = await api.withdrawBet(state.tableId, bet);
    state.myBets = answer.my_bets || {};
    setBalance(answer.balance);
    felt.setBets(state.myBets, state.totals, state.phase === "open");
    showMessage("");
  } catch (err) {
    showMessage(err.message);
  }
}

async function chooseLanguage(code) {
  setLang(code);
  if (state.player) {
    try {
      const answer = await api.setMyLang(code);
      const player = answer && (answer.player || answer);
      if (player && player.username) state.player = { ...state.player, ...player };
    } catch (err) {
      showMessage(err.message);
    }
  }
}

// --- start -----------------------------------------------------------------------------------

async function boot() {
  setLang(guessLanguage());
  felt = new Felt($("#felt"), { onBox: placeChip, onClear: clearBet, onChip: () => {} });
  onLangChange(() => renderAll());
  for (const button of document.querySelectorAll("[data-lang]")) {
    button.addEventListener("click", () => chooseLanguage(button.dataset.lang));
  }
  $("#auth-form").addEventListener("submit", submitAuth);
  $("#auth-switch").addEventListener("click", () => setAuthMode(authMode === "signup" ? "login" : "signup"));
  $("#logout").addEventListener("click", doLogout);
  $("#table-select").addEventListener("change", (e) => openTable(Number(e.target.value)));
  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => renderRoads($("#roads"), state.roads), 150);
  });
  try {
    setServerWords(await api.words());
  } catch (err) {
    showMessage(err.message);
  }
  renderAll();
  let player = null;
  if (api.getToken()) {
    try {
      const answer = await api.me();
      player = answer.player || answer;
    } catch {
      api.setToken(null);
    }
  }
  if (player) await enter(player);
  else showAuth();
  document.body.dataset.ready = "true";
}

if (!LANGUAGES.includes(lang())) setLang("fr");
boot();
