// The operator console (docs/operator.md): sign-in, tables (live view, exposure, pause, rename,
// settings), players (search, credit, suspend, history). Reports and the audit log are in
// op-reports.js, the dealers in op-dealers.js. Plain ES modules, no build step; every word in fr/it/es/en (op-words.js).

import * as api from "./op-api.js";
import { el, money, signClass, when } from "./op-dom.js";
import { initDealers, showDealers } from "./op-dealers.js";
import { initReports, showAudit, showReports } from "./op-reports.js";
import { LANGUAGES, lang, setLang, t } from "./op-words.js";

const $ = (id) => document.getElementById(id);
const KINDS = ["punto", "banco", "egalite", "lion-punto", "lion-banco"];
const POLL_MS = 1500;
let tab = "tables";
let pollTimer = null;
const openRules = new Set(); // tables whose settings form is open (kept while polling)
const drafts = new Map(); // table id -> the settings typed and not saved yet (kept while polling)

function notice(error) {
  const box = $("notice");
  if (!error) { box.hidden = true; return; }
  box.textContent = error.message || String(error);
  box.hidden = false;
}

function translate() {
  document.documentElement.lang = lang();
  for (const node of document.querySelectorAll("[data-w]")) node.textContent = t(node.dataset.w);
  for (const node of document.querySelectorAll("[data-ph]")) node.placeholder = t(node.dataset.ph);
  for (const node of document.querySelectorAll("[data-aria]")) node.setAttribute("aria-label", t(node.dataset.aria));
  for (const button of document.querySelectorAll(".langs button")) {
    button.classList.toggle("active", button.dataset.lang === lang());
  }
}

function chooseLang(language) {
  setLang(language);
  api.setApiLang(lang());
  localStorage.setItem("pb.operator.lang", lang());
  translate();
  shown.clear(); // the table cards are built again in the new language
  $("table-cards").replaceChildren();
  render();
}

// --- sign-in --------------------------------------------------------------------------------

async function start() {
  const token = api.getToken();
  if (!token) return showLogin();
  try {
    const who = await api.me();
    if (who.role !== "operator") throw new api.ApiError(403, "forbidden", t("not_operator"));
    enter(who);
  } catch {
    api.setToken(null);
    showLogin();
  }
}

function showLogin() {
  $("auth").hidden = false;
  $("console").hidden = true;
  $("tabs").hidden = true;
  $("user-box").hidden = true;
  clearInterval(pollTimer);
}

function enter(who) {
  $("auth").hidden = true;
  $("console").hidden = false;
  $("tabs").hidden = false;
  $("user-box").hidden = false;
  $("username").textContent = who.username;
  showTab(tab);
}

async function onLogin(event) {
  event.preventDefault();
  const form = event.target;
  $("login-error").textContent = "";
  try {
    const answer = await api.login(form.username.value.trim(), form.password.value);
    if (answer.player.role !== "operator") {
      api.setToken(answer.token);
      await api.logout().catch(() => {});
      api.setToken(null);
      $("login-error").textContent = t("not_operator");
      return;
    }
    api.setToken(answer.token);
    form.password.value = "";
    enter(answer.player);
  } catch (error) {
    $("login-error").textContent = error.message;
  }
}

async function onLogout() {
  await api.logout().catch(() => {});
  api.setToken(null);
  showLogin();
}

function guard(promise) {
  return promise.then(() => notice(null)).catch((error) => {
    if (error.status === 401) { api.setToken(null); showLogin(); return; }
    notice(error);
  });
}

// --- tabs -------------------------------------------------------------------------------------

function showTab(name) {
  tab = name;
  for (const button of document.querySelectorAll("#tabs button")) {
    button.classList.toggle("active", button.dataset.tab === name);
  }
  for (const section of document.querySelectorAll(".tab")) section.hidden = section.id !== `tab-${name}`;
  clearInterval(pollTimer);
  render();
  if (name === "tables") pollTimer = setInterval(() => { if (tab === "tables") refreshTables(); }, POLL_MS);
}

function render() {
  if ($("console").hidden) return;
  if (tab === "tables") guard(refreshTables());
  else if (tab === "players") guard(refreshPlayers());
  else if (tab === "reports") guard(showReports());
  else if (tab === "dealers") guard(showDealers());
  else if (tab === "audit") guard(showAudit(true));
}

// --- tables -----------------------------------------------------------------------------------

let refreshing = false;
const shown = new Map(); // table id -> its card on the page: {card, name, badges, pause, live, form, view}

