// The console's dealers (docs/dealer.md): the accounts that drive hand-dealt tables, made by the
// operator, and the tables each one may drive. Every change is in the audit log.

import * as api from "./op-api.js";
import { el } from "./op-dom.js";
import { LANGUAGES, t } from "./op-words.js";

const $ = (id) => document.getElementById(id);
let guardCall = (promise) => promise;

export function initDealers(guard) {
  guardCall = guard;
  const form = $("new-dealer");
  form.lang.replaceChildren(...LANGUAGES.map((code) => el("option", { value: code }, code.toUpperCase())));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    guard(api.createDealer(form.username.value.trim(), form.password.value, form.lang.value)
      .then(() => { form.username.value = ""; form.password.value = ""; return showDealers(); }));
  });
}

/** The dealers, each with a box per hand-dealt table (ticked: the dealer may drive it). */
export async function showDealers() {
  const [found, views] = await Promise.all([api.dealers(), api.liveTables()]);
  const handDealt = views.map((view) => view.table).filter((table) => table.dealing === "dealer");
  $("dealers-note").textContent = handDealt.length ? "" : t("no_dealer_tables");
  $("dealers-note").hidden = handDealt.length > 0;
  const head = el("tr", {}, ...["username", "lang", "dealer_tables", ""].map((k) => el("th", {}, k ? t(k) : "")));
  const rows = found.map((dealer) => dealerRow(dealer, handDealt));
  $("dealers").replaceChildren(head, ...(rows.length ? rows
    : [el("tr", {}, el("td", { colspan: 4, class: "muted" }, t("no_dealers")))]));
}

function dealerRow(dealer, tables) {
  const note = el("span", { class: "form-note" });
  const boxes = tables.map((table) => el("label", { class: "check" },
    el("input", { type: "checkbox", value: table.id, checked: dealer.tables.includes(table.id) }),
    table.name));
  const save = async () => {
    const chosen = boxes.map((label) => label.firstChild).filter((box) => box.checked)
      .map((box) => Number(box.value));
    try {
      await api.assignTables(dealer.id, chosen);
      note.textContent = t("saved");
      note.className = "form-note pos";
    } catch (error) {
      if (error.status === 401) return guardCall(Promise.reject(error));
      note.textContent = error.message;
      note.className = "form-note neg";
    }
    return null;
  };
  return el("tr", { dataset: { dealer: dealer.username } },
    el("td", {}, dealer.username),
    el("td", {}, dealer.lang.toUpperCase()),
    el("td", {}, el("span", { class: "row-actions wrap" }, boxes.length ? boxes : "—")),
    el("td", {}, el("span", { class: "row-actions" },
      el("button", { type: "button", class: "assign-button", disabled: !boxes.length, onclick: save }, t("save")),
      note)));
}
