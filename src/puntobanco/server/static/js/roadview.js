// Draws the roads computed by roads.js as SVG grids: bead plate, big road, and the three derived
// roads at half size, with the counts and the "if Banco / if Punto" predictions.

import { allRoads, columnCount, predictions, ROWS, tally } from "./roads.js";
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
    const g = svgEl("g", { class: `bead bead-${cell.winner}` });
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
    const g = svgEl("g", { class: `big big-${cell.winner ?? "none"}` });
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
    mark.setAttribute("class", `derived derived-${cell.colour}`);
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

/** Render every road of the results into `root` (a container with the road sections). */
export function renderRoads(root, results) {
  const roads = allRoads(results);
  const counts = tally(results);
  // [key, caption, cells, cell size, draw(cells, minCols)]
  const sections = [
    ["bead", "ui.bead_plate", roads.bead, 24, drawBead],
    ["big", "ui.big_road", roads.big, 20, drawBig],
    ["bigEyeBoy", "ui.big_eye_boy", roads.bigEyeBoy, 10, (c, n) => drawDerived(c, "ring", n)],
    ["smallRoad", "ui.small_road", roads.smallRoad, 10, (c, n) => drawDerived(c, "dot", n)],
    ["cockroachPig", "ui.cockroach_pig", roads.cockroachPig, 10, (c, n) => drawDerived(c, "slash", n)],
  ];
  const fragment = document.createDocumentFragment();

  const header = document.createElement("div");
  header.className = "road-tally";
  for (const key of ["banco", "punto", "egalite"]) {
    const span = document.createElement("span");
    span.className = `tally tally-${key}`;
    span.dataset.count = String(counts[key]);
    span.textContent = `${betName(key)} ${counts[key]}`;
    header.append(span);
  }
  const coups = document.createElement("span");
  coups.className = "tally";
  coups.textContent = `${t("coup")} ${counts.coups}`;
  header.append(coups);
  fragment.append(header);

  const twin = document.createElement("div");
  twin.className = "road-derived-row";
  const scrollers = [];
  for (const [key, label, cells, size, draw] of sections) {
    const section = document.createElement("figure");
    section.className = `road road-${key}`;
    section.dataset.road = key;
    section.dataset.cells = String(cells.length);
    const caption = document.createElement("figcaption");
    caption.textContent = t(label);
    const scroller = document.createElement("div");
    scroller.className = "road-scroll";
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
    const item = document.createElement("span");
    item.className = `ask ask-${side}`;
    item.append(`${t("ui.ask")} ${betName(side)} `);
    item.append(mini("ring", ask[side].bigEyeBoy), mini("dot", ask[side].smallRoad),
      mini("slash", ask[side].cockroachPig));
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
