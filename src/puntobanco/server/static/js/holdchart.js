// Hold against the theoretical house edge over time, drawn as SVG (no library): the cumulative
// hold after each point (a shoe or a day), the cumulative theoretical edge, and its 95 % band:
// the server's cumulative_band (from the distribution of the win, docs/operator.md), or
// edge ± 1.96 · sd / handle for a row without one. Pure: rows in, an SVG string out.

const SVG_NS = "http://www.w3.org/2000/svg";
const Z95 = 1.959964;

/** Cumulative figures after each row of a report (rows with no handle are skipped). */
export function holdSeries(rows) {
  let handle = 0, win = 0, expected = 0, variance = 0;
  const points = [];
  for (const row of rows) {
    if (!row.handle) continue;
    handle += row.handle;
    win += row.house_win;
    expected += row.expected_win;
    variance += row.sd * row.sd;
    const edge = expected / handle;
    const half = (Z95 * Math.sqrt(variance)) / handle;
    const [low, high] = row.cumulative_band ?? [edge - half, edge + half];
    points.push({ label: row.label, hold: win / handle, edge, low, high });
  }
  return points;
}

const esc = (text) => String(text).replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);

function niceStep(span) {
  const raw = span / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw;
}

/** The chart as an SVG string, ``width`` × ``height`` pixels (draw it at that size so its text
 *  keeps its size); ``words`` names the legend's three items, ``format`` writes a ratio. */
export function holdChartSvg(points, { width = 720, height = 280, words = {},
  format = (ratio) => `${(ratio * 100).toFixed(1)} %` } = {}) {
  // A narrow chart (a phone) puts its legend's three items one under the other: none is cut.
  const stacked = width < 600;
  const pad = { left: 64, right: 24, top: stacked ? 58 : 30, bottom: 34 };
  const w = width - pad.left - pad.right;
  const h = height - pad.top - pad.bottom;
  const label = [words.hold ?? "hold", words.edge ?? "edge", words.band ?? "95 %"].join(" · ");
  const head = `<svg xmlns="${SVG_NS}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" class="hold-chart" role="img" aria-label="${esc(label)}">`;
  if (!points.length) {
    return `${head}<text x="${width / 2}" y="${height / 2}" text-anchor="middle" class="chart-empty">${esc(words.empty ?? "—")}</text></svg>`;
  }
  let lo = Math.min(...points.map((p) => Math.min(p.low, p.hold)));
  let hi = Math.max(...points.map((p) => Math.max(p.high, p.hold)));
  if (hi - lo < 1e-6) { lo -= 0.01; hi += 0.01; }
  const margin = (hi - lo) * 0.08;
  lo -= margin; hi += margin;
  const n = points.length;
  const x = (i) => pad.left + (n === 1 ? w / 2 : (i * w) / (n - 1));
  const y = (v) => pad.top + ((hi - v) * h) / (hi - lo);
  const parts = [head];
  const step = niceStep(hi - lo);
  for (let t = Math.ceil(lo / step) * step; t <= hi; t += step) {
    parts.push(`<line class="grid" x1="${pad.left}" x2="${pad.left + w}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}"/>`);
    parts.push(`<text class="tick" x="${pad.left - 6}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end">${esc(format(t))}</text>`);
  }
  if (lo < 0 && hi > 0) {
    parts.push(`<line class="zero" x1="${pad.left}" x2="${pad.left + w}" y1="${y(0).toFixed(1)}" y2="${y(0).toFixed(1)}"/>`);
  }
  const upper = points.map((p, i) => `${x(i).toFixed(1)},${y(p.high).toFixed(1)}`);
  const lower = points.map((p, i) => `${x(i).toFixed(1)},${y(p.low).toFixed(1)}`).reverse();
  if (n === 1) {
    parts.push(`<rect class="band" x="${(x(0) - 12).toFixed(1)}" width="24" y="${y(points[0].high).toFixed(1)}" height="${(y(points[0].low) - y(points[0].high)).toFixed(1)}"/>`);
  } else {
    parts.push(`<polygon class="band" points="${[...upper, ...lower].join(" ")}"/>`);
  }
  const line = (key) => points.map((p, i) => `${i ? "L" : "M"}${x(i).toFixed(1)},${y(p[key]).toFixed(1)}`).join("");
  parts.push(`<path class="edge" d="${line("edge")}"/>`);
  parts.push(`<path class="hold" d="${line("hold")}"/>`);
  points.forEach((p, i) => {
    const outside = p.hold < p.low || p.hold > p.high;
    parts.push(`<circle class="point${outside ? " outside" : ""}" cx="${x(i).toFixed(1)}" cy="${y(p.hold).toFixed(1)}" r="3.5"><title>${esc(p.label)}: ${esc(format(p.hold))}</title></circle>`);
  });
  const every = Math.max(1, Math.ceil(n / 10));
  points.forEach((p, i) => {
    if (i % every === 0 || i === n - 1) {
      const anchor = n > 1 && i === 0 ? "start" : n > 1 && i === n - 1 ? "end" : "middle";
      parts.push(`<text class="tick" x="${x(i).toFixed(1)}" y="${height - 12}" text-anchor="${anchor}">${esc(p.label)}</text>`);
    }
  });
  const legend = [["hold", words.hold ?? "hold"], ["edge", words.edge ?? "edge"], ["band", words.band ?? "95 %"]];
  legend.forEach(([cls, text], i) => {
    const lx = stacked ? pad.left : pad.left + i * 170;
    const ly = stacked ? 6 + i * 15 : 8;
    parts.push(`<rect class="key key-${cls}" x="${lx}" y="${ly}" width="14" height="10"/><text class="legend" x="${lx + 20}" y="${ly + 9}">${esc(text)}</text>`);
  });
  parts.push("</svg>");
  return parts.join("");
}
