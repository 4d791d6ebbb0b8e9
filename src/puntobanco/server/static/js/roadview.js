// Draws the roads computed by roads.js as SVG grids: bead plate, big road, and the three derived
// roads at half size, with the counts and the "if Banco / if Punto" predictions.

import { allRoads, columnCount, predictions, ROWS, streaks, tally } from "./roads.js";
import { betName, t } from "./i18n.js";

const NS = "http://www.w3.org/2000/svg";
const COLOURS = { banco: "#d32f2f", punto: "#1565c0", egalite: "#2e7d32", red: "#d32f2f", blue: "#1565c0" };

function svgEl(name, attrs = {}) {
  const node = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
}

function grid(cells, size, minCols) {
  const cols = Math.max(minCols, columnCount(cells) + 1);
  // Whole cells only: the grid is as wide as its box, or wider and scrolled.
  const svg = svgEl("svg", {
    width: cols * size, height: ROWS * size, viewBox: `0 0 ${cols * size} ${ROWS * size}`,
    class: "road-grid",
  });
  const lines = svgEl("path", {
    d: [
      ...Array.from({ length: cols + 1 }, (_, c) => `M${c * size} 0V${ROWS * size}`),
      ...Array.from({ length: ROWS + 1 }, (_, r) => `M0 ${r * size}H${cols * size}`),
    ].join(""),
    class: "road-lines",
  });
  svg.append(lines);
  return svg;
}

function initial(bet) {
  return betName(bet).normalize("NFC").charAt(0).toUpperCase();
}

function drawBead(cells, minCols) {
  const size = 24;
  const svg = grid(cells, size, minCols);
  for (const cell of cells) {
    const cx = cell.col * size + size / 2;
    const cy = cell.row * size + size / 2;
    const g = svgEl("g", { class: `bead bead-${cell.winner}${cell.preview ? " preview" : ""}` });
    g.append(svgEl("circle", { cx, cy, r: size / 2 - 2, fill: COLOURS[cell.winner] }));
    const text = svgEl("text", { x: cx, y: cy + 4, "text-anchor": "middle", "font-size": 12,
      "font-weight": 700, fill: "#fff" });
    text.textContent = initial(cell.winner);
    g.append(text);
    if (cell.coup && cell.coup.natural) {
      g.append(svgEl("circle", { cx: cx + 7, cy: cy - 7, r: 2.6, fill: "#ffd54f" }));
    }
    if (cell.coup && cell.coup.punto_total !== undefined) {
      const title = svgEl("title");
      title.textContent = `${betName("punto")} ${cell.coup.punto_total} – ${betName("banco")} ${cell.coup.banco_total}`;
      g.append(title);
    }
    svg.append(g);
  }
  return svg;
}

function drawBig(cells, minCols) {
  const size = 20;
  const svg = grid(cells, size, minCols);
  for (const cell of cells) {
    const cx = cell.col * size + size / 2;
    const cy = cell.row * size + size / 2;
    const g = svgEl("g", { class: `big big-${cell.winner ?? "none"}${cell.preview ? " preview" : ""}` });
    if (cell.winner) {
      g.append(svgEl("circle", { cx, cy, r: size / 2 - 3, fill: "none", stroke: COLOURS[cell.winner],
        "stroke-width": 2.6 }));
    }
    if (cell.ties) {
      g.append(svgEl("line", { x1: cx - 6, y1: cy + 6, x2: cx + 6, y2: cy - 6,
        stroke: COLOURS.egalite, "stroke-width": 2.4 }));
      if (cell.ties > 1) {
        const text = svgEl("text", { x: cx, y: cy + 3.5, "text-anchor": "middle", "font-size": 10,
          "font-weight": 700, fill: COLOURS.egalite });
        text.textContent = String(cell.ties);
        g.append(text);
      }
    }
    svg.append(g);
  }
  return svg;
}

