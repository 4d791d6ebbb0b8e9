// The player's bets: a chip on a box (stopped at the box's maximum, with a note), the clear
// button, undo, clear all, repeat and double, and what a settlement shows (the overlay, the chips
// moving, the tone). main.js keeps the state; this module acts on it through `ctx`.

import * as api from "./api.js";
import { BOXES } from "./felt.js";
import { betName, lang, t, tf } from "./i18n.js";
import { formatCents, formatNet } from "./money.js";
import { returned } from "./payouts.js";
import { play } from "./sound.js";

const $ = (selector) => document.querySelector(selector);
const sum = (bets) => Object.values(bets || {}).reduce((total, cents) => total + cents, 0);

/**
 * The betting actions of a page: ctx = {state, felt, showMessage, showAuth, announce,
 * renderPanel, renderControls, setBalance, pausedText}.
 */
export function betting(ctx) {
  const { state, felt, showMessage, showAuth, announce, renderPanel, renderControls, setBalance,
    pausedText } = ctx;

  /** The win/loss overlay, the chips moving, the tone, the announcement: after a settlement. */
  function feedback(lines) {
    const net = lines.reduce((total, line) => total + line.net, 0);
    felt.showOutcome(net, lines.reduce((total, line) => total + returned(line), 0));
    play(net > 0 ? "win" : net < 0 ? "lose" : "chip");
    const balance = $(".balance-box");
    for (const line of lines) {
      const box = felt.boxNode(line.bet);
      if (line.outcome === "lose") felt.flyChip(box, $("#status"), line.stake);
      else felt.flyChip(box, balance, line.stake + Math.max(0, line.net));
    }
    announce(`${t(net > 0 ? "ui.you_win" : net < 0 ? "ui.you_lose" : "ui.even")} ${formatNet(net, lang())}`);
  }

  /** A refusal in words: the server's sentence with the figures, the stake the box would hold
   * (when known) and the limit it passes: "… (stake €60.00; maximum €50.00)". */
  function refusalText(err, bet, asked = null) {
    const limits = state.rules && bet && state.rules.limits[bet];
    const which = { "below-minimum": ["ui.minimum", 0], "above-maximum": ["ui.maximum", 1] }[err.code];
    if (!limits || !which) return err.message;
    const figures = [tf(which[0], { amount: formatCents(limits[which[1]], lang()) })];
    if (asked !== null) figures.unshift(tf("ui.asked", { amount: formatCents(asked, lang()) }));
    return `${err.message} (${figures.join("; ")})`;
  }

  /** The stake a chip puts on a box: the chip, or what is left up to the box's maximum (with the
   * note that says so); null when the box is already at its maximum (and that is said). */
  function chipStake(bet, chip) {
    const limits = state.rules && state.rules.limits[bet];
    const current = state.myBets[bet] || 0;
    if (!limits || current + chip <= limits[1]) return { stake: chip, note: "" };
    const high = limits[1];
    const money = (cents) => formatCents(cents, lang());
    if (current >= high) {
      showMessage(tf("ui.at_maximum", { box: betName(bet), max: money(high) }));
      return null;
    }
    const rest = high - current;
    return { stake: rest, note: tf("ui.capped", { placed: money(rest), chip: money(chip), box: betName(bet),
      max: money(high) }) };
  }

  /** Whether a bet action may go to the server now; if not, say why (or ask to sign up). */
  function canAct() {
    if (state.spectator || !state.player) {
      showAuth("signup");
      return false;
    }
    if (!state.socket || !state.socket.isUp()) {
      showMessage(t("ui.offline"));
      return false;
    }
    if (state.database) {
      showMessage(pausedText());
      return false;
    }
    return true;
  }

  function applyBets(answer) {
    state.myBets = answer.my_bets || {};
    setBalance(answer.balance);
    felt.setBets(state.myBets, state.totals, state.phase === "open");
    renderPanel();
    renderControls();
  }

  async function placeChip(bet) {
    if (!felt.chip || state.tableId === null || !canAct()) return;
    const chip = felt.chip;
    const plan = chipStake(bet, chip);
    if (!plan) {
      felt.flashBox(bet, "refused");
      return;
    }
    const { stake, note } = plan;
    const asked = (state.myBets[bet] || 0) + stake;
    try {
      const answer = await api.placeBet(state.tableId, bet, stake, state.coupId ?? null);
      felt.flyChip(felt.chipButton(chip), felt.boxNode(bet), stake);
      state.history.push({ bet, stake });
      applyBets(answer);
      felt.flashBox(bet, "placed");
      play("chip");
      showMessage(note, "info");
    } catch (err) {
      felt.flashBox(bet, "refused");
      showMessage(refusalText(err, bet, asked));
    }
  }

  async function clearBet(bet) {
    if (!canAct()) return;
    try {
      applyBets(await api.withdrawBet(state.tableId, bet));
      state.history = state.history.filter((chip) => chip.bet !== bet);
      renderControls();
      showMessage("");
    } catch (err) {
      showMessage(err.message);
    }
  }

  /** Undo the last chip: the bet is taken back and, if more was on it, the rest placed again. */
  async function undo() {
    const last = state.history.at(-1);
    if (!last || !canAct()) return;
    const rest = (state.myBets[last.bet] || 0) - last.stake;
    try {
      applyBets(await api.withdrawBet(state.tableId, last.bet));
      state.history.pop();
      if (rest > 0) applyBets(await api.placeBet(state.tableId, last.bet, rest));
      renderControls();
      showMessage("");
    } catch (err) {
      showMessage(refusalText(err, last.bet));
    }
  }

  async function clearAll() {
    if (!canAct()) return;
    try {
      for (const bet of BOXES) {
        if (state.myBets[bet]) applyBets(await api.withdrawBet(state.tableId, bet));
      }
      state.history = [];
      renderControls();
      showMessage("");
    } catch (err) {
      showMessage(err.message);
    }
  }

  /** Repeat the last coup's bets, or double this coup's: all placed in one request, or none. */
  async function placeAll(bets, refusedBet) {
    if (!canAct()) return;
    if (!sum(bets)) {
      showMessage(t("ui.nothing_to_repeat"));
      return;
    }
    try {
      const answer = await api.placeBets(state.tableId, bets, state.coupId ?? null);
      for (const [bet, stake] of Object.entries(answer.placed || bets)) state.history.push({ bet, stake });
      applyBets(answer);
      play("chip");
      showMessage("");
    } catch (err) {
      for (const bet of Object.keys(bets)) felt.flashBox(bet, "refused");
      showMessage(refusalText(err, refusedBet || Object.keys(bets)[0]));
    }
  }

  function control(name) {
    if (name === "undo") undo();
    else if (name === "clear_all") clearAll();
    else if (name === "repeat") placeAll({ ...state.lastBets });
    else if (name === "double") placeAll({ ...state.myBets });
  }

  return { feedback, placeChip, clearBet, control };
}
