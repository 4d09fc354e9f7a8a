// A card's face as inline SVG (issue 38): the index turned in the bottom-right corner, the pips of
// 2-10 in the standard layout, one large pip for an ace, a framed rank for a court card, and one big
// suit that style.css shows instead when the card is small (a phone's column). Drawn in
// currentColor, so the card's suit class (and the four-colour deck's variables) colour it. Hidden
// from the accessibility tree: the card's name and its top-left index (HTML text) say what it is.
// Its glyphs are <use>s of symbols in one hidden sprite, not text in the card: a card's visible text
// stays its index alone, which its name contains (axe's label-content-name-mismatch).
const NS = "http://www.w3.org/2000/svg";
const W = 100;
const H = 140;
const L = 36; // the pip columns, inward enough that a 10's corner index clears them
const R = 64;
const C = 50;
const TOP = 24;
const BOT = H - TOP;
const at = (k) => TOP + ((BOT - TOP) * k) / 6; // rows in sixths, top to bottom
/** Pip centres of 2-10 (x, row in sixths). */
const PIPS = {
  2: [[C, 0], [C, 6]],
  3: [[C, 0], [C, 3], [C, 6]],
  4: [[L, 0], [R, 0], [L, 6], [R, 6]],
  5: [[L, 0], [R, 0], [C, 3], [L, 6], [R, 6]],
  6: [[L, 0], [R, 0], [L, 3], [R, 3], [L, 6], [R, 6]],
  7: [[L, 0], [R, 0], [C, 1.5], [L, 3], [R, 3], [L, 6], [R, 6]],
  8: [[L, 0], [R, 0], [C, 1.5], [L, 3], [R, 3], [C, 4.5], [L, 6], [R, 6]],
  9: [[L, 0], [R, 0], [L, 2], [R, 2], [C, 3], [L, 4], [R, 4], [L, 6], [R, 6]],
  10: [[L, 0], [R, 0], [C, 1], [L, 2], [R, 2], [L, 4], [R, 4], [C, 5], [L, 6], [R, 6]],
};

function el(tag, attrs, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  for (const child of children) node.append(child);
  return node;
}

let sprite = null;
const symbols = new Map(); // glyph -> its symbol's id

/** The id of the sprite's symbol drawing ``text`` centred in a 100x100 box. */
function symbolOf(text) {
  if (!sprite) {
    sprite = el("svg", { id: "card-glyphs", "aria-hidden": "true", focusable: "false", width: 0, height: 0 }, el("defs", {}));
  }
  if (!sprite.isConnected) document.body.append(sprite);
  if (!symbols.has(text)) {
    const id = `cg${symbols.size}`;
    const attrs = { x: 50, y: 50, "font-size": 100, "text-anchor": "middle", "dominant-baseline": "central" };
    sprite.firstChild.append(el("symbol", { id, viewBox: "0 0 100 100", overflow: "visible" }, el("text", attrs, text)));
    symbols.set(text, id);
  }
  return symbols.get(text);
}

/** ``text`` size units tall centred on (x, y), turned upside down if ``turned``. */
function glyph(text, x, y, size, cls, turned = false) {
  const attrs = { href: `#${symbolOf(text)}`, x: x - size / 2, y: y - size / 2, width: size, height: size, class: cls };
  if (turned) attrs.transform = `rotate(180 ${x} ${y})`;
  return el("use", attrs);
}

const faces = new Map(); // "rank|index|symbol" -> a face drawn once

/** The face of the card of rank 1-13 (index: its rank's word, e.g. "R"; symbol: its suit's): a copy
 * of the one drawn first. A board is drawn anew whenever it changes (a spectator's, at each of the
 * racer's moves), and cloning a face costs a fraction of building its pips one by one. */
export function cardFace(rank, index, symbol) {
  const key = `${rank}|${index}|${symbol}`;
  if (!faces.has(key)) faces.set(key, drawFace(rank, index, symbol));
  if (!sprite.isConnected) document.body.append(sprite);
  return faces.get(key).cloneNode(true);
}

function drawFace(rank, index, symbol) {
  const parts = [];
  // The index again, turned, in the bottom-right corner.
  parts.push(el("g", { class: "idx2", transform: `rotate(180 ${W / 2} ${H / 2})` }, glyph(index, 13, 13, 22, "r"), glyph(symbol, 13, 33, 20, "s")));
  if (rank === 1) parts.push(el("g", { class: "ace" }, glyph(symbol, C, H / 2, 58, "pip")));
  else if (rank >= 11) {
    parts.push(
      el(
        "g",
        { class: "court" },
        el("rect", { x: 24, y: 18, width: 52, height: 104, rx: 5, class: "frame" }),
        el("rect", { x: 28, y: 22, width: 44, height: 96, rx: 3, class: "frame-in" }),
        glyph(symbol, C, 38, 18, "pip"),
        glyph(index, C, H / 2 + 1, 40, "court-rank"),
        glyph(symbol, C, 102, 18, "pip", true),
      ),
    );
  } else {
    parts.push(el("g", { class: "pips" }, ...PIPS[rank].map(([x, row]) => glyph(symbol, x, at(row), 20, "pip", row > 3))));
  }
  parts.push(el("g", { class: "big" }, glyph(symbol, C, 92, 64, "pip")));
  return el("svg", { class: "face", viewBox: `0 0 ${W} ${H}`, "aria-hidden": "true", focusable: "false" }, ...parts);
}
