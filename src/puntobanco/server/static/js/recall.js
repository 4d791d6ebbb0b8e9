// Game recall: the player's recent coups (GET /api/me/coups), newest first, each with its cards,
// result, the player's bets and settlement, and a check of its shoe once that shoe is revealed.

import * as api from "./api.js";
import { cardLabel } from "./cards.js";
import { verifyShoe } from "./fair.js";
import { betName, t } from "./i18n.js";
import { formatCents, formatNet } from "./money.js";
import { linesTable } from "./payouts.js";

function node(tag, className, text) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (text !== undefined) el.textContent = text;
  return el;
}

function handText(coup, side) {
  const hand = coup[side];
  return `${betName(side)} ${hand.total}: ${hand.cards.map(cardLabel).join(" ")}`;
}

// What the player opened survives the list being drawn again (after every settlement): the
// coups whose details are open, and each shoe check's answer (by coup).
const opened = new Set();
const checks = new Map();

function showCheck(coupId, target) {
  const found = checks.get(coupId);
  if (!found) return;
  target.textContent = found.text;
  target.className = `shoe-check ${found.kind}`;
}

async function checkShoe(coupId, shoeId, target) {
  const say = (text, kind = "") => {
    checks.set(coupId, { text, kind });
    // The list may have been drawn again meanwhile: write into the node now on the page.
    const now = document.querySelector(`.recall-item[data-coup="${coupId}"] .shoe-check`) || target;
    showCheck(coupId, now);
  };
  say("…");
  try {
    const shoe = await api.shoe(shoeId);
    if (!shoe.revealed) {
      say(t("ui.after_shoe"));
      return;
    }
    const result = await verifyShoe({ salt: shoe.revealed.salt, order: shoe.revealed.order,
      commitment: shoe.commitment });
    say(result.ok ? `✓ ${t("ui.verified")}` : `✗ ${t("ui.mismatch")}`, result.ok ? "ok" : "bad");
  } catch (err) {
    say(err.message);
  }
}

/** Render the recall list into `root`; `tableNames` {id: name} names each coup's table. */
export function renderRecall(root, coups, lang, tableNames = {}) {
  root.replaceChildren();
  if (!coups || !coups.length) {
    root.append(node("p", "muted", t("ui.no_coups")));
    return;
  }
  const list = node("ol", "recall-list");
  const tables = new Set(coups.map((coup) => coup.table_id));
  for (const coup of coups) {
    // A void coup gave the stakes back; an open one waits for its cards: neither has a winner.
    const status = coup.status || (coup.winner ? "settled" : "open");
    const dealt = Boolean(coup.winner);
    const item = node("li", `recall-item recall-${dealt ? coup.winner : status}`);
    item.dataset.coup = String(coup.id);
    item.dataset.status = status;
    const details = node("details");
    details.open = opened.has(coup.id);
    details.addEventListener("toggle", () => {
      if (details.open) opened.add(coup.id);
      else opened.delete(coup.id);
    });
    const summary = node("summary");
    const net = (coup.settlement || []).reduce((sum, line) => sum + line.net, 0);
    const staked = Object.values(coup.my_bets || {}).reduce((sum, cents) => sum + cents, 0);
    const name = tableNames[coup.table_id];
    const where = `${name && (tables.size > 1 || Object.keys(tableNames).length > 1) ? `${name} · ` : ""}`
      + `${t("shoe")} ${coup.shoe_no} · ${t("coup")} ${coup.coup_in_shoe}`;
    summary.append(node("span", "recall-where", where));
    if (dealt) {
      summary.append(
        node("span", `recall-winner winner-${coup.winner}`, betName(coup.winner)),
        node("span", "recall-score", `${coup.punto.total}–${coup.banco.total}`),
        node("span", `recall-net ${net > 0 ? "up" : net < 0 ? "down" : ""}`, formatNet(net, lang)),
      );
    } else if (status === "void") {
      summary.append(node("span", "recall-winner recall-void", t("ui.void")),
        node("span", "recall-score", ""),
        node("span", "recall-net", `↩ ${formatCents(staked, lang)}`));
    } else {
      summary.append(node("span", "recall-winner recall-open", t("ui.in_play")),
        node("span", "recall-score", ""),
        node("span", "recall-net", formatCents(staked, lang)));
    }
    details.append(summary);
    if (dealt) {
      details.append(node("div", "recall-hands", `${handText(coup, "punto")} · ${handText(coup, "banco")}`
        + (coup.natural ? ` · ${t("natural")}` : "")));
    } else {
      details.append(node("div", "recall-hands", Object.entries(coup.my_bets || {})
        .map(([bet, cents]) => `${betName(bet)} ${formatCents(cents, lang)}`).join(" · ")));
    }
    if (coup.settlement && coup.settlement.length) details.append(linesTable(coup.settlement, lang, coup));
    const check = node("button", "link-button", `${t("ui.check")} ${t("shoe").toLowerCase()} ${coup.shoe_no}`);
    check.type = "button";
    const checkResult = node("span", "shoe-check");
    showCheck(coup.id, checkResult);
    check.addEventListener("click", () => checkShoe(coup.id, coup.shoe_id, checkResult));
    const checkRow = node("div", "recall-check");
    checkRow.append(check, checkResult);
    details.append(checkRow);
    item.append(details);
    list.append(item);
  }
  root.append(list);
}
