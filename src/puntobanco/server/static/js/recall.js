// Game recall: the player's recent coups (GET /api/me/coups), newest first, each with its cards,
// result, the player's bets and settlement, and a check of its shoe once that shoe is revealed.

import * as api from "./api.js";
import { cardLabel } from "./cards.js";
import { verifyShoe } from "./fair.js";
import { betName, t } from "./i18n.js";
import { formatNet } from "./money.js";
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

async function checkShoe(shoeId, target) {
  target.textContent = "…";
  try {
    const shoe = await api.shoe(shoeId);
    if (!shoe.revealed) {
      target.textContent = t("ui.after_shoe");
      return;
    }
    const result = await verifyShoe({ salt: shoe.revealed.salt, order: shoe.revealed.order,
      commitment: shoe.commitment });
    target.textContent = result.ok ? `✓ ${t("ui.verified")}` : `✗ ${t("ui.mismatch")}`;
    target.className = `shoe-check ${result.ok ? "ok" : "bad"}`;
  } catch (err) {
    target.textContent = err.message;
  }
}

/** Render the recall list into `root`. */
export function renderRecall(root, coups, lang) {
  root.replaceChildren();
  if (!coups || !coups.length) {
    root.append(node("p", "muted", t("ui.no_coups")));
    return;
  }
  const list = node("ol", "recall-list");
  for (const coup of coups) {
    const item = node("li", `recall-item recall-${coup.winner}`);
    item.dataset.coup = String(coup.id);
    const details = node("details");
    const summary = node("summary");
    const net = (coup.settlement || []).reduce((sum, line) => sum + line.net, 0);
    summary.append(
      node("span", "recall-where", `${t("shoe")} ${coup.shoe_no} · ${t("coup")} ${coup.coup_in_shoe}`),
      node("span", `recall-winner winner-${coup.winner}`, betName(coup.winner)),
      node("span", "recall-score", `${coup.punto.total}–${coup.banco.total}`),
      node("span", `recall-net ${net > 0 ? "up" : net < 0 ? "down" : ""}`, formatNet(net, lang)),
    );
    details.append(summary);
    details.append(node("div", "recall-hands", `${handText(coup, "punto")} · ${handText(coup, "banco")}`
      + (coup.natural ? ` · ${t("natural")}` : "")));
    if (coup.settlement && coup.settlement.length) details.append(linesTable(coup.settlement, lang));
    const check = node("button", "link-button", `${t("ui.check")} ${t("shoe").toLowerCase()} ${coup.shoe_no}`);
    check.type = "button";
    const checkResult = node("span", "shoe-check");
    check.addEventListener("click", () => checkShoe(coup.shoe_id, checkResult));
    const checkRow = node("div", "recall-check");
    checkRow.append(check, checkResult);
    details.append(checkRow);
    item.append(details);
    list.append(item);
  }
  root.append(list);
}
