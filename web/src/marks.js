// Racers who are not a person racing live are marked wherever racers are listed (the race
// client's racers, standings and results; the records pages): a bot the server plays, and a ghost,
// a recorded run played again at its recorded times (docs/protocol.md, accept_challenge).
import { h } from "./dom.js";
import { t } from "./i18n.js";

// Functions, said in the language of the moment; the mark's own word is a class name too.
const TITLES = { bot: () => t("played by the server"), ghost: () => t("a recorded run, played again") };
const WORDS = { bot: () => t("bot"), ghost: () => t("ghost") };

/** The marks a racer (a Racer, Standing or a racer on record) carries: "bot", "ghost". A bot
 * whose name says it is the computer ("Ordinateur (vif)") is not marked again: said once. */
export const markNames = (racer) => Object.keys(TITLES).filter((mark) => racer[mark] && !(mark === "bot" && namedBot(racer)));

/** The racer's marks as badges after a name, each after a space so that the text reads "Bob
 * ghost" (class "mark mark-ghost": a bare "ghost" class is the dragged cards'). */
export const racerMarks = (racer) => markNames(racer).flatMap((mark) => [" ", h("span", { class: `mark mark-${mark}`, title: TITLES[mark]() }, WORDS[mark]())]);

const BOT_NAME = /^Computer \((stroll|brisk|sprint)\)$/;

/** A racer's name as the page says it: the server names a bot `Computer (PACE)` (docs/protocol.md,
 * section 6), said here in the page's language ("Ordinateur (vive)"); any other name as it is. */
export function racerName(racer) {
  const named = racer.bot ? BOT_NAME.exec(racer.serverName ?? racer.name) : null;
  return named ? t("Computer ({pace})", { pace: t(named[1]) }) : racer.name;
}

/** A racer (or standing) with its name as the page says it, in the language of the moment (said
 * again when the language changes: ``serverName`` keeps the server's). */
export const said = (racer) => (racer.bot ? { ...racer, serverName: racer.serverName ?? racer.name, name: racerName(racer) } : racer);

/** A bot named as the server names them, whose name says it is the computer (in some language). */
const namedBot = (racer) => BOT_NAME.test(racer.serverName ?? racer.name);
