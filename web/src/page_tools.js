// What the page does besides drawing the state (main.js lends it to the parts through `app`): the
// toast, a question in the page, the live region's words, the address bar.
import { h } from "./dom.js";

/** The page's tools over ``win`` and the state ``S``: {say, ask, announce, url}. */
export function pageTools(win, S) {
  const doc = win.document;
  let toastTimer = null; // the toast's: said again, the last one's timer is cleared
  return {
    say(text, ms = 4000) {
      S.toast = text;
      clearTimeout(toastTimer);
      const el = doc.getElementById("toast");
      toastTimer = setTimeout(() => {
        S.toast = "";
        el.textContent = "";
      }, ms);
      el.textContent = text;
    },
    url: (path) => win.history.replaceState(null, "", path),
    /** Ask the player in the page (a modal dialog: focus kept in it, Escape for no): resolves
     * true for ``yes``, false for ``no``. The safe answer (no) has the focus. */
    ask(title, text, yes, no) {
      doc.getElementById("ask")?.remove();
      return new Promise((resolve) => {
        const done = (answer) => {
          if (!dialog.isConnected) return;
          dialog.close();
          dialog.remove();
          resolve(answer);
        };
        const stay = h("button", { id: "ask-no", type: "button", onclick: () => done(false) }, no);
        const dialog = h(
          "dialog",
          { id: "ask", class: "card-panel ask", "aria-labelledby": "ask-h", "aria-describedby": "ask-text", oncancel: (e) => (e.preventDefault(), done(false)) },
          h("h2", { id: "ask-h" }, title),
          h("p", { id: "ask-text" }, text),
          h("div", { class: "row" }, stay, h("button", { id: "ask-yes", type: "button", class: "quiet", onclick: () => done(true) }, yes)),
        );
        doc.body.append(dialog);
        dialog.showModal();
        stay.focus();
      });
    },
    /** Said politely to screen readers only (the live region): selections, places, moves. */
    announce(text) {
      S.heard.push(text);
    },
  };
}
