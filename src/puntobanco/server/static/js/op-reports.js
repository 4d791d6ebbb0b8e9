// The console's reports (hold against the theoretical edge, per table, shoe and day, with the
// chart) and the audit log (docs/operator.md).

import * as api from "./op-api.js";
import { decimal, el, money, percent, signClass, when } from "./op-dom.js";
import { holdChartSvg, holdSeries } from "./holdchart.js";
import { t } from "./op-words.js";

const $ = (id) => document.getElementById(id);
const KINDS = ["punto", "banco", "egalite", "lion-punto", "lion-banco"];
const ACTIONS = ["table-create", "table-rename", "table-rules", "table-pause", "table-resume",
  "player-credit", "player-suspend", "player-unsuspend", "dealer-create", "dealer-tables",
  "operator-password"];
let guardCall = (promise) => promise;
let selected = null; // the table whose report is open
let chartBy = "shoe";
let lastReport = null;
let oldestAudit = null;

const period = () => {
  const form = $("report-form");
  return [form.from.value || undefined, form.to.value || undefined];
};

async function saveCsv(tableId, players = false) {
  const [from, to] = period();
  const blob = await api.download(players ? api.playersCsvPath(from, to) : api.reportCsvPath(tableId, from, to));
  const name = players ? "players-all" : tableId ? `table-${tableId}` : "tables";
  const link = el("a", { href: URL.createObjectURL(blob), download: `${name}-${from || "all"}-${to || "all"}.csv` });
  document.body.append(link);
  link.click();
  link.remove();
}

export function initReports(guard) {
  guardCall = guard;
  $("report-form").addEventListener("submit", (event) => { event.preventDefault(); guard(showReports()); });
  $("room-csv").addEventListener("click", () => guard(saveCsv(null)));
  $("players-csv").addEventListener("click", () => guard(saveCsv(null, true)));
  $("table-csv").addEventListener("click", () => guard(saveCsv(selected === "room" ? null : selected)));
  for (const button of document.querySelectorAll("#table-report .toggle button")) {
    button.addEventListener("click", () => { chartBy = button.dataset.by; drawTableReport(); });
  }
  $("audit-action").addEventListener("change", () => guard(showAudit(true)));
  $("audit-more").addEventListener("click", () => guard(showAudit(false)));
  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => { if (!$("table-report").hidden) drawTableReport(); }, 150);
  });
}

const figureCells = (f) => [
  el("td", { class: "num" }, f.coups ?? ""),
  el("td", { class: "num" }, f.bets),
  el("td", { class: "num" }, money(f.handle)),
  el("td", { class: `num ${signClass(f.house_win)}` }, money(f.house_win)),
  el("td", { class: "num hold-cell" }, percent(f.hold)),
  el("td", { class: "num" }, percent(f.theoretical_edge)),
  el("td", { class: "num" }, f.z === null ? "—" : decimal(f.z)),
  el("td", { class: "num" }, f.band ? `${percent(f.band[0], 1)} … ${percent(f.band[1], 1)}` : "—"),
  el("td", { class: "num" }, f.tail === null || f.tail === undefined ? "—" : percent(f.tail, 2)),
];
const figureHeads = () => ["coups", "bets", "handle", "house_win", "hold", "theoretical", "z", "band", "tail"]
  .map((k) => el("th", { class: "num" }, t(k)));

export async function showReports() {
  const [from, to] = period();
  const report = await api.tablesReport(from, to);
  const head = el("tr", {}, el("th", {}, t("table")), ...figureHeads(), el("th", { class: "num" }, t("lion_share")));
  const lion = (f) => el("td", { class: "num" }, `${percent(f.lion.handle_share, 1)} / ${percent(f.lion.win_share, 1)}`);
  const rows = report.tables.map((line) => el("tr", {
    class: `clickable${line.table_id === selected ? " selected" : ""}`, dataset: { table: line.table_id },
    onclick: () => guardCall(openTable(line.table_id)),
  }, el("td", {}, line.name), ...figureCells(line), lion(line)));
  const total = el("tr", { class: `total-row clickable${selected === "room" ? " selected" : ""}`,
    dataset: { table: "room" }, onclick: () => openRoom(report) },
  el("td", {}, el("b", {}, t("total"))), ...figureCells(report.total), lion(report.total));
  $("report-tables").replaceChildren(head, ...rows, total);
  await showPlayers(from, to);
  if (selected === "room") openRoom(report);
  else if (selected !== null) await openTable(selected);
}

