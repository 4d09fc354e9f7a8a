// Rendering only what changed: the page is a list of parts, each [key, build]. A part whose key
// is the one already shown is kept (inputs keep what is typed, the focus stays); another is built
// and put in its place. When a rebuilt part held the focus, the same place in the new one (same id,
// or same board place) takes it back, so a move does not leave the focus on <body>.

const KEY = Symbol("part key");

export function patch(root, parts) {
  const focus = whereFocus(root);
  let changed = false;
  parts.forEach(([key, build], i) => {
    const old = root.children[i];
    if (old && old[KEY] === key) return;
    const el = build();
    el[KEY] = key;
    if (old) old.replaceWith(el);
    else root.append(el);
    changed = true;
  });
  while (root.children.length > parts.length) root.lastElementChild.remove();
  if (changed && focus && !root.contains(document.activeElement)) refocus(root, focus);
  return changed;
}

/** What holds the focus inside ``root``, as a selector that finds its successor. */
function whereFocus(root) {
  const el = document.activeElement;
  if (!el || el === document.body || !root.contains(el)) return null;
  if (el.id) return `#${CSS.escape(el.id)}`;
  const { area, index, depth } = el.dataset ?? {};
  if (area !== undefined) {
    const board = el.closest("[aria-label]")?.closest(".board") ? ".board " : "";
    return depth !== undefined ? `${board}[data-area="${area}"][data-index="${index}"][data-depth="${depth}"]` : `${board}[data-area="${area}"][data-index="${index}"]`;
  }
  return null;
}

function refocus(root, selector) {
  let el = root.querySelector(selector);
  // A card that moved away: its place's last card, or the place itself.
  if (!el) {
    const m = /\[data-area="(\d)"\]\[data-index="(\d+)"\]/.exec(selector);
    if (m) {
      const cards = root.querySelectorAll(`.card[data-area="${m[1]}"][data-index="${m[2]}"]`);
      el = cards[cards.length - 1] ?? root.querySelector(`.board`);
    }
  }
  if (el && !el.hasAttribute("tabindex") && !/^(BUTTON|INPUT|SELECT|A|TEXTAREA)$/.test(el.tagName)) el.setAttribute("tabindex", "-1");
  el?.focus({ preventScroll: true });
}
