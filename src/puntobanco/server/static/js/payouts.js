// The payout panel: a coup's settlement lines exactly in the order the server sends them (main
// bets first, Lion Bonus after: L6), each with the bet, the stake, the outcome, the pay and the
// net; then what came back and the new balance.

import { betName, detailText, t, tf } from "./i18n.js";
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

/**
 * Why a Lion Bonus line lost (L5), from the coup: its side lost, or won by too little, or won
 * by enough without a third card ("Player won by 1: needs a natural or 4+").
 */
export function lionReason(line, coup) {
  if (!coup || !line.bet.startsWith("lion-") || line.outcome !== "lose" || !coup.punto) return "";
  const side = line.bet.slice("lion-".length);
  const other = side === "punto" ? "banco" : "punto";
  const mine = coup[side].total;
  const theirs = coup[other].total;
  if (mine === null || mine === undefined) return "";
  if (mine === theirs) return t("lion.tie");
  if (mine < theirs) return tf("lion.side_lost", { side: betName(side) });
  const drawn = (coup.punto.cards || []).length + (coup.banco.cards || []).length > 4;
  const n = mine - theirs;
  return tf(n >= 4 && !drawn ? "lion.no_draw" : "lion.small", { side: betName(side), n });
}

/** A table of settlement lines (shared by the payout panel and the recall). */
export function linesTable(lines, lang, coup = null) {
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
    const extra = [pays, detailText(line.detail), lionReason(line, coup)].filter(Boolean).join(" · ");
    if (extra) outcome.append(cell("span", "line-pays", extra));
    row.append(outcome);
    row.append(cell("td", "line-net", formatNet(line.net, lang)));
    body.append(row);
  });
  table.append(head, body);
  return table;
}

/**
 * Fill the payout panel: the bets on the coup being played (while they wait for a result), or
 * the last settlement (or that there was no bet on it); the balance shown is the wallet's now,
 * the same as the header's.
 */
export function renderPayouts(root, settlement, lang, { pending = null, balance = null, coup = null } = {}) {
  root.replaceChildren();
  const title = cell("h2", "", t("payouts"));
  root.append(title);
  const pendingBets = pending && Object.entries(pending).filter(([, cents]) => cents > 0);
  if (pendingBets && pendingBets.length) {
    title.append(cell("span", "payout-coup", ` · ${t("ui.bets_on")}`));
    const list = cell("ul", "pending-bets");
    for (const [bet, cents] of pendingBets) {
      const item = cell("li", "pending-bet");
      item.dataset.bet = bet;
      item.append(cell("span", "line-bet", betName(bet)), cell("span", "line-stake", formatCents(cents, lang)));
      list.append(item);
    }
    root.append(list, cell("p", "muted small", t("ui.awaiting")));
    root.dataset.coup = "";
    root.dataset.pending = "true";
    return;
  }
  root.dataset.pending = "false";
  if (settlement && settlement.coup_in_shoe) {
    title.append(cell("span", "payout-coup", ` · ${t("shoe")} ${settlement.shoe_no} · ${t("coup")} ${settlement.coup_in_shoe}`));
  }
  if (!settlement || !settlement.lines || !settlement.lines.length) {
    root.append(cell("p", "muted", t("ui.no_bets")));
    root.dataset.coup = settlement ? String(settlement.coup_id ?? "") : "";
    return;
  }
  root.dataset.coup = String(settlement.coup_id ?? "");
  root.append(linesTable(settlement.lines, lang, coup));
  const net = settlement.lines.reduce((sum, line) => sum + line.net, 0);
  const back = settlement.lines.reduce((sum, line) => sum + returned(line), 0);
  const foot = cell("div", "payout-foot");
  const netNode = cell("span", `payout-net ${net > 0 ? "up" : net < 0 ? "down" : ""}`,
    `${t("ui.net")} ${formatNet(net, lang)}`);
  netNode.dataset.cents = String(net);
  const backNode = cell("span", "payout-returned", `↩ ${formatCents(back, lang)}`);
  backNode.dataset.cents = String(back);
  foot.append(netNode, backNode);
  const now = balance ?? settlement.balance;
  if (now !== undefined && now !== null) {
    const node = cell("span", "payout-balance", `${t("balance")} ${formatCents(now, lang)}`);
    node.dataset.cents = String(now);
    foot.append(node);
  }
  root.append(foot);
}
