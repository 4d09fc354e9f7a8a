// One board as DOM: cells, foundations and columns, cards with accessible names, the selection
// and its legal destinations highlighted; clicks, and drags by mouse, pen or touch (pointer events).
import { cardFace } from "./card_face.js";
import { h } from "./dom.js";
import { CELL, CELL_TOKENS, COLUMN, FOUNDATION, SUIT_SYMBOLS, rankOf, suitOf } from "./rules.js";
import { cardLabel, foundationName, rankIndex } from "./words.js";
import { number, t, tn } from "./i18n.js";

const DRAG_START_PX = 6;

function cardEl(card, attrs, interactive, where) {
  const index = rankIndex(rankOf(card));
  const symbol = SUIT_SYMBOLS[suitOf(card)];
  const face = [h("span", { class: "index" }, h("span", { class: "rank" }, index), h("span", { class: "suit" }, symbol)), cardFace(rankOf(card), index, symbol)];
  const cls = `card s${suitOf(card)} ${attrs.class ?? ""}`;
  const label = `${cardLabel(card)}, ${where}`;
  return interactive
    ? h("button", { ...attrs, class: cls, type: "button", "aria-label": label }, face)
    : h("div", { ...attrs, class: cls, role: "img", "aria-label": label }, face);
}

/** The board's element. opts: label, selected {area,index,n}, legal Set of "area:index", hint (a
 * move: its cards and its destination lit), interactive, onPick, onDrop, onClear. */
export function renderBoard(board, opts) {
  const { selected = null, legal = new Set(), interactive = false, hint = null } = opts;
  // The hint lit on the board (issue 38): the cards it moves, and the place they go.
  const hintFrom = (area, index) => hint !== null && hint.sa === area && hint.s === index;
  const hintCard = hint === null ? null : selectedCard(board, { area: hint.sa, index: hint.s, n: hint.n });
  const hintTo = (area, index) =>
    hint !== null && hint.da === area && (area === FOUNDATION ? hintCard !== null && suitOf(hintCard) === index : hint.d === index);
  const lit = (area, index) => `${hintTo(area, index) ? " hint-to" : ""}`;
  const sel = (area, index) => selected && selected.area === area && selected.index === index;
  const selCard = selected ? selectedCard(board, selected) : null;
  const cells = board.cells.map((card, i) => {
    const key = `${CELL}:${i}`;
    const where = t("cell {cell}", { cell: CELL_TOKENS[i] });
    return h(
      "div",
      { class: `slot cell${legal.has(key) ? " legal" : ""}${sel(CELL, i) ? " selected" : ""}${lit(CELL, i)}`, "data-area": CELL, "data-index": i, role: "group", "aria-label": card === null ? t("{place}, empty", { place: where }) : where },
      card === null ? h("span", { class: "hint" }, CELL_TOKENS[i]) : cardEl(card, { "data-area": CELL, "data-index": i, class: `${sel(CELL, i) ? "selected" : ""}${hintFrom(CELL, i) ? " hinted" : ""}` }, interactive, where),
    );
  });
  const founds = [0, 1, 2, 3].map((suit) => {
    const top = board.foundationTop(suit);
    const isLegal = legal.has(`${FOUNDATION}:0`) && selCard !== null && suitOf(selCard) === suit;
    const where = foundationName(suit);
    return h(
      "div",
      { class: `slot found${isLegal ? " legal" : ""}${sel(FOUNDATION, suit) ? " selected" : ""}${lit(FOUNDATION, suit)}`, "data-area": FOUNDATION, "data-index": suit, role: "group", "aria-label": top === null ? t("{place}, empty", { place: where }) : tn("{place}, {n} card", "{place}, {n} cards", board.home[suit], { place: where }) },
      top === null
        ? h("span", { class: `hint s${suit}` }, SUIT_SYMBOLS[suit])
        : cardEl(top, { "data-area": FOUNDATION, "data-index": suit, class: sel(FOUNDATION, suit) ? "selected" : "" }, interactive, where),
    );
  });
  const columns = board.cols.map((col, i) => {
    const key = `${COLUMN}:${i}`;
    const from = sel(COLUMN, i) ? col.length - selected.n : col.length;
    const where = t("column {n}", { n: i + 1 });
    const el = h(
      "div",
      { class: `col${legal.has(key) ? " legal" : ""}${lit(COLUMN, i)}`, "data-area": COLUMN, "data-index": i, role: "group", "aria-label": col.length ? tn("{place}, {n} card", "{place}, {n} cards", col.length, { place: where }) : t("{place}, empty", { place: where }) },
      col.map((card, depth) =>
        cardEl(card, { "data-area": COLUMN, "data-index": i, "data-depth": depth, class: `${depth >= from ? "selected" : ""}${hintFrom(COLUMN, i) && depth >= col.length - hint.n ? " hinted" : ""}` }, interactive, depth === col.length - 1 ? where : t("{place}, covered", { place: where })),
      ),
    );
    // Its length, for the phone's fan (style.css); set through the CSSOM, which the page's
    // Content-Security-Policy allows where it refuses style attributes.
    el.style.setProperty("--n", String(col.length));
    return el;
  });
  const el = h(
    "section",
    // A won board celebrates (style.css: its kings leap in turn, unless the reader asked for less motion).
    { class: `board cols-${board.rules.columns}${board.isWon() ? " won" : ""}`, "aria-label": opts.label },
    h("div", { class: "top" }, h("div", { class: "cells" }, cells), h("div", { class: "founds" }, founds)),
    h("div", { class: "columns" }, columns),
  );
  if (interactive) attachPointer(el, board, opts);
  return el;
}

