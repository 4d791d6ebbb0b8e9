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

async function saveCsv(tableId) {
  const [from, to] = period();
  const blob = await api.download(api.reportCsvPath(tableId, from, to));
  const link = el("a", { href: URL.createObjectURL(blob),
    download: `${tableId ? `table-${tableId}` : "tables"}-${from || "all"}-${to || "all"}.csv` });
  document.body.append(link);
  link.click();
  link.remove();
}

export function initReports(guard) {
  guardCall = guard;
  $("report-form").addEventListener("submit", (event) => { event.preventDefault(); guard(showReports()); });
  $("room-csv").addEventListener("click", () => guard(saveCsv(null)));
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
];
const figureHeads = () => ["coups", "bets", "handle", "house_win", "hold", "theoretical", "z", "band"]
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
  if (selected === "room") openRoom(report);
  else if (selected !== null) await openTable(selected);
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
    width: Math.max(320, Math.floor(box.clientWidth || 720)), height: 300,
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

const compact = (value) => (value === null || value === undefined ? "∅" : JSON.stringify(value));

export async function showAudit(fresh) {
  const select = $("audit-action");
  if (!select.options.length || select.dataset.lang !== t("all_actions")) {
    const chosen = select.value;
    select.replaceChildren(el("option", { value: "" }, t("all_actions")),
      ...ACTIONS.map((a) => el("option", { value: a, selected: a === chosen }, t(`action.${a}`))));
    select.dataset.lang = t("all_actions");
  }
  const params = { limit: 50, action: select.value || undefined };
  if (!fresh && oldestAudit !== null) params.before_id = oldestAudit;
  const entries = await api.auditLog(params);
  const table = $("audit");
  if (fresh) {
    table.replaceChildren(el("tr", {}, ...["when", "who", "action", "target", "change"].map((k) => el("th", {}, t(k)))));
  }
  for (const entry of entries) {
    table.append(el("tr", { dataset: { action: entry.action } },
      el("td", {}, when(entry.at)), el("td", {}, entry.operator),
      el("td", {}, t(`action.${entry.action}`)),
      el("td", {}, `${t(entry.target_kind === "table" ? "table" : "player")} #${entry.target_id}`,
        entry.target_name ? ` · ${entry.target_name}` : ""),
      el("td", { class: "change" }, `${compact(entry.before)} → ${compact(entry.after)}`)));
  }
  if (entries.length) oldestAudit = entries[entries.length - 1].id;
  $("audit-more").hidden = entries.length < params.limit;
}
