// Rendering only what changed: the page is a list of parts, each [key, build] or [key, build,
// inner parts] (a container kept by its key, its own parts patched the same way). A part whose key
// is the one already shown is kept (inputs keep what is typed, the focus stays); another is built
// and put in its place. When a rebuilt part held the focus, the same place in the new one (same id,
// or same board place) takes it back, so a move does not leave the focus on <body>.

const KEY = Symbol("part key");

export function patch(root, parts) {
  const focus = whereFocus(root);
  let changed = false;
  parts.forEach(([key, build, inner], i) => {
    let el = root.children[i];
    if (!el || el[KEY] !== key) {
      const made = build();
      made[KEY] = key;
      if (el) el.replaceWith(made);
      else root.append(made);
      el = made;
      changed = true;
    }
    if (inner && patch(el, inner)) changed = true;
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
