// Playing cards drawn as SVG: corner indices, pips laid out as on real cards, framed court
// cards, a patterned back. A card is shown face down, then turned when it is dealt.

const NS = "http://www.w3.org/2000/svg";
const W = 100;
const H = 140;

// Suit outlines in a 0..100 box, centred on (50, 50).
const SUIT_PATHS = {
  H: "M50 90 C20 66 4 48 4 30 C4 14 16 4 29 4 C39 4 46 10 50 19 C54 10 61 4 71 4 " +
     "C84 4 96 14 96 30 C96 48 80 66 50 90 Z",
  D: "M50 2 C60 20 74 36 90 50 C74 64 60 80 50 98 C40 80 26 64 10 50 C26 36 40 20 50 2 Z",
  S: "M50 4 C66 26 94 40 94 62 C94 76 84 84 73 84 C64 84 57 79 54 73 C55 82 59 90 66 96 " +
     "L34 96 C41 90 45 82 46 73 C43 79 36 84 27 84 C16 84 6 76 6 62 C6 40 34 26 50 4 Z",
  C: "M50 6 C62 6 71 15 71 27 C71 35 67 41 62 45 C66 43 70 42 74 42 C86 42 95 51 95 63 " +
     "C95 75 86 84 74 84 C64 84 57 78 53 71 C54 81 58 89 65 96 L35 96 C42 89 46 81 47 71 " +
     "C43 78 36 84 26 84 C14 84 5 75 5 63 C5 51 14 42 26 42 C30 42 34 43 38 45 C33 41 29 35 " +
     "29 27 C29 15 38 6 50 6 Z",
};

const RED_SUITS = new Set(["H", "D"]);
const RANK_TEXT = { A: "A", T: "10", J: "J", Q: "Q", K: "K" };
const SUIT_NAMES = { S: "♠", H: "♥", D: "♦", C: "♣" };

// Pip centres for 2..10 on the card (x, y); pips below the middle are drawn upside down.
const L = 32, M = 50, R = 68;
const PIPS = {
  2: [[M, 30], [M, 110]],
  3: [[M, 30], [M, 70], [M, 110]],
  4: [[L, 30], [R, 30], [L, 110], [R, 110]],
  5: [[L, 30], [R, 30], [M, 70], [L, 110], [R, 110]],
  6: [[L, 30], [R, 30], [L, 70], [R, 70], [L, 110], [R, 110]],
  7: [[L, 30], [R, 30], [M, 50], [L, 70], [R, 70], [L, 110], [R, 110]],
  8: [[L, 30], [R, 30], [M, 50], [L, 70], [R, 70], [M, 90], [L, 110], [R, 110]],
  9: [[L, 30], [R, 30], [L, 57], [R, 57], [M, 70], [L, 83], [R, 83], [L, 110], [R, 110]],
  10: [[L, 30], [R, 30], [M, 44], [L, 57], [R, 57], [L, 83], [R, 83], [M, 96], [L, 110], [R, 110]],
};

function el(name, attrs = {}, children = []) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  for (const child of children) node.append(child);
  return node;
}

/** Read "TH", "10h", "as" → {rank: "T", suit: "H"}; null if it is not a card. */
export function parseCard(text) {
  const match = /^(10|[2-9TJQKA])([SHDC])$/i.exec(String(text).trim());
  if (!match) return null;
  const rank = match[1].toUpperCase();
  return { rank: rank === "10" ? "T" : rank, suit: match[2].toUpperCase() };
}

/** The baccarat value of a card (R2). */
export function cardValue(text) {
  const card = parseCard(text);
  if (!card) return 0;
  if ("TJQK".includes(card.rank)) return 0;
  return card.rank === "A" ? 1 : Number(card.rank);
}

/** Text for screen readers and titles: "10♥". */
export function cardLabel(text) {
  const card = parseCard(text);
  return card ? `${RANK_TEXT[card.rank] ?? card.rank}${SUIT_NAMES[card.suit]}` : String(text);
}

function suit(suitCode, cx, cy, size, { flip = false } = {}) {
  const scale = size / 100;
  const rotate = flip ? ` rotate(180 50 50)` : "";
  return el("path", {
    d: SUIT_PATHS[suitCode],
    transform: `translate(${cx - size / 2} ${cy - size / 2}) scale(${scale})${rotate}`,
  });
}

function corner(rank, suitCode, flip) {
  const group = el("g", flip ? { transform: `rotate(180 ${W / 2} ${H / 2})` } : {});
  const label = RANK_TEXT[rank] ?? rank;
  const text = el("text", {
    x: 11, y: 23, "text-anchor": "middle", "font-size": label.length > 1 ? 19 : 22,
    "font-weight": 700, "font-family": "Georgia, 'DejaVu Serif', serif",
    "letter-spacing": label.length > 1 ? -2 : 0,
  });
  text.textContent = label;
  group.append(text, suit(suitCode, 11, 35, 13));
  // 6 and 9 are underlined, as on casino cards: a sideways third card still reads right.
  if (rank === "6" || rank === "9") {
    group.append(el("rect", { x: 4, y: 25.5, width: 14, height: 2, class: "index-underline" }));
  }
  return group;
}