function drawDerived(cells, style, minCols) {
  const size = 10;
  const svg = grid(cells, size, minCols);
  for (const cell of cells) {
    const cx = cell.col * size + size / 2;
    const cy = cell.row * size + size / 2;
    const colour = COLOURS[cell.colour];
    let mark;
    if (style === "ring") {
      mark = svgEl("circle", { cx, cy, r: 3.4, fill: "none", stroke: colour, "stroke-width": 1.6 });
    } else if (style === "dot") {
      mark = svgEl("circle", { cx, cy, r: 3.6, fill: colour });
    } else {
      mark = svgEl("line", { x1: cx - 3.6, y1: cy + 3.6, x2: cx + 3.6, y2: cy - 3.6, stroke: colour,
        "stroke-width": 2 });
    }
    mark.setAttribute("class", `derived derived-${cell.colour}${cell.preview ? " preview" : ""}`);
    svg.append(mark);
  }
  return svg;
}

function mini(style, colour) {
  const svg = svgEl("svg", { viewBox: "0 0 10 10", width: 12, height: 12, class: "ask-mark" });
  if (!colour) return svg;
  const c = COLOURS[colour];
  if (style === "ring") svg.append(svgEl("circle", { cx: 5, cy: 5, r: 3.4, fill: "none", stroke: c, "stroke-width": 1.6 }));
  else if (style === "dot") svg.append(svgEl("circle", { cx: 5, cy: 5, r: 3.8, fill: c }));
  else svg.append(svgEl("line", { x1: 1.5, y1: 8.5, x2: 8.5, y2: 1.5, stroke: c, "stroke-width": 2 }));
  return svg;
}

/** The shoe's statistics: counts and percentages, naturals, the longest and current streaks. */
export function shoeStats(results) {
  const counts = tally(results);
  const percent = (n) => (counts.coups ? Math.round((1000 * n) / counts.coups) / 10 : 0);
  const columns = streaks(results).columns;
  let longest = null;
  for (const column of columns) {
    if (!longest || column.entries.length > longest.length) {
      longest = { winner: column.winner, length: column.entries.length };
    }
  }
  const last = columns.at(-1);
  return {
    coups: counts.coups,
    banco: { count: counts.banco, percent: percent(counts.banco) },
    punto: { count: counts.punto, percent: percent(counts.punto) },
    egalite: { count: counts.egalite, percent: percent(counts.egalite) },
    natural: { count: counts.natural, percent: percent(counts.natural) },
    longest,
    current: last ? { winner: last.winner, length: last.entries.length } : null,
  };
}

function percentText(value) {
  return `${value.toLocaleString(document.documentElement.lang || "fr", { maximumFractionDigits: 1 })} %`;
}

function statsBlock(results) {
  const stats = shoeStats(results);
  const block = document.createElement("div");
  block.className = "road-tally shoe-stats";
  block.setAttribute("aria-label", t("ui.stats"));
  const item = (key, label, value, cls) => {
    const span = document.createElement("span");
    span.className = `tally ${cls}`;
    span.dataset.stat = key;
    span.dataset.count = String(value.count);
    span.dataset.percent = String(value.percent);
    span.textContent = `${label} ${value.count} · ${percentText(value.percent)}`;
    block.append(span);
  };
  for (const key of ["banco", "punto", "egalite"]) item(key, betName(key), stats[key], `tally-${key}`);
  item("natural", t("ui.naturals"), stats.natural, "tally-natural");
  const coups = document.createElement("span");
  coups.className = "tally";
  coups.dataset.stat = "coups";
  coups.textContent = `${t("coup")} ${stats.coups}`;
  block.append(coups);
  for (const [key, label] of [["longest", "ui.streak"], ["current", "ui.current"]]) {
    const streak = stats[key];
    if (!streak) continue;
    const span = document.createElement("span");
    span.className = `tally tally-${streak.winner}`;
    span.dataset.stat = key;
    span.dataset.count = String(streak.length);
    span.textContent = `${t(label)} ${betName(streak.winner)} ×${streak.length}`;
    block.append(span);
  }
  return block;
}