/** The live figures are written into the cards already on the page: focus, an open settings
 * form, what is typed in it and its "Saved" note survive every refresh (every POLL_MS). */
async function refreshTables() {
  if (refreshing) return;
  refreshing = true;
  try {
    api.health().then(showDatabase, () => showDatabase(null));
    const views = await api.liveTables();
    const cards = $("table-cards");
    const seen = new Set();
    views.forEach((view, index) => {
      const id = view.table.id;
      seen.add(id);
      let entry = shown.get(id);
      if (!entry) {
        entry = tableCard(view);
        shown.set(id, entry);
      }
      updateCard(entry, view);
      if (cards.children[index] !== entry.card) cards.insertBefore(entry.card, cards.children[index] || null);
    });
    for (const [id, entry] of shown) {
      if (!seen.has(id)) {
        entry.card.remove();
        shown.delete(id);
      }
    }
  } finally {
    refreshing = false;
  }
}

/** The database's state and the disk's free space (``/healthz``, issue 22). */
function showDatabase(health) {
  const line = $("database-state");
  const database = health && health.database;
  const code = database ? database.code : "database-unavailable";
  const parts = [t(code === "storage-full" ? "db_full" : code ? "db_away" : "db_ok")];
  const disk = health && health.disk;
  if (disk && disk.free_bytes !== null) {
    const mib = (bytes) => `${(bytes / 1048576).toFixed(1)} MiB`;
    parts.push(t("disk_free").replace("{free}", mib(disk.free_bytes)).replace("{reserve}", mib(disk.reserve_bytes)));
  }
  line.textContent = parts.join(" · ");
  line.classList.toggle("message-error", Boolean(code));
}

function fact(label, value, cls) {
  return el("div", {}, el("span", {}, label), el("b", { class: cls }, value));
}

/** A table's card: its header and settings form are built once; updateCard fills the rest. */
function tableCard(view) {
  const entry = { view };
  entry.name = el("strong", {});
  entry.badges = el("span", { class: "badges" });
  entry.pause = el("button", { type: "button", class: "pause-button",
    onclick: () => guard(api.pauseTable(entry.view.table.id, !entry.view.table.paused).then(refreshTables)) });
  entry.live = el("div", { class: "live" });
  entry.form = rulesForm(view.table);
  entry.card = el("article", { class: "panel table-card", dataset: { table: view.table.id } },
    el("header", {}, entry.name, entry.badges,
      el("span", { class: "card-actions" },
        el("button", { type: "button", onclick: () => renameTable(entry.view.table) }, t("rename")),
        entry.pause)),
    entry.live, entry.form.details);
  return entry;
}

function updateCard(entry, view) {
  entry.view = view;
  const table = view.table;
  if (entry.name.textContent !== table.name) entry.name.textContent = table.name;
  const badges = [el("span", { class: `badge ${table.phase}` }, t(`phase.${table.phase}`))];
  if (table.paused) badges.push(el("span", { class: "badge paused" }, t("paused")));
  if (table.dealing === "dealer") badges.push(el("span", { class: "badge hand-dealt" }, t("hand_dealt")));
  entry.badges.replaceChildren(...badges);
  const pauseWord = table.paused ? t("resume") : t("pause");
  if (entry.pause.textContent !== pauseWord) entry.pause.textContent = pauseWord;
  const exposure = view.exposure;
  const spots = view.spots.length
    ? el("ul", { class: "spots" }, view.spots.map((spot) => el("li", {},
      el("span", {}, spot.username),
      el("span", {}, Object.entries(spot.bets).map(([k, v]) => `${t(`bet.${k}`)} ${money(v)}`).join(" · ")))))
    : el("p", { class: "muted small" }, t("no_spots"));
  // The window the table deals now (serve --betting-seconds may fix it for every table).
  const seconds = table.betting_seconds ?? table.rules.betting_seconds;
  const window = el("p", { class: "window small", dataset: { seconds, fixed: Boolean(table.betting_seconds_fixed) } },
    `${t("window_now")}: ${seconds} s`, table.betting_seconds_fixed ? ` (${t("window_fixed")})` : "");
  entry.live.replaceChildren(
    el("div", { class: "facts" },
      fact(t("round"), view.shoe && view.coup_in_shoe
        ? `${t("shoe")} ${view.shoe.shoe_no} · ${view.coup_in_shoe}` : "—"),
      fact(t("watchers"), String(view.watchers.length)),
      fact(t("bets"), money(KINDS.reduce((sum, k) => sum + (view.totals[k] || 0), 0)))),
    window,
    el("h3", {}, t("spots")), spots,
    el("h3", {}, t("exposure")),
    el("div", { class: "facts exposure" },
      fact(t("worst"), exposure ? money(exposure.worst) : "—", exposure ? signClass(exposure.worst) : ""),
      fact(t("expected"), exposure ? money(exposure.expected) : "—", exposure ? signClass(exposure.expected) : ""),
      fact(t("best"), exposure ? money(exposure.best) : "—", exposure ? signClass(exposure.best) : "")));
  entry.form.follow(table);
}