/** Per player: the theoretical win comps are based on, average bet, pace and win per drop. */
async function showPlayers(from, to) {
  const found = await api.playersReport(from, to);
  const heads = ["coups", "handle", "house_win", "theo_win", "avg_bet", "coups_per_hour", "win_per_drop"];
  const rows = found.players.map((p) => el("tr", { dataset: { player: p.player_id } },
    el("td", {}, p.username), el("td", { class: "num" }, p.coups), el("td", { class: "num" }, money(p.handle)),
    el("td", { class: `num ${signClass(p.house_win)}` }, money(p.house_win)),
    el("td", { class: "num" }, money(p.theoretical_win)), el("td", { class: "num" }, money(p.average_bet)),
    el("td", { class: "num" }, p.coups_per_hour === null ? "—" : decimal(p.coups_per_hour, 0)),
    el("td", { class: "num" }, percent(p.win_per_drop, 1))));
  $("report-players").replaceChildren(
    el("tr", {}, el("th", {}, t("player")), ...heads.map((k) => el("th", { class: "num" }, t(k)))),
    ...(rows.length ? rows : [el("tr", {}, el("td", { colspan: heads.length + 1 }, t("no_players")))]));
}

/** The whole room: its figures per bet and its chart per UTC day. */
function openRoom(report) {
  selected = "room";
  chartBy = "day";
  lastReport = { name: t("total"), total: report.total, by_shoe: [], by_day: report.by_day };
  markSelected();
  drawTableReport();
}

function markSelected() {
  for (const row of document.querySelectorAll("#report-tables tr[data-table]")) {
    row.classList.toggle("selected", row.dataset.table === String(selected));
  }
}

async function openTable(tableId) {
  selected = tableId;
  const [from, to] = period();
  lastReport = await api.tableReport(tableId, from, to);
  markSelected();
  drawTableReport();
}

function drawTableReport() {
  if (!lastReport) return;
  $("table-report").hidden = false;
  $("table-report-title").textContent = lastReport.name;
  for (const button of document.querySelectorAll("#table-report .toggle button")) {
    button.classList.toggle("active", button.dataset.by === chartBy);
    button.hidden = selected === "room" && button.dataset.by === "shoe";
  }
  const rows = chartBy === "shoe"
    ? lastReport.by_shoe.map((r) => ({ ...r, label: `${t("shoe")} ${r.shoe_no}` }))
    : lastReport.by_day.map((r) => ({ ...r, label: r.day }));
  const box = $("hold-chart");
  box.innerHTML = holdChartSvg(holdSeries(rows), {
    width: Math.max(240, Math.floor(box.clientWidth || 720)), height: 300,
    words: { hold: t("hold"), edge: t("theoretical"), band: t("band"), empty: t("empty") },
    format: (ratio) => percent(ratio, 1),
  });
  const head = el("tr", {}, el("th", {}, t("by_bet")), ...figureHeads());
  const total = lastReport.total;
  $("report-bets").replaceChildren(head,
    ...KINDS.map((kind) => el("tr", {}, el("td", {}, t(`bet.${kind}`)),
      ...figureCells({ ...total.by_bet[kind], coups: "" }))),
    el("tr", {}, el("td", {}, el("b", {}, t("total"))), ...figureCells(total)));
}

// --- audit log --------------------------------------------------------------------------------
// Each entry reads in words: its target by kind and name ("Dealer marco", never "Player #13"),
// its change with euros, bet names and table names (never raw JSON, never cents).

const LIMIT_KINDS = ["punto", "banco", "egalite", "lion-punto", "lion-banco"];
let tableNames = {};