function court(rank, suitCode) {
  const group = el("g");
  group.append(el("rect", {
    x: 22, y: 22, width: 56, height: 96, rx: 4, fill: RED_SUITS.has(suitCode) ? "#fbe9e7" : "#e8eaf6",
    stroke: "currentColor", "stroke-width": 1.5,
  }));
  group.append(el("rect", {
    x: 26, y: 26, width: 48, height: 88, rx: 3, fill: "none", stroke: "#c9a227", "stroke-width": 1.5,
  }));
  const letter = el("text", {
    x: 50, y: 78, "text-anchor": "middle", "font-size": 44, "font-weight": 700,
    "font-family": "Georgia, 'DejaVu Serif', serif",
  });
  letter.textContent = rank;
  group.append(letter, suit(suitCode, 38, 40, 14), suit(suitCode, 62, 100, 14, { flip: true }));
  return group;
}

function face(text) {
  const card = parseCard(text);
  const group = el("g", { class: "card-face" });
  group.append(el("rect", {
    x: 1, y: 1, width: W - 2, height: H - 2, rx: 8, fill: "#fffdf7", stroke: "#b9b2a3",
    "stroke-width": 1.5,
  }));
  if (!card) return group;
  const ink = el("g", { fill: "currentColor", color: RED_SUITS.has(card.suit) ? "#c62828" : "#1a1a1a" });
  ink.append(corner(card.rank, card.suit, false), corner(card.rank, card.suit, true));
  if (card.rank === "A") {
    ink.append(suit(card.suit, 50, 70, 46));
  } else if ("JQK".includes(card.rank)) {
    ink.append(court(card.rank, card.suit));
  } else {
    const count = card.rank === "T" ? 10 : Number(card.rank);
    for (const [x, y] of PIPS[count]) ink.append(suit(card.suit, x, y, 19, { flip: y > 70 }));
  }
  group.append(ink);
  return group;
}

function back() {
  const group = el("g", { class: "card-back" });
  const id = `back-${Math.random().toString(36).slice(2, 9)}`;
  const pattern = el("pattern", { id, width: 10, height: 10, patternUnits: "userSpaceOnUse",
    patternTransform: "rotate(45)" });
  pattern.append(el("rect", { width: 10, height: 10, fill: "#8e1b1b" }),
    el("rect", { width: 4, height: 10, fill: "#a82a2a" }));
  group.append(el("defs", {}, [pattern]));
  group.append(el("rect", { x: 1, y: 1, width: W - 2, height: H - 2, rx: 8, fill: "#fffdf7",
    stroke: "#b9b2a3", "stroke-width": 1.5 }));
  group.append(el("rect", { x: 8, y: 8, width: W - 16, height: H - 16, rx: 5, fill: `url(#${id})`,
    stroke: "#c9a227", "stroke-width": 2 }));
  group.append(el("circle", { cx: 50, cy: 70, r: 16, fill: "#8e1b1b", stroke: "#c9a227",
    "stroke-width": 2 }));
  return group;
}

/**
 * A card element: an SVG with both faces; `.face-down` shows the back. `reveal(node)` turns it.
 * `code` may be null for a card not known yet (drawn face down).
 */
export function cardElement(code, { faceDown = false } = {}) {
  const wrap = document.createElement("div");
  wrap.className = "card";
  const inner = document.createElement("div");
  inner.className = "card-inner";
  const front = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "card-front", role: "img" });
  if (code) front.append(face(code));
  const rear = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "card-rear", "aria-hidden": "true" });
  rear.append(back());
  inner.append(front, rear);
  wrap.append(inner);
  if (faceDown || !code) wrap.classList.add("face-down");
  if (code) {
    wrap.dataset.card = code;
    front.setAttribute("aria-label", cardLabel(code));
  }
  return wrap;
}

/** Turn a face-down card over, showing `code`. */
export function revealCard(node, code) {
  const front = node.querySelector(".card-front");
  if (node.dataset.card !== code) {
    front.replaceChildren(face(code));
    front.setAttribute("aria-label", cardLabel(code));
    node.dataset.card = code;
  }
  // Let the browser paint the back first so the turn is seen.
  requestAnimationFrame(() => requestAnimationFrame(() => node.classList.remove("face-down")));
}

/** A small standalone suit icon (for recall lines and the like). */
export function suitIcon(suitCode, size = 12) {
  const svg = el("svg", { viewBox: "0 0 100 100", width: size, height: size, class: "suit-icon" });
  svg.append(el("path", { d: SUIT_PATHS[suitCode], fill: RED_SUITS.has(suitCode) ? "#c62828" : "#1a1a1a" }));
  return svg;
}
