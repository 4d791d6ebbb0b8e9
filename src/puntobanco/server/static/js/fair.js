// Provably fair shoes: before a shoe is dealt the server publishes
//   commitment = SHA-256( salt_hex + ":" + the shoe's cards joined by single spaces )
// as lowercase hex (UTF-8 bytes; docs/api.md). After the shoe it reveals the order and the
// salt, and the page recomputes the hash itself. WebCrypto does it where the page is a secure
// context; elsewhere (plain http on a LAN address) a small SHA-256 (FIPS 180-4) below does.

/** The exact text that is hashed. */
export function commitmentText(salt, order) {
  return `${salt}:${order.join(" ")}`;
}

function hex(bytes) {
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// SHA-256 constants: the first 32 bits of the fractional parts of the square roots of the first
// 8 primes (H) and of the cube roots of the first 64 primes (K).
function primes(count) {
  const out = [];
  for (let n = 2; out.length < count; n += 1) {
    if (out.every((p) => n % p !== 0)) out.push(n);
  }
  return out;
}
const frac32 = (x) => Math.floor((x - Math.floor(x)) * 2 ** 32) >>> 0;
const PRIMES = primes(64);
const H0 = PRIMES.slice(0, 8).map((p) => frac32(Math.sqrt(p)));
const K = PRIMES.map((p) => frac32(Math.cbrt(p)));

/** SHA-256 of bytes in plain JavaScript; returns the 32-byte digest. */
export function sha256Bytes(bytes) {
  const bitLength = bytes.length * 8;
  const padded = new Uint8Array(Math.ceil((bytes.length + 9) / 64) * 64);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(bitLength / 2 ** 32));
  view.setUint32(padded.length - 4, bitLength >>> 0);
  const h = H0.slice();
  const w = new Uint32Array(64);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  for (let block = 0; block < padded.length; block += 64) {
    for (let i = 0; i < 16; i += 1) w[i] = view.getUint32(block + 4 * i);
    for (let i = 16; i < 64; i += 1) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, k] = h;
    for (let i = 0; i < 64; i += 1) {
      const S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
      const ch = (e & f) ^ (~e & g);
      const t1 = (k + S1 + ch + K[i] + w[i]) >>> 0;
      const S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
      const maj = (a & b) ^ (a & c) ^ (b & c);
      const t2 = (S0 + maj) >>> 0;
      k = g; g = f; f = e; e = (d + t1) >>> 0;
      d = c; c = b; b = a; a = (t1 + t2) >>> 0;
    }
    [a, b, c, d, e, f, g, k].forEach((x, i) => { h[i] = (h[i] + x) >>> 0; });
  }
  const out = new Uint8Array(32);
  const outView = new DataView(out.buffer);
  h.forEach((x, i) => outView.setUint32(4 * i, x));
  return out;
}

/** SHA-256 of a text's UTF-8 bytes, as lowercase hex. */
export async function sha256Hex(text, { forceFallback = false } = {}) {
  const bytes = new TextEncoder().encode(text);
  if (!forceFallback && globalThis.crypto && crypto.subtle) {
    return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)));
  }
  return hex(sha256Bytes(bytes));
}

/** Check a revealed shoe against its commitment: {ok, computed, commitment}. */
export async function verifyShoe({ salt, order, commitment }) {
  const computed = await sha256Hex(commitmentText(salt, order));
  return { ok: computed === String(commitment).toLowerCase(), computed, commitment };
}

/** A commitment shortened for display: "3f9a1c…b20e". */
export function shortHash(hash) {
  return hash && hash.length > 16 ? `${hash.slice(0, 10)}…${hash.slice(-6)}` : hash || "—";
}