function selectedCard(board, { area, index, n }) {
  if (area === COLUMN) {
    const col = board.cols[index];
    return col.length >= n ? col[col.length - n] : null;
  }
  if (area === CELL) return board.cells[index];
  return board.foundationTop(index);
}

function placeOf(target) {
  const el = target?.closest?.("[data-area]");
  if (!el) return null;
  const depth = el.dataset.depth === undefined ? null : Number(el.dataset.depth);
  return { area: Number(el.dataset.area), index: Number(el.dataset.index), depth, el };
}

/** Clicks pick; a press that moves more than a few pixels drags the card (and the run below it). */
function attachPointer(root, board, { onPick, onDrop, onClear }) {
  let press = null;
  let dragged = false;
  root.addEventListener("pointerdown", (e) => {
    const place = placeOf(e.target);
    if (!place || !e.target.closest(".card") || e.button > 0) return;
    press = { ...place, x: e.clientX, y: e.clientY, ghost: null, id: e.pointerId };
  });
  root.addEventListener("pointermove", (e) => {
    if (!press || e.pointerId !== press.id) return;
    if (!press.ghost) {
      if (Math.hypot(e.clientX - press.x, e.clientY - press.y) < DRAG_START_PX) return;
      const n = runBelow(board, press);
      if (n === 0) {
        press = null;
        return;
      }
      press.n = n;
      press.ghost = ghostOf(root, press);
      glowTargets(root, board, press);
      root.setPointerCapture?.(e.pointerId);
    }
    press.ghost.style.transform = `translate(${e.clientX - press.x}px, ${e.clientY - press.y}px)`;
  });
  const finish = (e) => {
    if (!press || e.pointerId !== press.id) return;
    const { ghost } = press;
    if (ghost) {
      ghost.remove();
      unglow(root);
      dragged = true;
      const target = placeOf(document.elementFromPoint(e.clientX, e.clientY));
      const from = { area: press.area, index: press.index, n: press.n };
      press = null;
      if (target && !(target.area === from.area && target.index === from.index)) onDrop(from, target.area, target.index);
      return;
    }
    press = null;
  };
  root.addEventListener("pointerup", finish);
  root.addEventListener("pointercancel", (e) => {
    press?.ghost?.remove();
    unglow(root);
    press = null;
  });
  root.addEventListener("click", (e) => {
    if (dragged) {
      dragged = false;
      return;
    }
    const place = placeOf(e.target);
    if (place) onPick(place.area, place.index, place.depth);
    else onClear?.(); // a click on the table drops the selection
  });
}

/** While a run is dragged, the places it may go glow (class "drop"; the board "dragging"). */
function glowTargets(root, board, press) {
  root.classList.add("dragging");
  const card = press.area === COLUMN ? board.cols[press.index][press.depth] : press.area === CELL ? board.cells[press.index] : board.foundationTop(press.index);
  for (const m of board.legalMoves()) {
    if (m.sa !== press.area || m.s !== press.index || m.n !== press.n) continue;
    const index = m.da === FOUNDATION ? suitOf(card) : m.d;
    const selector = m.da === COLUMN ? `.col[data-area="${COLUMN}"][data-index="${index}"]` : `.slot[data-area="${m.da}"][data-index="${index}"]`;
    root.querySelector(selector)?.classList.add("drop");
  }
}

function unglow(root) {
  root.classList.remove("dragging");
  for (const el of root.querySelectorAll(".drop")) el.classList.remove("drop");
}

/** Cards a drag from this press carries: the run from the pressed card down; 0 when not a run. */
function runBelow(board, press) {
  if (press.area !== COLUMN) return 1;
  const col = board.cols[press.index];
  for (let i = press.depth; i < col.length - 1; i++) if (!board.fits(col[i + 1], col[i])) return 0;
  return col.length - press.depth;
}

function ghostOf(root, press) {
  const source = press.area === COLUMN ? [...press.el.parentElement.children].slice(press.depth) : [press.el];
  const first = source[0].getBoundingClientRect();
  const ghost = h("div", { class: "ghost", "aria-hidden": "true" });
  ghost.style.left = `${first.left}px`;
  ghost.style.top = `${first.top}px`;
  // Outside the board the sizes it computes (from its width, a column's fan) are not known: the
  // lifted cards take those of the cards they copy.
  ghost.style.setProperty("--card-w", `${first.width}px`);
  ghost.style.setProperty("--card-h", `${first.height}px`);
  if (source.length > 1) ghost.style.setProperty("--fan", `${source[1].getBoundingClientRect().top - first.top}px`);
  for (const card of source) {
    const copy = card.cloneNode(true);
    copy.classList.add("lifted");
    ghost.append(copy);
  }
  document.body.append(ghost);
  return ghost;
}
