// The page: sign-up and log-in, the table list, and one table followed live over its WebSocket.
// main.js keeps the state and routes server messages to the views (felt, payouts, roads, recall,
// shoe and fairness panels); the views draw, they do not decide.

import * as api from "./api.js";
import { early } from "./early.js";
import { verifyShoe } from "./fair.js";
import { betting } from "./betting.js";
import { Felt } from "./felt.js";
import {
  LANGUAGES, betName, guessLanguage, lang, onLangChange, pickLanguage, setLang, setServerWords, t,
  tf, translatePage,
} from "./i18n.js";
import { cardLabel } from "./cards.js";
import { DealPace } from "./deal.js";
import { formatCents } from "./money.js";
import { renderPayouts } from "./payouts.js";
import { renderRecall } from "./recall.js";
import { renderRoads } from "./roadview.js";
import { drawFair, drawShoe } from "./shoe.js";
import { play, setSound, soundOn } from "./sound.js";
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
  spectator: false,
  coupId: null, // the coup of the round being played
  history: [], // this coup's chips, in order: [{bet, stake}] (undo)
  lastBets: {}, // the last coup's bets (repeat)
  settled: new Set(), // coups whose settlement this page has shown
  voidTold: new Set(), // voided coups already explained
  preview: null, // the road prediction shown ("banco" | "punto" | null)
  wasDown: false,
  retryAt: 0, // when the socket tries again (the banner counts down to it)
  database: null, // {code, since} while the server's database is unavailable
  voidedStakes: 0, // stakes given back on a coup being voided (said with round-voided)
};

let felt = null;
const pace = new DealPace((message) => route(message));
let bets = null; // the betting actions (betting.js), made once the felt is
let messageTimer = null;
let connectionTimer = null;
let countdownTimer = null;

const sum = (bets) => Object.values(bets || {}).reduce((total, cents) => total + cents, 0);

/** Tell screen readers (aria-live): phase changes and results. */
function announce(text) {
  const node = $("#announce");
  node.textContent = "";
  // A fresh text node, so the same words twice are read twice.
  setTimeout(() => { node.textContent = text; }, 30);
}

// --- small views ---------------------------------------------------------------------------

function showMessage(text, kind = "error") {
  // Fixed at the bottom of the window: a refusal is seen on a phone too, not below the fold.
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
  $(".balance-box").hidden = cents === null; // a spectator has no wallet
  renderPanel();
}

/** The payouts panel: this coup's bets while they wait, else the last settlement. */
function renderPanel() {
  const waiting = ["open", "closed", "dealt"].includes(state.phase) && sum(state.myBets) > 0
    && !state.settled.has(state.coupId);
  renderPayouts($("#payouts"), state.settlement, lang(), {
    pending: waiting ? state.myBets : null,
    balance: state.player ? state.player.balance : null,
    coup: state.settlement && state.lastCoup && state.lastCoup.id === state.settlement.coup_id
      ? state.lastCoup : null,
  });
}

/** The controls, the total staked and the hint, from the state. */
function renderControls() {
  if (!felt) return;
  // Nothing that needs the server looks usable while the connection is down.
  const open = state.phase === "open" && Boolean(state.player) && !state.spectator
    && state.connection === "open" && !state.database;
  const staked = sum(state.myBets);
  felt.setControls({
    undo: open && state.history.length > 0, clear_all: open && staked > 0,
    repeat: open && sum(state.lastBets) > 0, double: open && staked > 0,
  }, staked);
  felt.setHint(state.phase === "open" && open && staked === 0 ? t("ui.select_chip") : "");
  felt.setOffline(state.connection === "reconnecting");
  $("#spectator").hidden = !state.spectator;
  // A spectator has no coups of his own: no recall panel (and no signed-in request for it).
  $(".recall-panel").hidden = !state.player;
}

function drawRoads() {
  renderRoads($("#roads"), state.roads, { preview: state.preview, onAsk: ask });
}