async function renameTable(table) {
  const name = window.prompt(t("rename"), table.name);
  if (name === null || name.trim() === table.name) return;
  await guard(api.patchTable(table.id, { name }).then(refreshTables));
}

function rulesForm(table) {
  const rules = table.next_rules;
  const tableId = table.id;
  const euros = (cents) => String(cents / 100);
  const pair = (kind) => el("span", { class: "pair" },
    el("input", { name: `${kind}-min`, type: "number", min: "0", step: "any", value: euros(rules.limits[kind][0]) }),
    el("input", { name: `${kind}-max`, type: "number", min: "0", step: "any", value: euros(rules.limits[kind][1]) }));
  const note = el("span", { class: "form-note" });
  const form = el("form", { class: "rules-form" },
    el("label", {}, t("decks"), el("input", { name: "decks", type: "number", min: "1", max: "8", value: rules.decks })),
    el("label", {}, t("tie_pays"), el("select", { name: "tie_pays" },
      // B3's 8:1 and 9:1, and a designed table's own pay (e.g. "8.5"), kept when saving
      ...[...new Set([8, 9, rules.tie_pays])].map((n) => el("option",
        { value: n, selected: String(rules.tie_pays) === String(n) }, `${n}:1`)))),
    el("label", {}, t("betting_seconds"), el("input", { name: "betting_seconds", type: "number", min: "1", max: "600", value: rules.betting_seconds })),
    el("span", {}),
    ...["punto", "banco", "egalite", "lion-punto"].map((kind) => el("label", {},
      `${kind === "lion-punto" ? "Lion Bonus" : t(`bet.${kind}`)} — ${t("limits")}`, pair(kind))),
    el("button", { class: "primary small-button", type: "submit" }, t("save")), note);
  const draft = drafts.get(table.id) || {};
  for (const [name, value] of Object.entries(draft)) form.elements[name].value = value;
  form.addEventListener("input", (event) => {
    drafts.set(table.id, { ...(drafts.get(table.id) || {}), [event.target.name]: event.target.value });
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const cents = (name) => Math.round(Number(form[name].value) * 100);
    const limit = (kind) => [cents(`${kind}-min`), cents(`${kind}-max`)];
    const change = {
      decks: Number(form.decks.value),
      // a whole pay as a number, a designed one as its exact text ("8.5", "17/2")
      tie_pays: Number.isInteger(Number(form.tie_pays.value)) ? Number(form.tie_pays.value)
        : form.tie_pays.value,
      betting_seconds: Number(form.betting_seconds.value),
      limits: { punto: limit("punto"), banco: limit("banco"), egalite: limit("egalite"),
        "lion-punto": limit("lion-punto"), "lion-banco": limit("lion-punto") },
    };
    try {
      await api.patchTable(table.id, { rules: change });
      drafts.delete(table.id);
      note.textContent = t("saved");
      note.className = "form-note pos";
    } catch (error) {
      note.textContent = error.message;
      note.className = "form-note neg";
    }
  });
  const details = el("details", { open: openRules.has(table.id) }, el("summary", {}, t("rules")), form);
  details.addEventListener("toggle", () => {
    if (details.open) openRules.add(table.id); else openRules.delete(table.id);
  });
  /** The settings saved meanwhile (here or elsewhere) shown, unless the operator is typing. */
  const follow = (now) => {
    if (drafts.has(tableId) || form.contains(document.activeElement)) return;
    const next = now.next_rules;
    const values = { decks: next.decks, tie_pays: next.tie_pays, betting_seconds: next.betting_seconds };
    for (const kind of ["punto", "banco", "egalite", "lion-punto"]) {
      values[`${kind}-min`] = euros(next.limits[kind][0]);
      values[`${kind}-max`] = euros(next.limits[kind][1]);
    }
    for (const [name, value] of Object.entries(values)) {
      if (form.elements[name] && form.elements[name].value !== String(value)) form.elements[name].value = String(value);
    }
  };
  return { details, follow };
}

