// Cards slide to their place: before a render the board's cards are measured, after it each card
// that moved is played from where it was to where it is (FLIP). Nothing moves when the player asks
// for reduced motion.

const SLIDE_MS = 160;

/** Where each card of the shown board is now, by card (its accessible name up to the comma). */
export function measure(root) {
  const at = new Map();
  for (const el of root.querySelectorAll(".board .card")) at.set(cardOf(el), placeOf(el));
  return at;
}

/** Where a card is on its board: a board that moves on the page (results shown above it on a
 * phone) moves its cards with it, and none of them slides. */
function placeOf(el) {
  const card = el.getBoundingClientRect();
  const board = el.closest(".board").getBoundingClientRect();
  return { left: card.left - board.left, top: card.top - board.top };
}

/** Slide the cards that moved since ``before`` (measure's map). */
export function slide(root, before, win = window) {
  if (!before.size || win.matchMedia?.("(prefers-reduced-motion: reduce)").matches) return 0;
  let moved = 0;
  for (const el of root.querySelectorAll(".board .card")) {
    const was = before.get(cardOf(el));
    if (!was || typeof el.animate !== "function") continue;
    const now = placeOf(el);
    const dx = was.left - now.left;
    const dy = was.top - now.top;
    if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
    el.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }], { duration: SLIDE_MS, easing: "ease-out" });
    moved++;
  }
  return moved;
}

const cardOf = (el) => (el.getAttribute("aria-label") ?? "").split(",", 1)[0];