function ask(side) {
  state.preview = state.preview === side ? null : side;
  drawRoads();
  const button = document.querySelector(`.ask[data-ask="${side}"]`);
  if (button) button.focus();
}

function tableNames() {
  return Object.fromEntries(state.tables.map((tb) => [tb.id, tb.name]));
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
  drawShoe(state.shoe, state.rules);
}

function renderFair() {
  drawFair(state.shoe, state.previousShoe);
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
  drawRoads();
  renderPanel();
  renderControls();
  renderRecall($("#recall"), state.recall, lang(), tableNames());
  renderShoe();
  renderFair();
  renderSound();
  if (state.connection === "reconnecting") renderReconnecting();
  renderDatabase();
  $("#username").textContent = state.player ? state.player.username : "";
  const select = $("#table-select");
  for (const option of select.options) {
    const table = state.tables.find((tb) => String(tb.id) === option.value);
    if (table) option.textContent = `${t("ui.table")} ${table.name}`;
  }
}

// --- log-in ----------------------------------------------------------------------------------

let authMode = "signup";

function showAuth(mode = authMode) {
  $("#auth").hidden = false;
  if (!state.spectator) $("#app").hidden = true;
  $("#user-box").hidden = true;
  setAuthMode(mode);
  $("#auth-username").focus();
}

/** Watch the table without an account (spectator); sign up later to play. */
async function watch() {
  state.spectator = true;
  state.player = null;
  $("#auth").hidden = true;
  $("#app").hidden = false;
  $("#join").hidden = false;
  $("#user-box").hidden = true;
  renderAll();
  if (state.tableId === null) await loadTables();
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
    if (answer.player.role !== "player") {
      // a dealer's or the operator's account does not sit at the table (issue 18)
      await api.logout().catch(() => {});
      api.setToken(null);
      error.textContent = t("ui.wrong_role");
      return;
    }
    await enter(answer.player);
  } catch (err) {
    error.textContent = err.message;
  } finally {
    $("#auth-submit").disabled = false;
  }
}

async function enter(player) {
  state.player = player;
  state.spectator = false;
  if (player.lang && player.lang !== lang()) setLang(pickLanguage(player.lang));
  $("#auth").hidden = true;
  $("#app").hidden = false;
  $("#user-box").hidden = false;
  $("#join").hidden = true;
  renderAll();
  await loadTables();
  // The table has the focus after signing up or in (not <body>): the keyboard starts there.
  if (document.activeElement === document.body || !document.activeElement
      || $("#auth").contains(document.activeElement)) $("#felt").focus();
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
  state.tableId = null;
  state.player = null;
  state.spectator = false;
  renderBalance();
  showAuth();
}

// --- tables ----------------------------------------------------------------------------------

function fillTableSelect() {
  const select = $("#table-select");
  select.replaceChildren();
  for (const table of state.tables) {
    const option = document.createElement("option");
    option.value = String(table.id);
    option.textContent = `${t("ui.table")} ${table.name}`;
    select.append(option);
  }
  select.hidden = state.tables.length < 2;
  if (state.tableId !== null) select.value = String(state.tableId);
}

let tablesAsked = null; // the table list asked for at start, with the words and the player

async function loadTables() {
  const asked = tablesAsked;
  tablesAsked = null;
  state.tables = await (asked ? asked.catch(() => api.tables()) : api.tables());
  fillTableSelect();
  const stored = localStorage.getItem("pb.table");
  const chosen = state.tables.find((tb) => String(tb.id) === stored) || state.tables[0];
  if (chosen) openTable(chosen.id);
}

/** A new table appears in the list without a reload. */
async function refreshTables() {
  if (state.tableId === null) return;
  try {
    const tables = await api.tables();
    const ids = (list) => list.map((tb) => `${tb.id}:${tb.name}`).join(",");
    if (ids(tables) !== ids(state.tables)) {
      state.tables = tables;
      fillTableSelect();
      renderRecall($("#recall"), state.recall, lang(), tableNames());
    }
  } catch {
    // the next try will do
  }
}

