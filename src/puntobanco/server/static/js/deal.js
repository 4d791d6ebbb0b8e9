// The deal's pace on the page (issue 21, fifth pass). A server-dealt coup's first four cards
// come in one write, each card-dealt saying how long after the card before it the page turns it
// (reveal_after_ms, docs/api.md): the page turns them one by one, Punto's and Banco's in turn, as
// a live table's players expect, never all four at once. Messages are handled in the order they
// came: a card waits for its moment, and whatever came after it (the next card, the coup, the
// settlement) waits for that card, so a result is never shown before its cards, nor later than
// its last card's moment. Each card's totals are those of the cards shown so far (R2), carried
// by its message, so they are shown with it. Nothing but a card is handled while the last card
// still slides onto the felt (LANDING_MS, felt.css's slide-in; none when motion is reduced): the
// result and its banner come once the card that decides it has landed, not half-way.

/** How long a card takes to land (felt.css: .card.incoming's slide-in). */
export const LANDING_MS = 350;

function landing() {
  const reduced = typeof matchMedia === "function"
    && matchMedia("(prefers-reduced-motion: reduce)").matches;
  return reduced ? 0 : LANDING_MS;
}

/** Hands each message to `run` in order, holding a card-dealt until its moment. */
export class DealPace {
  constructor(run, { now = () => performance.now(), hidden = () => document.hidden,
                     lands = landing } = {}) {
    this.run = run;
    this.now = now;
    this.hidden = hidden;
    this.lands = lands;
    this.waiting = []; // messages held behind a card whose moment has not come
    this.timer = null;
    this.lastCard = -Infinity; // when the last card was shown
  }

  /** A message from the server: handled now, or after the cards held before it. */
  push(message) {
    this.waiting.push(message);
    if (this.timer === null) this.drain();
  }

  /** Everything held, handled at once (a snapshot or a page in the background: no pace). */
  flush() {
    clearTimeout(this.timer);
    this.timer = null;
    const held = this.waiting;
    this.waiting = [];
    for (const message of held) this.handle(message);
  }

  /** Nothing held is handled (another table is opened). */
  clear() {
    clearTimeout(this.timer);
    this.timer = null;
    this.waiting = [];
  }

  drain() {
    this.timer = null;
    while (this.waiting.length) {
      const message = this.waiting[0];
      const pause = message.type === "card-dealt" ? Number(message.reveal_after_ms) || 0
        : this.lands();
      const left = this.lastCard + pause - this.now();
      // A hidden page's timers are slowed down: it keeps up instead of lagging the table.
      if (pause > 0 && left > 0 && !this.hidden()) {
        this.timer = setTimeout(() => this.drain(), left);
        return;
      }
      this.waiting.shift();
      this.handle(message);
    }
  }

  handle(message) {
    if (message.type === "card-dealt") this.lastCard = this.now();
    this.run(message);
  }
}