async function onNewTable(event) {
  event.preventDefault();
  const form = event.target;
  await guard(api.createTable(form.name.value, {}, form.dealing.value)
    .then(() => { form.name.value = ""; form.dealing.value = "server"; return refreshTables(); }));
}

// --- players ----------------------------------------------------------------------------------

let playersAsked = 0;
async function refreshPlayers() {
  const asked = ++playersAsked;
  const found = await api.players($("player-search").value.trim());
  if (asked !== playersAsked) return; // a later search has been sent: its answer will be drawn
  const head = el("tr", {}, ...["username", "balance", "status", "since", "credit", ""].map((k, i) =>
    el("th", { class: i === 1 ? "num" : "" }, k ? t(k) : el("span", { class: "visually-hidden" }, t("actions")))));
  $("players").replaceChildren(head, ...found.map(playerRow));
}

function playerRow(player) {
  const amount = el("input", { type: "number", min: "0.01", step: "0.01", "aria-label": t("amount"), placeholder: "€" });
  const creditIt = async () => {
    const cents = Math.round(Number(amount.value) * 100);
    if (!(cents > 0)) return;
    await guard(api.credit(player.id, cents).then(refreshPlayers));
  };
  const toggle = async () => {
    if (!player.suspended && !window.confirm(t("confirm_suspend"))) return;
    await guard(api.suspend(player.id, !player.suspended).then(refreshPlayers));
  };
  const operator = player.role === "operator";
  return el("tr", { dataset: { player: player.username } },
    el("td", {}, el("button", { type: "button", class: "link-button", onclick: () => guard(showHistory(player)) }, player.username),
      operator ? el("span", { class: "badge" }, "operator") : null),
    el("td", { class: "num" }, money(player.balance)),
    el("td", {}, el("span", { class: `badge ${player.suspended ? "paused" : "open"}` }, player.suspended ? t("suspended") : t("active"))),
    el("td", {}, when(player.created_at)),
    el("td", {}, el("span", { class: "row-actions" }, amount,
      el("button", { type: "button", class: "credit-button", onclick: creditIt }, t("credit")))),
    el("td", {}, operator ? null : el("span", { class: "row-actions" },
      el("button", { type: "button", class: "suspend-button", onclick: toggle }, player.suspended ? t("unsuspend") : t("suspend")))));
}

async function showHistory(player) {
  const lines = await api.history(player.id);
  const box = $("player-history");
  box.hidden = false;
  const head = el("tr", {}, ...["when", "reason", "table", "round", "bet", "amount", "after"].map((k, i) =>
    el("th", { class: i >= 5 ? "num" : "" }, t(k))));
  box.replaceChildren(el("h3", {}, `${t("history")} — ${player.username}`),
    el("table", { class: "grid-table" }, head, ...lines.map((line) => el("tr", {},
      el("td", {}, when(line.at)), el("td", { dataset: { reason: line.reason } }, t(`reason.${line.reason}`)), el("td", {}, line.table_name ?? ""),
      el("td", {}, line.shoe_no ? `${t("shoe")} ${line.shoe_no} · ${line.coup_in_shoe}` : ""), el("td", {}, line.bet ? t(`bet.${line.bet}`) : ""),
      el("td", { class: `num ${signClass(line.amount)}` }, money(line.amount)),
      el("td", { class: "num" }, money(line.balance))))));
}

// --- start ------------------------------------------------------------------------------------

function init() {
  const saved = localStorage.getItem("pb.operator.lang");
  const browser = (navigator.language || "fr").slice(0, 2);
  setLang(saved || (LANGUAGES.includes(browser) ? browser : "fr"));
  api.setApiLang(lang());
  translate();
  for (const button of document.querySelectorAll(".langs button")) {
    button.addEventListener("click", () => chooseLang(button.dataset.lang));
  }
  for (const button of document.querySelectorAll("#tabs button")) {
    button.addEventListener("click", () => showTab(button.dataset.tab));
  }
  $("login-form").addEventListener("submit", onLogin);
  $("logout").addEventListener("click", onLogout);
  $("new-table").addEventListener("submit", onNewTable);
  let searchTimer = null;
  $("player-search").addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => guard(refreshPlayers()), 250);
  });
  initReports(guard);
  initDealers(guard);
  start();
}

init();