/** Mark the cells a hypothetical last result adds (the ask preview) on every road. */
function withPreview(results, side) {
  const before = allRoads(results);
  const after = allRoads([...results, { winner: side, preview: true }]);
  for (const key of Object.keys(after)) {
    const old = before[key].length;
    after[key] = after[key].map((cell, i) => {
      const fresh = key === "big" ? cell.index === results.length : i >= old;
      return fresh ? { ...cell, preview: true } : cell;
    });
  }
  return after;
}

/**
 * Render every road of the results into `root` (a container with the road sections), with the
 * shoe's statistics; `preview` ("banco" | "punto" | null) draws the marks that result would add
 * on every road; `onAsk(side)` is called when an "if Banco / if Punto" button is pressed.
 */
export function renderRoads(root, results, { preview = null, onAsk = null } = {}) {
  const roads = preview ? withPreview(results, preview) : allRoads(results);
  // [key, caption, cells, cell size, draw(cells, minCols)]
  const sections = [
    ["bead", "ui.bead_plate", roads.bead, 24, drawBead],
    ["big", "ui.big_road", roads.big, 20, drawBig],
    ["bigEyeBoy", "ui.big_eye_boy", roads.bigEyeBoy, 10, (c, n) => drawDerived(c, "ring", n)],
    ["smallRoad", "ui.small_road", roads.smallRoad, 10, (c, n) => drawDerived(c, "dot", n)],
    ["cockroachPig", "ui.cockroach_pig", roads.cockroachPig, 10, (c, n) => drawDerived(c, "slash", n)],
  ];
  const fragment = document.createDocumentFragment();
  fragment.append(statsBlock(results));

  const twin = document.createElement("div");
  twin.className = "road-derived-row";
  const scrollers = [];
  for (const [key, label, cells, size, draw] of sections) {
    const section = document.createElement("figure");
    section.className = `road road-${key}`;
    section.dataset.road = key;
    section.dataset.cells = String(cells.filter((c) => !c.preview).length);
    section.dataset.preview = String(cells.filter((c) => c.preview).length);
    const caption = document.createElement("figcaption");
    caption.textContent = t(label);
    const scroller = document.createElement("div");
    scroller.className = "road-scroll";
    // It scrolls sideways: reachable by the keyboard (arrow keys), named by its caption.
    scroller.tabIndex = 0;
    scroller.setAttribute("role", "region");
    scroller.setAttribute("aria-label", t(label));
    section.append(caption, scroller);
    if (key === "bead" || key === "big") fragment.append(section);
    else twin.append(section);
    scrollers.push({ scroller, cells, size, draw });
  }
  fragment.append(twin);

  const ask = predictions(results);
  const askRow = document.createElement("div");
  askRow.className = "road-ask";
  for (const side of ["banco", "punto"]) {
    const item = document.createElement("button");
    item.type = "button";
    item.className = `ask ask-${side}`;
    item.dataset.ask = side;
    item.title = t("ui.ask_help");
    item.setAttribute("aria-pressed", String(preview === side));
    item.append(`${t("ui.ask")} ${betName(side)} `);
    item.append(mini("ring", ask[side].bigEyeBoy), mini("dot", ask[side].smallRoad),
      mini("slash", ask[side].cockroachPig));
    if (onAsk) item.addEventListener("click", () => onAsk(side));
    askRow.append(item);
  }
  fragment.append(askRow);

  root.replaceChildren(fragment);
  // Fill each grid to its box's width, then bring the newest column into view.
  for (const { scroller, cells, size, draw } of scrollers) {
    const width = scroller.clientWidth || 360;
    scroller.append(draw(cells, Math.max(6, Math.floor(width / size))));
    const last = columnCount(cells);
    scroller.scrollLeft = Math.max(0, (last + 1) * size - width);
  }
  return roads;
}
