// Cards slide to their place (FLIP): each card that moved since the last frame is played from where
// that frame showed it to where it is now. The measuring happens in an animation frame, on the
// layout the browser makes for that frame anyway, never between two renders: a burst of server
// messages (a rival's quick moves, a spectator's catch-up) drawn one after another forced a layout
// each, and a busy machine's page fell seconds behind the race. Nothing moves when the player asks
// for reduced motion, or when the frame comes long after the drawing (a tab that was hidden).

const SLIDE_MS = 160;
const STALE_MS = 500;

/** A page's slides: ``drawn(root)`` after each render; ``onSlid(n)`` hears how many cards slid at
 * the frame that follows (0 with reduced motion). */
export function slides(win, onSlid) {
  let shown = new Map(); // card -> its place on its board, as the last frame showed it
  let frame = 0;
  let since = 0;
  win.addEventListener?.("resize", () => (shown = new Map())); // every place moved: none slides
  const still = () => win.matchMedia?.("(prefers-reduced-motion: reduce)").matches;

  function play(root) {
    frame = 0;
    const animate = shown.size > 0 && !still() && win.performance.now() - since < STALE_MS;
    const now = new Map();
    let moved = 0;
    for (const el of root.querySelectorAll(".board .card")) {
      const card = cardOf(el);
      const at = placeOf(el);
      now.set(card, at);
      const was = shown.get(card);
      if (!animate || !was || typeof el.animate !== "function") continue;
      const dx = was.left - at.left;
      const dy = was.top - at.top;
      if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
      el.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }], { duration: SLIDE_MS, easing: "ease-out" });
      moved++;
    }
    shown = now;
    onSlid(moved);
  }

  return {
    drawn(root) {
      if (frame) return;
      since = win.performance.now();
      frame = win.requestAnimationFrame(() => play(root));
    },
  };
}

/** Where a card is on its board: a board that moves on the page (results shown above it on a
 * phone) moves its cards with it, and none of them slides. */
function placeOf(el) {
  const card = el.getBoundingClientRect();
  const board = el.closest(".board").getBoundingClientRect();
  return { left: card.left - board.left, top: card.top - board.top };
}

const cardOf = (el) => (el.getAttribute("aria-label") ?? "").split(",", 1)[0];
