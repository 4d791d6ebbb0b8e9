// The payout panel: a coup's settlement lines exactly in the order the server sends them (main
// bets first, Lion Bonus after: L6), each with the bet, the stake, the outcome, the pay and the
// net; then what came back and the new balance.

import { betName, detailText, t } from "./i18n.js";
import { formatCents, formatNet } from "./money.js";

function cell(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** What a line gives back to the player: the stake and winnings, or nothing on a loss. */
export function returned(line) {
  return line.outcome === "lose" ? 0 : line.stake + line.net;
}

/** A table of settlement lines (shared by the payout panel and the recall). */
export function linesTable(lines, lang) {
  const table = cell("table", "lines");
  const head = cell("thead");
  const headRow = cell("tr");
  for (const key of ["ui.your_bet", "stake", "result", "ui.net"]) headRow.append(cell("th", "", t(key)));
  head.append(headRow);
  const body = cell("tbody");
  lines.forEach((line, order) => {
    const row = cell("tr", `line line-${line.outcome}`);
    row.dataset.bet = line.bet;
    row.dataset.order = String(order);
    row.dataset.net = String(line.net);
    row.dataset.stake = String(line.stake);
    row.append(cell("td", "line-bet", betName(line.bet)));
    row.append(cell("td", "line-stake", formatCents(line.stake, lang)));
    const outcome = cell("td", "line-outcome");
    outcome.append(cell("span", `outcome outcome-${line.outcome}`, t(line.outcome)));
    const pays = line.outcome === "win" ? line.pays : "";
    const extra = [pays, detailText(line.detail)].filter(Boolean).join(" · ");
    if (extra) outcome.append(cell("span", "line-pays", extra));
    row.append(outcome);
    row.append(cell("td", "line-net", formatNet(line.net, lang)));
    body.append(row);
  });
  table.append(head, body);
  return table;
}

/** Fill the payout panel with a settlement (or say there was no bet on this coup). */
export function renderPayouts(root, settlement, lang) {
  root.replaceChildren();
  const title = cell("h3", "", t("payouts"));
  if (settlement && settlement.coup_in_shoe) {
    title.append(cell("span", "payout-coup", ` · ${t("shoe")} ${settlement.shoe_no} · ${t("coup")} ${settlement.coup_in_shoe}`));
  }
  root.append(title);
  if (!settlement || !settlement.lines || !settlement.lines.length) {
    root.append(cell("p", "muted", t("ui.no_bets")));
    root.dataset.coup = settlement ? String(settlement.coup_id ?? "") : "";
    return;
  }
  root.dataset.coup = String(settlement.coup_id ?? "");
  root.append(linesTable(settlement.lines, lang));
  const net = settlement.lines.reduce((sum, line) => sum + line.net, 0);
  const back = settlement.lines.reduce((sum, line) => sum + returned(line), 0);
  const foot = cell("div", "payout-foot");
  const netNode = cell("span", `payout-net ${net > 0 ? "up" : net < 0 ? "down" : ""}`,
    `${t("ui.net")} ${formatNet(net, lang)}`);
  netNode.dataset.cents = String(net);
  const backNode = cell("span", "payout-returned", `↩ ${formatCents(back, lang)}`);
  backNode.dataset.cents = String(back);
  foot.append(netNode, backNode);
  if (settlement.balance !== undefined && settlement.balance !== null) {
    const balance = cell("span", "payout-balance", `${t("balance")} ${formatCents(settlement.balance, lang)}`);
    balance.dataset.cents = String(settlement.balance);
    foot.append(balance);
  }
  root.append(foot);
}