function openTable(id) {
  if (state.socket) state.socket.close();
  pace.clear(); // the last table's cards held for their moment are not this table's
  state.tableId = id;
  localStorage.setItem("pb.table", String(id));
  $("#table-select").value = String(id);
  Object.assign(state, { phase: "idle", myBets: {}, totals: {}, roads: [], shoe: null, lastCoup: null,
    settlement: null, previousShoe: null, coupId: null, history: [], lastBets: {}, preview: null });
  const table = state.tables.find((tb) => tb.id === id);
  if (table) applyRules(table.rules);
  $("#table-name").textContent = table ? table.name : "";
  const token = state.spectator ? null : api.getToken();
  const held = early.socket; // opened by early.js for the last table (taken once)
  early.socket = null;
  state.socket = new TableSocket(id, token, { onMessage: handle, onStatus: connectionStatus,
    early: held });
  state.socket.connect();
  refreshRecall();
}

function applyRules(rules) {
  state.rules = rules;
  felt.setRules(rules);
}

/** "Connection lost, reconnecting in 2 s…", counting down to the next try. */
function renderReconnecting() {
  const left = Math.max(0, state.retryAt - Date.now());
  $("#connection").textContent = left >= 500 ? tf("ui.lost", { s: Math.round(left / 1000) })
    : t("ui.reconnecting");
}

function connectionStatus(status, delay = 0) {
  state.connection = status;
  document.body.dataset.connection = status;
  const banner = $("#connection");
  clearTimeout(connectionTimer);
  clearInterval(countdownTimer);
  if (status === "reconnecting") {
    state.wasDown = true;
    banner.className = "connection connection-down";
    banner.hidden = false;
    state.retryAt = Date.now() + delay;
    renderReconnecting();
    countdownTimer = setInterval(renderReconnecting, 250);
    felt.root.classList.add("offline");
  } else if (status === "open") {
    felt.root.classList.remove("offline");
    if (state.wasDown) {
      state.wasDown = false;
      banner.className = "connection connection-up";
      banner.textContent = t("ui.reconnected");
      banner.hidden = false;
      connectionTimer = setTimeout(() => { banner.hidden = true; }, 2000);
      refreshTables();
    } else {
      banner.hidden = true;
    }
  } else if (status === "unauthorized") {
    banner.hidden = true;
    api.setToken(null);
    showAuth();
  }
  renderControls();
}

async function refreshRecall() {
  if (!state.player || state.spectator) return; // a spectator has no coups, and no token
  try {
    state.recall = await api.myCoups(20);
  } catch {
    return;
  }
  renderRecall($("#recall"), state.recall, lang(), tableNames());
  settlementFromRecall();
  // After a reload, Repeat still knows the last bets played at this table.
  if (!sum(state.lastBets)) {
    const previous = state.recall.find((c) => c.table_id === state.tableId && c.status === "settled"
      && c.id !== state.coupId);
    if (previous) state.lastBets = { ...previous.my_bets };
    renderControls();
  }
}

/** After a reload the payout panel shows the last coup's lines again, if it was the player's
 * (whichever comes first: the recall or the table's snapshot). */
function settlementFromRecall() {
  const latest = state.recall[0];
  if (!state.settlement && latest && state.lastCoup && latest.id === state.lastCoup.id
      && latest.settlement && latest.settlement.length) {
    state.settlement = { coup_id: latest.id, lines: latest.settlement, shoe_no: latest.shoe_no,
      coup_in_shoe: latest.coup_in_shoe };
    state.settled.add(latest.id);
    renderPanel();
  }
}

/** Say that a round was voided and its stakes came back (once per coup). */
function tellVoid(coupId, amount) {
  if (state.voidTold.has(coupId)) return;
  state.voidTold.add(coupId);
  const text = tf("ui.voided", { amount: formatCents(amount, lang()) });
  showMessage(text, "info");
  announce(text);
  refreshRecall();
}

