// The felt: the two hands with their cards and totals, the status and countdown, the five betting
// boxes (Lion Bonus Punto, Punto, Égalité, Banco, Lion Bonus Banco: L1 puts each Lion box beside
// its side) and the chip tray. It draws what main.js tells it; it keeps no game state of its own.

import { cardElement, revealCard } from "./cards.js";
import { betName, sideName, t } from "./i18n.js";
import { chipColour, chipLabel, chipsFor, chipValues, formatCents, formatNet } from "./money.js";

export const BOXES = ["lion-punto", "punto", "egalite", "banco", "lion-banco"];
export const CONTROLS = ["undo", "clear_all", "repeat", "double"];
const SIDES = ["punto", "banco"];

/** Whether the player asked the system for less motion. */
export function reducedMotion() {
  return window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

function div(className, text) {
  const node = document.createElement("div");
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A round chip showing an amount (for the tray and for the stakes in the boxes). */
export function chipNode(cents, colour, { small = false } = {}) {
  const chip = div(`chip${small ? " chip-small" : ""}`);
  chip.style.setProperty("--chip", colour);
  const label = div("chip-label", chipLabel(cents));
  label.dataset.len = String(Math.min(4, chipLabel(cents).length));
  chip.append(label);
  return chip;
}

/** A pay as odds: 8 → "8:1", "0.5" → "1:2", "8.5" → "17:2", "1/3" → "1:3". */
function odds(pay) {
  const text = String(pay);
  if (text.includes("/")) return text.replace("/", ":");
  const value = Number(text);
  for (let d = 1; d <= 10000; d += 1) {
    const n = Math.round(value * d);
    if (Math.abs(n / d - value) < 1e-9) return `${n}:${d}`;
  }
  return `${text}:1`;
}

function paysText(bet, rules) {
  if (bet === "punto") return "1:1";
  if (bet === "banco") {
    if (rules.banco_payout === "commission") {
      return `1:1 − ${Math.round(Number(rules.commission || 0.05) * 100)} %`;
    }
    // B2: the 6 at 1:2, or a designed table's other reduced totals
    const reduced = Object.entries(rules.banco_reduced_pays ?? { 6: "0.5" })
      .map(([total, pay]) => `${total} → ${odds(pay)}`);
    return ["1:1", ...reduced].join(" · ");
  }
  if (bet === "egalite") return odds(rules.tie_pays ?? 8);
  const table = rules.lion_paytable || [20, 8, 4, 4, 2, 1];
  const most = table.reduce((a, b) => (Number(b) > Number(a) ? b : a));
  return `${odds(rules.lion_natural_pays ?? 1)} … ${odds(most)}`;
}

export class Felt {
  constructor(root, { onBox, onClear, onChip, onControl }) {
    this.root = root;
    this.onBox = onBox;
    this.onClear = onClear;
    this.onChip = onChip;
    this.onControl = onControl || (() => {});
    this.rules = null;
    this.chips = [];
    this.chip = null;
    this.lang = "fr";
    this.phase = "idle";
    this.deadline = null;
    this.clockOffset = 0;
    this.seconds = 15;
    this.timer = null;
    this.offline = false;
    this.hands = {};
    this.boxes = {};
    this.build();
  }

  build() {
    const root = this.root;
    root.replaceChildren();
    const top = div("felt-top");
    for (const side of SIDES) {
      const hand = div(`hand hand-${side}`);
      hand.dataset.side = side;
      const title = div("hand-title");
      title.dataset.betName = side;
      const total = div("hand-total");
      total.id = `total-${side}`;
      const head = div("hand-head");
      head.append(title, total);
      const cards = div("hand-cards");
      cards.id = `cards-${side}`;
      hand.append(head, cards);
      this.hands[side] = { hand, title, total, cards };
    }
    const centre = div("felt-centre");
    this.status = div("status");
    this.status.id = "status";
    this.countdown = div("countdown");
    this.countdown.id = "countdown";
    this.countdown.innerHTML = '<svg viewBox="0 0 40 40" aria-hidden="true">'
      + '<circle class="ring-bg" cx="20" cy="20" r="17"/>'
      + '<circle class="ring" cx="20" cy="20" r="17" pathLength="100"/></svg>'
      + '<span class="countdown-secs"></span>';
    this.result = div("result");
    this.result.id = "result";
    centre.append(this.status, this.countdown, this.result);
    top.append(this.hands.punto.hand, centre, this.hands.banco.hand);

    this.boxRow = div("boxes");
    for (const bet of BOXES) {
      const box = div(`box box-${bet}${bet.startsWith("lion") ? " box-lion" : ""}`);
      box.dataset.box = bet;
      // The box's button covers it (its name says the bet, the pays and the stake); the × is
      // its sibling, never a button inside a button.
      const hit = document.createElement("button");
      hit.type = "button";
      hit.className = "box-hit";
      const name = div("box-name");
      if (bet.startsWith("lion")) {
        name.innerHTML = '<svg class="lion-mark" viewBox="0 0 40 40" aria-hidden="true">'
          + '<path d="M20 2 l4 6 7-3 0 8 7 2-4 6 4 6-7 2 0 8-7-3-4 6-4-6-7 3 0-8-7-2 4-6-4-6 7-2 0-8 7 3z"/>'
          + '<circle cx="20" cy="20" r="9"/><circle class="eye" cx="17" cy="18" r="1.3"/>'
          + '<circle class="eye" cx="23" cy="18" r="1.3"/></svg><span class="box-title"></span>';
      } else {
        name.innerHTML = '<span class="box-title"></span>';
      }
      const pays = div("box-pays");
      const limits = div("box-limits");
      // The player's chips, with the clear button (×) beside them: never over the box's words.
      const stake = div("box-stake");
      const chips = div("box-chips");
      const mine = div("box-mine");
      const others = div("box-total");
      const clear = document.createElement("button");
      clear.type = "button";
      clear.className = "box-clear";
      clear.textContent = "×";
      clear.hidden = true;
      clear.addEventListener("click", (event) => {
        event.stopPropagation();
        this.onClear(bet);
      });
      stake.append(chips, clear);
      for (const part of [name, pays, limits, chips, mine, others]) part.setAttribute("aria-hidden", "true");
      box.append(hit, name, pays, limits, stake, mine, others);
      box.addEventListener("click", () => this.onBox(bet));
      this.boxes[bet] = { box, hit, name, pays, limits, stake, chips, mine, others, clear };
      this.boxRow.append(box);
    }

    this.tray = div("chip-tray");
    this.tray.id = "chips";
    this.tray.setAttribute("role", "group");
    // The betting controls and the total staked this coup, on the felt.
    this.controls = div("bet-controls");
    this.controls.id = "bet-controls";
    this.controls.setAttribute("role", "group");
    this.controlButtons = {};
    for (const name of CONTROLS) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = `control control-${name}`;
      button.dataset.control = name;
      // aria-disabled, not disabled: a keyboard user still reaches (and hears) every control.
      button.addEventListener("click", () => {
        if (button.getAttribute("aria-disabled") !== "true") this.onControl(name);
      });
      this.controlButtons[name] = button;
      this.controls.append(button);
    }
    this.staked = div("staked");
    this.staked.id = "staked";
    this.controls.append(this.staked);
    this.hint = div("hint");
    this.hint.id = "hint";
    this.overlay = div("outcome-overlay");
    this.overlay.id = "outcome";
    this.overlay.hidden = true;
    // Over the boxes (closed while a coup is settled), never over the cards or the result.
    this.boxRow.append(this.overlay);
    // Tab order: chips, then boxes, then controls (the page is read in that order too); the
    // tray is drawn under the boxes by CSS order.
    root.append(top, this.tray, this.boxRow, this.controls, this.hint);
  }

  /** Which controls can act now: {undo: bool, clear_all: bool, repeat: bool, double: bool}. */
  setControls(enabled, stakedCents) {
    for (const name of CONTROLS) {
      this.controlButtons[name].setAttribute("aria-disabled", String(!enabled[name]));
    }
    this.staked.dataset.cents = String(stakedCents);
    this.staked.textContent = `${t("ui.staked")} ${formatCents(stakedCents, this.lang)}`;
  }

  setHint(text) {
    // The hint keeps its line when it has nothing to say: nothing below it moves.
    this.hint.textContent = text || "";
    this.hint.classList.toggle("off", !text);
  }

  /** The win/loss overlay, a few seconds: the coup's net and what came back, the same figures
   * as the payouts panel's (a push: "Stake returned", ↩ the stakes, net 0). */
  showOutcome(net, back) {
    const overlay = this.overlay;
    this.fillOutcome(net, back);
    overlay.hidden = false;
    clearTimeout(this.overlayTimer);
    this.overlayTimer = setTimeout(() => { overlay.hidden = true; }, 3500);
  }

  fillOutcome(net, back) {
    const kind = net > 0 ? "win" : net < 0 ? "lose" : "even";
    this.overlay.className = `outcome-overlay outcome-${kind}`;
    this.overlay.dataset.net = String(net);
    this.overlay.dataset.returned = String(back);
    const netNode = div("outcome-net", formatNet(net, this.lang));
    netNode.dataset.cents = String(net);
    const backNode = div("outcome-returned", `↩ ${formatCents(back, this.lang)}`);
    backNode.dataset.cents = String(back);
    this.overlay.replaceChildren(div("outcome-title", t(kind === "win" ? "ui.you_win"
      : kind === "lose" ? "ui.you_lose" : "ui.even")), netNode, backNode);
  }

  hideOutcome() {
    clearTimeout(this.overlayTimer);
    this.overlay.hidden = true;
  }

  /** A chip flying from one element to another (placing, winning, losing); none with less motion. */
  flyChip(from, to, cents) {
    if (!from || !to || reducedMotion() || !document.body.animate) return;
    const a = from.getBoundingClientRect();
    const b = to.getBoundingClientRect();
    if (!a.width || !b.width) return;
    const chip = chipNode(cents, chipColour(cents), { small: true });
    chip.classList.add("chip-fly");
    chip.setAttribute("aria-hidden", "true");
    document.body.append(chip);
    const x0 = a.left + a.width / 2 - 17;
    const y0 = a.top + a.height / 2 - 17;
    const x1 = b.left + b.width / 2 - 17;
    const y1 = b.top + b.height / 2 - 17;
    const run = chip.animate([
      { transform: `translate(${x0}px, ${y0}px) scale(1)`, opacity: 1 },
      { transform: `translate(${x1}px, ${y1}px) scale(.8)`, opacity: 0.2 },
    ], { duration: 550, easing: "cubic-bezier(.3,.7,.4,1)" });
    run.onfinish = () => chip.remove();
    run.oncancel = () => chip.remove();
  }

  boxNode(bet) {
    return this.boxes[bet] && this.boxes[bet].box;
  }

  chipButton(value) {
    return this.tray.querySelector(`.chip-button[data-chip="${value}"]`);
  }

  setRules(rules) {
    this.rules = rules;
    this.chips = chipValues(rules);
    if (!this.chips.includes(this.chip)) this.chip = this.chips.includes(2500) ? 2500 : this.chips[0];
    this.tray.replaceChildren();
    for (const value of this.chips) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "chip-button";
      button.dataset.chip = String(value);
      button.append(chipNode(value, chipColour(value)));
      button.addEventListener("click", () => {
        this.setChip(value);
        this.onChip(value);
      });
      this.tray.append(button);
    }
    this.setChip(this.chip);
    this.translate(this.lang);
  }

  setChip(value) {
    this.chip = value;
    for (const button of this.tray.querySelectorAll(".chip-button")) {
      const selected = Number(button.dataset.chip) === value;
      button.classList.toggle("selected", selected);
      button.setAttribute("aria-pressed", String(selected));
    }
  }

  translate(lang) {
    this.lang = lang;
    for (const side of SIDES) this.hands[side].title.textContent = sideName(side);
    for (const bet of BOXES) {
      const parts = this.boxes[bet];
      this.setTitle(parts.name.querySelector(".box-title"), bet);
      parts.clear.title = t("ui.clear");
      parts.clear.setAttribute("aria-label", `${t("ui.clear")} ${betName(bet)}`);
      if (this.rules) {
        const [low, high] = this.rules.limits[bet];
        parts.pays.textContent = paysText(bet, this.rules);
        parts.limits.textContent = `${formatCents(low, lang).replace(/[.,]00(?=\D|$)/, "")} – `
          + `${formatCents(high, lang).replace(/[.,]00(?=\D|$)/, "")}`;
        parts.limits.title = t("limits");
      }
    }
    this.tray.setAttribute("aria-label", t("ui.chips"));
    this.controls.setAttribute("aria-label", t("ui.staked"));
    for (const button of this.tray.querySelectorAll(".chip-button")) {
      // The name begins with what the chip shows ("1K"), then says it in full.
      const cents = Number(button.dataset.chip);
      button.setAttribute("aria-label", `${chipLabel(cents)} · ${t("ui.chip")} ${formatCents(cents, lang)}`);
    }
    for (const name of CONTROLS) this.controlButtons[name].textContent = t(`ui.${name}`);
    if (!this.overlay.hidden) {
      this.fillOutcome(Number(this.overlay.dataset.net), Number(this.overlay.dataset.returned));
    }
    this.renderStatus();
  }

  /** A box's name; a Lion Bonus box's on two lines: "Lion Bonus" above its side's name. */
  setTitle(node, bet) {
    const whole = betName(bet);
    const side = bet.startsWith("lion-") ? betName(bet.slice("lion-".length)) : "";
    if (!side || !whole.endsWith(side) || whole.length === side.length) {
      node.textContent = whole;
      return;
    }
    const lead = document.createElement("span");
    lead.className = "box-title-lead";
    lead.textContent = whole.slice(0, whole.length - side.length).trim();
    const name = document.createElement("span");
    name.className = "box-title-side";
    name.textContent = side;
    node.replaceChildren(lead, " ", name);  // the text stays the bet's whole name
  }

  /** My stakes and the table's totals per box; whether bets can be changed now. */
  setBets(myBets, totals, open) {
    for (const bet of BOXES) {
      const parts = this.boxes[bet];
      const mine = (myBets && myBets[bet]) || 0;
      const total = (totals && totals[bet]) || 0;
      parts.box.classList.toggle("has-bet", mine > 0);
      parts.box.classList.toggle("open", Boolean(open));
      parts.chips.replaceChildren();
      if (mine > 0) parts.chips.append(this.stackFor(mine));
      parts.mine.textContent = mine > 0 ? formatCents(mine, this.lang) : "";
      parts.mine.dataset.cents = String(mine);
      parts.others.textContent = total > 0 ? `${t("ui.table_total")} ${formatCents(total, this.lang)}` : "";
      parts.clear.hidden = !(open && mine > 0);
      const label = [betName(bet), parts.pays.textContent, parts.limits.textContent];
      if (mine > 0) label.push(`${t("ui.your_bet")} ${formatCents(mine, this.lang)}`);
      parts.hit.setAttribute("aria-label", label.filter(Boolean).join(", "));
    }
  }

  stackFor(cents) {
    // The stake as the rack's own chips (fewest), drawn as a small stack (at most 6 shown).
    const stack = div("stack");
    const used = chipsFor(cents, this.chips);
    const shown = used ? used.slice(0, 6).reverse() : [cents];
    shown.forEach((value, i) => {
      const chip = chipNode(value, used ? chipColour(value) : "#455a64", { small: true });
      chip.style.setProperty("--i", String(i));
      stack.append(chip);
    });
    stack.style.setProperty("--n", String(shown.length));
    return stack;
  }

  flashBox(bet, kind = "refused") {
    const box = this.boxes[bet] && this.boxes[bet].box;
    if (!box) return;
    box.classList.remove("flash-refused", "flash-placed");
    void box.offsetWidth;
    box.classList.add(`flash-${kind}`);
  }

  // --- phase and countdown ------------------------------------------------------------------

  setPhase(phase, { deadline = null, serverTime = null, seconds = null } = {}) {
    this.phase = phase;
    if (deadline !== null && deadline !== undefined) {
      this.deadline = deadline;
      if (serverTime) this.clockOffset = serverTime - Date.now();
    } else if (phase !== "open") {
      this.deadline = null;
    }
    if (seconds) this.seconds = seconds;
    this.root.dataset.phase = phase;
    clearInterval(this.timer);
    if (phase === "open" && this.deadline) this.timer = setInterval(() => this.renderStatus(), 200);
    this.renderStatus();
  }

  remainingMs() {
    if (!this.deadline) return 0;
    return Math.max(0, this.deadline - (Date.now() + this.clockOffset));
  }

  /** While the connection is down the felt says so (never "Place your bets"). */
  setOffline(offline) {
    if (this.offline === offline) return;
    this.offline = offline;
    this.renderStatus();
  }

  renderStatus() {
    const phase = this.phase;
    const words = {
      open: t("place_bets"), closed: t("no_more_bets"), dealt: t("ui.dealing"),
      settled: t("ui.waiting"), idle: t("ui.waiting"), void: t("ui.waiting"),
    };
    this.status.textContent = this.offline ? t("ui.offline_short") : words[phase] ?? "";
    this.status.dataset.phase = phase;
    this.status.dataset.offline = String(this.offline);
    const open = phase === "open" && this.deadline && !this.offline;
    // Hidden, not removed: the countdown's slot keeps its size (the layout does not move).
    this.countdown.classList.toggle("off", !open);
    if (open) {
      const ms = this.remainingMs();
      const secs = Math.ceil(ms / 1000);
      this.countdown.querySelector(".countdown-secs").textContent = String(secs);
      const fraction = Math.min(1, ms / (this.seconds * 1000));
      this.countdown.querySelector(".ring").style.strokeDashoffset = String(100 - fraction * 100);
      this.countdown.classList.toggle("hurry", secs <= 3);
      this.countdown.title = `${t("ui.closes_in")} ${secs} s`;
    }
  }

  // --- cards --------------------------------------------------------------------------------

  clearCards() {
    for (const side of SIDES) {
      this.hands[side].cards.replaceChildren();
      this.hands[side].total.textContent = "";
      this.hands[side].hand.classList.remove("winner", "dimmed");
    }
    this.result.replaceChildren();
    this.result.className = "result";
  }

  /** Four cards face down: the coup about to be dealt (R3). */
  showBacks() {
    this.clearCards();
    for (const position of [0, 1]) {
      for (const side of SIDES) this.slot(side, position).append(cardElement(null, { faceDown: true }));
    }
  }

  slot(side, position) {
    const cards = this.hands[side].cards;
    while (cards.children.length <= position) {
      const slot = div(`card-slot pos-${cards.children.length}`);
      cards.append(slot);
    }
    return cards.children[position];
  }

  /** A card-dealt message: turn (or bring in, then turn) the card at that place. */
  dealCard(side, position, card, puntoTotal, bancoTotal) {
    const slot = this.slot(side, position);
    let node = slot.querySelector(".card");
    if (!node) {
      node = cardElement(null, { faceDown: true });
      node.classList.add("incoming");
      slot.append(node);
    }
    revealCard(node, card);
    // Each side's total counts the cards shown so far; a side with no card yet shows none.
    this.hands[side].total.textContent = String(side === "punto" ? puntoTotal : bancoTotal);
  }

  /** A card-corrected message: the dealer's mistyped card replaced, face up, in its place. */
  correctCard(side, position, card, puntoTotal, bancoTotal) {
    this.slot(side, position).replaceChildren(cardElement(card));
    this.setTotals(puntoTotal, bancoTotal);
  }

  setTotals(puntoTotal, bancoTotal) {
    if (puntoTotal !== null && puntoTotal !== undefined) this.hands.punto.total.textContent = String(puntoTotal);
    if (bancoTotal !== null && bancoTotal !== undefined) this.hands.banco.total.textContent = String(bancoTotal);
  }

  /** Cards already on the table (a snapshot): [{side, position, card}], shown face up. */
  showCards(cards, totals) {
    this.clearCards();
    for (const { side, position, card } of cards) {
      this.slot(side, position).append(cardElement(card));
    }
    if (totals) this.setTotals(totals.punto, totals.banco);
  }

  /** A whole coup object (the last result), face up; dimmed while the next round is open. */
  showCoup(coup, { dimmed = false } = {}) {
    const cards = [];
    for (const side of SIDES) {
      (coup[side].cards || []).forEach((card, position) => cards.push({ side, position, card }));
    }
    this.showCards(cards, { punto: coup.punto.total, banco: coup.banco.total });
    this.showResult(coup);
    for (const side of SIDES) this.hands[side].hand.classList.toggle("dimmed", dimmed);
    this.result.classList.toggle("dimmed", dimmed);
  }

  /** The result: "Banco gagne 7 à 5" style, the natural marked. */
  showResult(coup) {
    this.result.replaceChildren();
    if (!coup) return;
    const winner = coup.winner;
    this.result.className = `result result-${winner}`;
    this.result.dataset.winner = winner;
    const main = div("result-main");
    main.textContent = winner === "egalite" ? betName("egalite") : `${sideName(winner)} ${t("wins")}`;
    const score = div("result-score", `${coup.punto.total} – ${coup.banco.total}`);
    this.result.append(main, score);
    if (coup.natural) this.result.append(div("result-natural", t("natural")));
    for (const side of SIDES) this.hands[side].hand.classList.toggle("winner", winner === side);
  }
}
