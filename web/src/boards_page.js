// /boards?preset=&period=&day=&grade=: the fastest proven wins of a preset (GET
// /api/v1/leaderboards/{preset}): today's daily deal, a week or all time; every entry links to
// its race's replay and to the racer's page.
import { h } from "./dom.js";
import { boardDoc } from "./records_api.js";
import { presetTitle, raceLink, raceTime, table, when } from "./records_format.js";
import { PRESETS } from "./rules.js";
import { day as dayText, number, t } from "./i18n.js";
import { gradeName } from "./words.js";

// Functions, said in the language of the moment.
const PERIODS = [
  ["day", () => t("Daily deal")],
  ["week", () => t("This week")],
  ["all", () => t("All time")],
];
const GRADES = ["gentle", "tricky", "fiendish"];
const PAGE = 50;

export async function showBoards(main, R) {
  const query = new URLSearchParams(location.search);
  const asked = {
    preset: query.get("preset") || "seahaven",
    period: query.get("period") || "all",
    day: query.get("day") || null,
    grade: query.get("grade") || null,
  };
  const field = (label, input) => h("label", { class: "field" }, h("span", {}, label), input);
  const preset = h("select", { id: "board-preset" }, Object.values(PRESETS).map((p) => h("option", { value: p.name, selected: p.name === asked.preset }, presetTitle(p.name))));
  const day = h("input", { id: "board-day", type: "date", value: asked.day ?? "" });
  const grade = h("select", { id: "board-grade" }, h("option", { value: "" }, gradeName("any")), GRADES.map((g) => h("option", { value: g, selected: g === asked.grade }, gradeName(g))));
  const tabs = h("div", { class: "tabs", role: "tablist", "aria-label": t("period") });
  const result = h("div", { id: "board" });
  const more = h("button", { id: "more-entries", class: "quiet", hidden: true, onclick: () => load(R.board.next_offset) }, t("More"));
  R.asked = asked;

  const load = async (offset = 0) => {
    const { preset: name, period, day: date, grade: g } = asked;
    const board = await boardDoc(name, { period, day: period === "all" ? null : date, grade: g, offset, limit: PAGE });
    if (asked.preset !== name || asked.period !== period) return; // the reader asked for another board meanwhile
    const entries = offset ? [...R.board.entries, ...board.entries] : board.entries;
    R.board = { ...board, entries };
    more.hidden = board.next_offset === null;
    const span = period === "day" ? t("daily deal of {day}", { day: dayText(board.day) }) : period === "week" ? t("the week of {day}", { day: dayText(board.day) }) : t("all time");
    const title = [presetTitle(board.preset), span, board.grade ? t("{grade} deals", { grade: gradeName(board.grade) }) : null].filter(Boolean).join(" · ");
    result.replaceChildren(
      h("h2", { id: "board-title" }, title),
      entries.length
        ? table(
            ["#", t("Racer"), t("Time"), t("Deal"), t("When")],
            entries.map((e) =>
              h(
                "tr",
                {},
                h("td", {}, number(e.rank)),
                h("td", {}, h("a", { href: `/players/${encodeURIComponent(e.player)}` }, e.name)),
                h("td", {}, raceLink(e.race_id, raceTime(e.time_ms))),
                h("td", {}, `#${e.deal}`),
                h("td", {}, when(e.ended_at)),
              ),
            ),
            { class: "board-entries" },
          )
        : h("p", { class: "muted" }, t("No proven win here yet: only finishes without hints, by people, on deals the server picked (or the daily deal) count.")),
    );
  };
  const changed = () => {
    Object.assign(asked, { preset: preset.value, day: day.value || null, grade: grade.value || null });
    const params = new URLSearchParams({ preset: asked.preset, period: asked.period });
    if (asked.day && asked.period !== "all") params.set("day", asked.day);
    if (asked.grade) params.set("grade", asked.grade);
    history.replaceState(null, "", `/boards?${params}`);
    day.disabled = asked.period === "all";
    renderTabs();
    return load().catch((e) => result.replaceChildren(h("p", { class: "error", role: "alert" }, e.message)));
  };
  const renderTabs = () =>
    tabs.replaceChildren(
      ...PERIODS.map(([value, text]) =>
        h("button", { role: "tab", "data-period": value, "aria-selected": value === asked.period ? "true" : "false", onclick: () => ((asked.period = value), changed()) }, text()),
      ),
    );
  for (const input of [preset, day, grade]) input.addEventListener("change", changed);
  main.replaceChildren(
    h(
      "div",
      { class: "records boards-page" },
      h(
        "section",
        { class: "card-panel" },
        h("h2", {}, t("Leaderboards")),
        h("p", { class: "muted" }, t("The fastest wins, each replayed by the server's engine before it counts: no hints, people only, on deals the server picked in secret.")),
        tabs,
        h("div", { class: "row board-form" }, field(t("Rules"), preset), field(t("Day (UTC)"), day), field(t("Deal difficulty"), grade)),
      ),
      h("section", { class: "card-panel" }, result, more),
    ),
  );
  await changed();
}