function settingText(key, value) {
  if (value === null || value === undefined) return "—";
  if (key === "tie_pays") return `${value}:1`;
  if (key === "betting_seconds") return `${value} s`;
  if (Array.isArray(value)) return value.join(", ");
  if (typeof value === "object") return Object.entries(value).map(([k, v]) => `${k} ${v}`).join(", ");
  return String(value);
}

/** "Tie pays 8:1 → 9:1; Player €10.00–€5,000.00 → €20.00–€5,000.00". */
function rulesChange(before, after) {
  const parts = [];
  for (const key of Object.keys(after || {})) {
    const old = (before || {})[key];
    const now = after[key];
    if (key === "limits") {
      for (const kind of LIMIT_KINDS) {
        const a = old && old[kind];
        const b = now && now[kind];
        if (JSON.stringify(a) === JSON.stringify(b)) continue;
        const range = (pair) => (pair ? `${money(pair[0])}–${money(pair[1])}` : "—");
        parts.push(`${t(`bet.${kind}`)} ${range(a)} → ${range(b)}`);
      }
    } else {
      const label = { decks: t("decks"), tie_pays: t("tie_pays"), betting_seconds: t("betting_seconds") }[key] ?? key;
      parts.push(`${label.replace(/ \((s|€)\)$/, "")} ${settingText(key, old)} → ${settingText(key, now)}`);
    }
  }
  return parts.join("; ");
}

const tablesText = (ids) => (ids && ids.length
  ? ids.map((id) => tableNames[id] || `#${id}`).join(", ") : t("no_tables"));

/** What an entry changed, in words. */
export function changeText(entry) {
  const before = entry.before || {};
  const after = entry.after || {};
  switch (entry.action) {
    case "table-create": return `${after.name ?? ""}`;
    case "table-rename": return `${before.name} → ${after.name}`;
    case "table-rules": return rulesChange(before, after);
    case "player-credit":
      return `+${money(after.amount)} · ${t("balance")} ${money(before.balance)} → ${money(after.balance)}`;
    case "dealer-create": return `${after.username ?? ""} · ${t("lang")} ${String(after.lang ?? "").toUpperCase()}`;
    case "dealer-tables": return `${tablesText(before.tables)} → ${tablesText(after.tables)}`;
    default: return "—"; // a pause or a suspension: the action says it all
  }
}

function targetText(entry) {
  const kind = entry.action.startsWith("dealer-") ? "dealer" : entry.target_kind === "table" ? "table" : "player";
  const name = entry.target_name || (entry.action === "table-create" && entry.after && entry.after.name);
  return `${t(kind)} ${name || `#${entry.target_id}`}`;
}

export async function showAudit(fresh) {
  const select = $("audit-action");
  select.setAttribute("aria-label", t("action"));
  if (!select.options.length || select.dataset.lang !== t("all_actions")) {
    const chosen = select.value;
    select.replaceChildren(el("option", { value: "" }, t("all_actions")),
      ...ACTIONS.map((a) => el("option", { value: a, selected: a === chosen }, t(`action.${a}`))));
    select.dataset.lang = t("all_actions");
  }
  const params = { limit: 50, action: select.value || undefined };
  if (!fresh && oldestAudit !== null) params.before_id = oldestAudit;
  const [entries, tables] = await Promise.all([api.auditLog(params), api.tables().catch(() => [])]);
  tableNames = Object.fromEntries(tables.map((table) => [table.id, table.name]));
  const table = $("audit");
  if (fresh) {
    table.replaceChildren(el("tr", {}, ...["when", "who", "action", "target", "change"].map((k) => el("th", {}, t(k)))));
  }
  for (const entry of entries) {
    table.append(el("tr", { dataset: { action: entry.action } },
      el("td", {}, when(entry.at)), el("td", {}, entry.operator),
      el("td", {}, t(`action.${entry.action}`)),
      el("td", { class: "target" }, targetText(entry)),
      el("td", { class: "change" }, changeText(entry))));
  }
  if (entries.length) oldestAudit = entries[entries.length - 1].id;
  $("audit-more").hidden = entries.length < params.limit;
}
