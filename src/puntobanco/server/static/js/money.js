// Amounts are integer cents (M1); the page only formats them, it never computes with floats.

const LOCALES = { fr: "fr-FR", it: "it-IT", es: "es-ES", en: "en-IE" };

const formatters = new Map();

function formatter(lang, fraction) {
  const key = `${lang}:${fraction}`;
  if (!formatters.has(key)) {
    formatters.set(key, new Intl.NumberFormat(LOCALES[lang] ?? "fr-FR", {
      style: "currency", currency: "EUR",
      minimumFractionDigits: fraction, maximumFractionDigits: fraction,
    }));
  }
  return formatters.get(key);
}

/** "1 000,00 €" (fr), "€1,000.00" (en) … from integer cents. */
export function formatCents(cents, lang) {
  const abs = Math.abs(cents);
  // Format the whole euros (an exact integer), then put the exact cents in: no float rounding.
  const parts = formatter(lang, 2).formatToParts(Math.floor(abs / 100));
  const text = parts.map((part) => (part.type === "fraction"
    ? String(abs % 100).padStart(2, "0") : part.value)).join("");
  return cents < 0 ? `−${text}` : text;
}

/** A signed amount for payout lines: "+25,00 €", "−10,00 €", "0,00 €". */
export function formatNet(cents, lang) {
  if (cents > 0) return `+${formatCents(cents, lang)}`;
  return formatCents(cents, lang);
}

/** A chip label: "10", "25", "1K", "0.50". */
export function chipLabel(cents) {
  if (cents % 100 !== 0) return (cents / 100).toFixed(2);
  const euros = cents / 100;
  if (euros >= 1000 && euros % 1000 === 0) return `${euros / 1000}K`;
  return String(euros);
}

/** The chip values of a table: familiar denominations that are multiples of its chip unit. */
export function chipValues(rules) {
  const unit = rules.chip_unit || 100;
  const limits = Object.values(rules.limits || {});
  const lowest = limits.length ? Math.min(...limits.map((l) => l[0])) : unit;
  const highest = limits.length ? Math.max(...limits.map((l) => l[1])) : 500000;
  const familiar = [100, 500, 1000, 2500, 5000, 10000, 50000, 100000, 500000];
  let values = familiar.filter((v) => v % unit === 0 && v >= unit && v <= highest);
  const atLeastMin = values.filter((v) => v >= Math.min(lowest, 1000));
  if (atLeastMin.length >= 4) values = atLeastMin;
  if (values.length < 4) values = [1, 2, 5, 10, 20, 50].map((m) => m * unit);
  return values.slice(0, 6);
}

// A chip's colour follows its value, as in a casino's rack (never its place in the tray).
const CHIP_COLOURS = new Map([
  [100, "#f4f1e8"], [200, "#f9a825"], [500, "#c62828"], [1000, "#1565c0"], [2000, "#00838f"],
  [2500, "#2e7d32"], [5000, "#e65100"], [10000, "#212121"], [25000, "#ad1457"],
  [50000, "#6a1b9a"], [100000, "#ef6c00"], [500000, "#8d6e63"],
]);
const SPARE_COLOURS = ["#455a64", "#5d4037", "#283593", "#558b2f"];

/** The colour of a chip of `cents`. */
export function chipColour(cents) {
  if (CHIP_COLOURS.has(cents)) return CHIP_COLOURS.get(cents);
  return SPARE_COLOURS[Math.abs(Math.round(Math.log2(Math.max(1, cents)))) % SPARE_COLOURS.length];
}

/**
 * The rack's chips that make up `cents`, fewest first found (biggest values first), or null when
 * the rack cannot make it exactly: 30 € from 10/25/50 is 10+10+10, never 25 + a 5 it lacks.
 */
export function chipsFor(cents, values) {
  const rack = [...new Set(values)].filter((v) => v > 0).sort((a, b) => b - a);
  if (!rack.length || cents <= 0) return cents === 0 ? [] : null;
  const unit = rack.reduce((g, v) => { let a = g, b = v; while (b) [a, b] = [b, a % b]; return a; });
  if (cents % unit) return null;
  const n = cents / unit;
  if (n > 50000) return null;
  const best = new Array(n + 1).fill(Infinity);
  const pick = new Array(n + 1).fill(0);
  best[0] = 0;
  for (let i = 1; i <= n; i += 1) {
    for (const v of rack) {
      const k = v / unit;
      if (k <= i && best[i - k] + 1 < best[i]) {
        best[i] = best[i - k] + 1;
        pick[i] = v;
      }
    }
  }
  if (!Number.isFinite(best[n])) return null;
  const used = [];
  for (let i = n; i > 0; i -= pick[i] / unit) used.push(pick[i]);
  return used.sort((a, b) => b - a);
}