/**
 * After a reconnection: the coup this page had bets on and saw no result for. The server
 * voided it (a restart: the stakes are back in the wallet) or settled it meanwhile.
 */
async function resolveMissed(missed) {
  let coup;
  try {
    coup = await api.coup(missed.coupId);
  } catch {
    return;
  }
  if (coup.status === "void") {
    tellVoid(coup.id, sum(coup.my_bets) || sum(missed.bets));
  } else if (coup.status === "settled" && coup.settlement && coup.settlement.length
             && !state.settled.has(coup.id)) {
    state.settled.add(coup.id);
    state.lastCoup = state.lastCoup && state.lastCoup.id === coup.id ? state.lastCoup : coup;
    state.settlement = { coup_id: coup.id, lines: coup.settlement, shoe_no: coup.shoe_no,
      coup_in_shoe: coup.coup_in_shoe };
    renderPanel();
    refreshRecall();
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
  // What this page had at stake on a coup whose result it did not see (a lost connection).
  const missed = state.coupId !== null && sum(state.myBets) > 0 && !state.settled.has(state.coupId)
    ? { coupId: state.coupId, bets: { ...state.myBets } } : null;
  if (table.rules) applyRules(table.rules);
  if (typeof table.balance === "number") setBalance(table.balance);
  if (missed && (table.coup_id !== missed.coupId || sum(table.my_bets) === 0
                 || ["settled", "idle"].includes(table.phase))) resolveMissed(missed);
  if (table.coup_id !== state.coupId) state.history = [];
  state.coupId = table.coup_id ?? null;
  state.phase = table.phase;
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
  drawRoads();
  renderShoe();
  renderFair();
  settlementFromRecall();
  renderPanel();
  renderControls();
}

function handTotal(cards) {
  const value = (c) => ("TJQK".includes(c[0]) || c.startsWith("10") ? 0 : c[0] === "A" ? 1 : Number(c[0]));
  return cards.reduce((sum, c) => sum + value(c), 0) % 10;
}

/** "The table has paused: the database cannot be reached. …" */
function pausedText() {
  const why = state.database && state.database.code === "storage-full" ? "ui.db_full" : "ui.db_unavailable";
  return tf("ui.db_paused", { why: t(why) });
}

function renderDatabase() {
  const banner = $("#paused");
  banner.hidden = !state.database;
  banner.textContent = state.database ? pausedText() : "";
}

const handlers = {
  snapshot: (m) => applySnapshot(m.table),
  // The server's database is down or full: no bet can be recorded, so none is offered until it
  // says the database is back (then the banner goes by itself).
  database: (m) => {
    state.database = m.available ? null : { code: m.code, since: m.since };
    renderDatabase();
    renderControls();
  },
  "shoe-started": (m) => {
    if (m.rules) applyRules(m.rules); // an operator's new settings start with a new shoe
    state.shoe = { id: m.shoe_id, shoe_no: m.shoe_no, commitment: m.commitment, cards_left: m.cards_left,
      cut_card_out: false, last_coup: false, coups_dealt: 0, cut_index: m.cut_index, cards: m.cards };
    state.roads = [];
    state.preview = null;
    drawRoads();
    renderShoe();
    renderFair();
    refreshTables();
  },
  "round-opened": (m) => {
    state.phase = "open";
    state.myBets = {};
    state.totals = {};
    state.history = [];
    state.coupId = m.coup_id ?? null;
    felt.hideOutcome();
    announce(`${t("place_bets")} · ${m.seconds ?? ""} s`);
    if (state.shoe) Object.assign(state.shoe, { last_coup: Boolean(m.last_coup), coup_in_shoe: m.coup_in_shoe });
    felt.setPhase("open", { deadline: m.deadline, serverTime: m.server_time, seconds: m.seconds });
    if (state.lastCoup) felt.showCoup(state.lastCoup, { dimmed: true });
    felt.setBets(state.myBets, state.totals, true);
    renderShoe();
    renderPanel();
    renderControls();
  },
  "bet-totals": (m) => {
    state.totals = m.totals || {};
    felt.setBets(state.myBets, state.totals, state.phase === "open");
  },
  "my-bets": (m) => {
    // Stakes taken back after betting closed: the round is being voided (round-voided follows).
    if (state.phase !== "open" && m.coup_id === state.coupId && sum(m.my_bets) === 0) {
      state.voidedStakes = sum(state.myBets);
    }
    state.myBets = m.my_bets || {};
    setBalance(m.balance);
    felt.setBets(state.myBets, state.totals, state.phase === "open");
    renderPanel();
    renderControls();
  },
  "bets-closed": () => {
    state.phase = "closed";
    felt.setPhase("closed");
    felt.setBets(state.myBets, state.totals, false);
    felt.showBacks();
    announce(t("no_more_bets"));
    play("closed");
    renderControls();
  },
  balance: (m) => {
    setBalance(m.balance);
    if (m.reason === "credit") {
      const text = tf("ui.credited", { amount: formatCents(m.amount, lang()) });
      showMessage(text, "info");
      announce(text);
    } else if (m.reason === "void" && m.coup_id !== undefined) {
      if (m.coup_id === state.coupId) {
        state.myBets = {};
        felt.setBets(state.myBets, state.totals, false);
      }
      tellVoid(m.coup_id, m.amount);
    }
  },
  "card-dealt": (m) => {
    if (state.phase !== "dealt") {
      state.phase = "dealt";
      felt.setPhase("dealt");
    }
    felt.dealCard(m.side, m.position, m.card, m.punto_total, m.banco_total);
  },
  // A hand-dealt table (docs/dealer.md): the dealer fixed a mistyped card, voided the round, or
  // the shoe changed (cut card, last coup, counted cards).
  "card-corrected": (m) => {
    felt.correctCard(m.side, m.position, m.card, m.punto_total, m.banco_total);
    const text = tf("ui.card_corrected", { was: cardLabel(m.was), card: cardLabel(m.card) });
    showMessage(text, "info");
    announce(text);
  },
  "round-voided": (m) => {
    state.phase = "void"; // a misdeal: the round says so, and the next one opens as usual
    felt.setPhase("void");
    felt.clearCards();
    felt.setBets(state.myBets, state.totals, false);
    if (state.voidedStakes) {
      tellVoid(m.coup_id, state.voidedStakes);
      state.voidedStakes = 0;
    } else if (!state.voidTold.has(m.coup_id)) {
      showMessage(t("ui.round_voided"), "info");
      announce(t("ui.round_voided"));
    }
    renderPanel();
    renderControls();
  },
  "shoe-event": (m) => {
    if (m.shoe) state.shoe = { ...(state.shoe || {}), ...m.shoe };
    renderShoe();
  },
  "coup-dealt": (m) => {
    state.lastCoup = m.coup;
    felt.showResult(m.coup);
    const coup = m.coup;
    announce(`${coup.winner === "egalite" ? betName("egalite") : `${betName(coup.winner)} ${t("wins")}`}`
      + ` ${coup.punto.total} – ${coup.banco.total}`);
    if (state.shoe) {
      Object.assign(state.shoe, { cards_left: m.cards_left, cut_card_out: m.cut_card_out,
        coups_dealt: m.coup.coup_in_shoe ?? (state.shoe.coups_dealt || 0) + 1 });
      renderShoe();
    }
  },
  settlement: (m) => {
    const coup = state.lastCoup && state.lastCoup.id === m.coup_id ? state.lastCoup : null;
    state.settlement = coup ? { ...m, shoe_no: coup.shoe_no, coup_in_shoe: coup.coup_in_shoe } : m;
    state.settled.add(m.coup_id);
    setBalance(m.balance);
    bets.feedback(m.lines);
    refreshRecall();
  },
  "round-settled": (m) => {
    if (sum(state.myBets) > 0) state.lastBets = { ...state.myBets };
    state.phase = "settled";
    felt.setPhase("settled");
    renderControls();
    const coup = state.lastCoup && state.lastCoup.id === m.coup_id ? state.lastCoup : null;
    if (!state.roads.some((r) => r.coup_id === m.coup_id)) {
      state.roads.push({ coup_id: m.coup_id, winner: m.winner,
        punto_total: coup ? coup.punto.total : undefined, banco_total: coup ? coup.banco.total : undefined,
        natural: coup ? coup.natural : false });
    }
    state.preview = null;
    drawRoads();
    renderPanel();
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

// tests/server/test_message_clients.py checks that this page handles or ignores every type of
// live/messages.py: ws.js answers the pong and the answers to a bet sent on the socket
// (bet-accepted, bet-refused); an error answers a message this page never sends.
const IGNORED_MESSAGES = ["pong", "error", "bet-accepted", "bet-refused"];

/** A server message, in the order they came: a card at its moment, whatever follows it after
 * it (deal.js); a snapshot at once, after everything held before it. */
function handle(message) {
  if (message.type !== "snapshot") {
    pace.push(message);
    return;
  }
  pace.flush();
  route(message);
}

function route(message) {
  const handler = handlers[message.type];
  if (handler) handler(message);
  else if (!IGNORED_MESSAGES.includes(message.type)) console.warn("unknown message", message.type);
}

function renderSound() {
  const button = $("#sound");
  const on = soundOn();
  button.setAttribute("aria-pressed", String(on));
  button.classList.toggle("on", on);
  button.title = `${t("ui.sound")}: ${on ? "♪" : "—"}`;
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
  felt = new Felt($("#felt"), { onBox: (bet) => bets.placeChip(bet), onClear: (bet) => bets.clearBet(bet),
    onChip: () => {}, onControl: (name) => bets.control(name) });
  bets = betting({ state, felt, showMessage, showAuth, announce, renderPanel, renderControls, setBalance,
    pausedText });
  onLangChange(() => renderAll());
  for (const button of document.querySelectorAll("[data-lang]")) {
    button.addEventListener("click", () => chooseLanguage(button.dataset.lang));
  }
  $("#auth-form").addEventListener("submit", submitAuth);
  $("#auth-switch").addEventListener("click", () => setAuthMode(authMode === "signup" ? "login" : "signup"));
  $("#logout").addEventListener("click", doLogout);
  $("#auth-watch").addEventListener("click", watch);
  $("#join").addEventListener("click", () => showAuth("signup"));
  // A spectator closes the sign-up screen with Escape and goes on watching.
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && state.spectator && !$("#auth").hidden) watch();
  });
  $("#sound").addEventListener("click", () => {
    setSound(!soundOn());
    renderSound();
    play("chip");
  });
  setInterval(refreshTables, 20000);
  $("#table-select").addEventListener("change", (e) => openTable(Number(e.target.value)));
  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(drawRoads, 150);
  });
  // The words, the player and the tables were asked for at once by early.js, while the page's
  // modules loaded (a slow line pays their latency once, early).
  const wordsAsked = early.words;
  const meAsked = early.me;
  tablesAsked = early.tables;
  try {
    setServerWords(await wordsAsked);
  } catch (err) {
    showMessage(err.message);
  }
  renderAll();
  let player = null;
  if (meAsked) {
    try {
      const answer = await meAsked;
      player = answer.player || answer;
    } catch {
      api.setToken(null);
    }
  }
  if (player && player.role !== "player") { // this page's key holds players' sessions only
    await api.logout().catch(() => {});
    api.setToken(null);
    player = null;
  }
  if (player) {
    await enter(player);
  } else {
    showAuth();
    if (early.socket) { // opened for a player who is not signed in any more
      early.socket.release();
      early.socket.socket.close();
      early.socket = null;
    }
  }
  document.body.dataset.ready = "true";
}

if (!LANGUAGES.includes(lang())) setLang("fr");
boot();
