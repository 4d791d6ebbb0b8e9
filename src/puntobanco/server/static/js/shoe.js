// The side panels of the shoe: its progress (cards left, cut card, last coup) and its provably
// fair commitment, with the previous shoe's check done on the page (fair.js).

import { shortHash } from "./fair.js";
import { t } from "./i18n.js";

const $ = (selector) => document.querySelector(selector);

/** The shoe panel: its number, the coup, the cards left, the cut card (S3) and last coup. */
export function drawShoe(shoe, rules) {
  const root = $("#shoe-panel");
  if (!shoe || !rules) {
    root.hidden = true;
    return;
  }
  root.hidden = false;
  const total = shoe.cards || rules.decks * 52;
  const used = total - shoe.cards_left;
  const cutIndex = shoe.cut_index ?? total - rules.cut_card;
  $("#shoe-title").textContent = `${t("shoe")} ${shoe.shoe_no}`;
  // the coup being played (its number in the shoe, as recall and the reports say it)
  $("#shoe-coup").textContent = `${t("coup")} ${shoe.coup_in_shoe ?? shoe.coups_dealt ?? 0}`;
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

/** The provably fair panel: the current commitment, the previous shoe checked on the page. */
export function drawFair(shoe, previous) {
  const current = $("#fair-current");
  current.textContent = shoe ? shortHash(shoe.commitment) : "—";
  current.title = shoe ? shoe.commitment : "";
  current.dataset.commitment = shoe ? shoe.commitment : "";
  $("#fair-current-note").textContent = shoe ? `${t("shoe")} ${shoe.shoe_no} · ${t("ui.after_shoe")}` : "";
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
