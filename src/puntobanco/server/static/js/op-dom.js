// Small DOM helpers for the console: elements are built with text, never with markup strings, so a
// table's or a player's name is shown as it is.

import { formatCents } from "./money.js";
import { lang } from "./op-words.js";

/** el("td", {class: "num"}, "12") → <td class="num">12</td>; children are nodes or text. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export const money = (cents) => (cents === null || cents === undefined ? "—" : formatCents(Math.round(cents), lang()));
const LOCALES = { fr: "fr-FR", it: "it-IT", es: "es-ES", en: "en-GB" };

/** A number in the console's language, with ``digits`` decimals and a real minus sign. */
export function decimal(value, digits = 2) {
  const text = new Intl.NumberFormat(LOCALES[lang()], {
    minimumFractionDigits: digits, maximumFractionDigits: digits,
  }).format(Math.abs(value));
  return value < 0 && text.replace(/[0,.\s]/g, "") !== "" ? `−${text}` : text;
}

export const percent = (ratio, digits = 2) =>
  (ratio === null || ratio === undefined ? "—" : `${decimal(ratio * 100, digits)} %`);
export const signClass = (value) => (value < 0 ? "neg" : value > 0 ? "pos" : "");
export const when = (ms) => `${new Date(ms).toLocaleString(LOCALES[lang()], { timeZone: "UTC" })} UTC`;
