// The race's analysis on the replay page (GET /api/v1/races/{race_id}/analysis, issue 40): a graph
// of cards home over the race's time, one line per racer (a colour and a dash each), under the plot
// each racer's band of whether their deal could still be won (a fill, hatching or dots, and the
// word where it fits), the move that lost the deal and the costly moves marked (their tooltips in
// words); a click or a tap on the graph jumps the replay to that racer's move. Then the same facts
// in words, the text alternative: where each racer lost the deal ("Lost at move 6 (0:03.2): 3♦ to
// cell a"), their longest think, how long they followed the winner's line.
import { h } from "./dom.js";
import { raceAnalysis } from "./records_api.js";
import { raceTime } from "./records_format.js";
import { Replay } from "./replay.js";
import { clock, number, t, tn } from "./i18n.js";
import { cardFace, moveWords } from "./words.js";

const SVG = "http://www.w3.org/2000/svg";
/** While the analysis is pending, asked again this often, this many times. */
export const RETRY_MS = 3000;
export const RETRIES = 20;
/** The racers' colours on the felt, in the standings' order, and a dash each (told apart without colour). */
export const COLOURS = ["#fde047", "#7dd3fc", "#f9a8d4", "#fdba74", "#c4b5fd", "#f8fafc", "#5eead4", "#fca5a5"];
const DASHES = ["", "7 4", "2 3", "10 3 2 3", "4 4", "12 4", "1 5", "6 2 1 2"];
const VERDICTS = { won: () => t("won"), winnable: () => t("winnable"), lost: () => t("lost"), unknown: () => t("unknown") };
const BAND_FILL = { won: "#4ade80", winnable: "#4ade80", lost: "url(#band-lost)", unknown: "url(#band-unknown)" };

/** An SVG element: s("path", {d: "M0 0"}, children...). */
function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) if (value !== null && value !== undefined && value !== false) el.setAttribute(key, String(value));
  for (const child of children.flat(Infinity)) if (child !== null && child !== undefined && child !== false) el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return el;
}

/** A position's verdict in words, for the replay's line: "winnable in 40 moves", "lost: no win left". */
export function verdictWords(point) {
  if (!point) return null;
  if (point.verdict === "winnable" && point.line !== null) return tn("winnable in {n} move", "winnable in {n} moves", point.line);
  if (point.verdict === "lost") return t("lost: no win left");
  if (point.verdict === "unknown") return t("not known whether it can still be won");
  return point.verdict === "won" ? t("won") : null;
}

/** What the graph draws of each racer who has an analysis: their points (the opening, then after
 * each entry of their moves: ``step`` the replay's, ``ms``, ``home`` cards home, the verdict), the
 * moves named (lost, costly) with the move in words, read on the board before it. */
export function racerSeries(race, analysis, opening) {
  const analysed = new Map(analysis.racers.map((a) => [a.player, a]));
  const duration = Math.max(0, race.ended_at - race.started_at);
  return race.racers
    .map((racer, i) => {
      const a = analysed.get(racer.player);
      if (!a) return null;
      let replay;
      try {
        replay = new Replay(opening, racer.moves, racer.auto ?? []);
      } catch {
        return null; // moves these rules do not replay: nothing to draw
      }
      const named = new Set([a.lost_at?.index, ...a.costly.map((c) => c.index)].filter((n) => n !== undefined));
      const moves = new Map();
      const points = [{ step: 0, ms: 0, home: replay.seek(0).progress, verdict: a.opening.verdict, line: a.opening.line }];
      a.points.slice(0, replay.length).forEach((p, index) => {
        if (named.has(index)) {
          const step = replay.steps[index];
          moves.set(index, step.undo ? t("an undo") : moveWords(replay.seek(index), step.move, cardFace));
        }
        points.push({ step: index + 1, ms: p.ms, home: replay.seek(index + 1).progress, verdict: p.verdict, line: p.line });
      });
      const last = points[points.length - 1];
      const end = racer.status === "finished" && racer.time_ms !== null ? racer.time_ms : Math.max(duration, last.ms);
      return { racer, player: racer.player, name: racer.name, colour: COLOURS[i % COLOURS.length], dash: DASHES[i % DASHES.length], points, end, a, moves };
    })
    .filter(Boolean);
}

/** A named move's words: "move 6 (0:03.2)". */
const moveAt = (c) => t("move {n} ({time})", { n: number(c.own), time: raceTime(c.ms) });

/** A costly move's tooltip, in words. */
function costlyWords(series, c) {
  const move = series.moves.get(c.index) ?? c.move;
  const params = { name: series.name, at: moveAt(c), move };
  if (c.kind === "lost") return t("{name} lost the deal at {at}: {move}", params);
  if (c.kind === "longer") return tn("{name}, {at}: {move} made the winning line {n} move longer", "{name}, {at}: {move} made the winning line {n} moves longer", c.by, params);
  return t("{name} thought for {time} before {at}: {move}", { ...params, time: raceTime(c.by) });
}

/** The facts of one racer, in words: [text, step to show or null] each. */
export function racerFacts(series, race) {
  const { a, points } = series;
  const facts = [];
  const last = points[points.length - 1];
  if (a.lost_at) {
    facts.push(["lost", t("Lost at move {n} ({time}): {move}", { n: number(a.lost_at.own), time: raceTime(a.lost_at.ms), move: series.moves.get(a.lost_at.index) ?? a.lost_at.move }), a.lost_at.index + 1]);
  } else if (last.verdict === "won") {
    facts.push(["won", t("Won the deal"), last.step]);
  } else if (last.verdict === "winnable") {
    facts.push(["winnable", t("Still winnable at the end"), last.step]);
  } else if (last.verdict === "lost") {
    facts.push(["lost", t("Lost the deal; which move lost it is not known"), null]);
  } else {
    facts.push(["unknown", t("Not known whether the deal could still be won at the end"), null]);
  }
  const slow = a.costly.find((c) => c.kind === "slow");
  if (slow) facts.push(["slow", t("Longest think: move {n}, {time}", { n: number(slow.own), time: raceTime(slow.by) }), slow.index + 1]);
  const longer = a.costly.find((c) => c.kind === "longer");
  if (longer)
    facts.push(["longer", tn("Longest detour: move {at}, {move}, made the winning line {n} move longer", "Longest detour: move {at}, {move}, made the winning line {n} moves longer", longer.by, { at: number(longer.own), move: series.moves.get(longer.index) ?? longer.move }), longer.index + 1]);
  const line = a.against_winner;
  if (line) {
    const winner = race.racers.find((r) => r.player === line.winner)?.name ?? line.winner;
    const step = line.parted_at === null ? null : line.parted_at + 1;
    facts.push(["line", line.common ? tn("Followed the winner's line ({winner}) for {n} move", "Followed the winner's line ({winner}) for {n} moves", line.common, { winner }) : t("Left the winner's line ({winner}) from the first move", { winner }), step]);
  }
  return facts;
}

/** A time axis's step: ticks a readable distance apart. */
function tickStep(span, room) {
  const most = Math.max(2, Math.floor(room / 64));
  for (const step of [5e3, 10e3, 15e3, 30e3, 60e3, 120e3, 300e3, 600e3, 900e3, 1800e3, 3600e3]) if (span / step <= most) return step;
  return 7200e3;
}

/** The graph, ``width`` pixels wide: [svg, its geometry]. */
function drawGraph(width, all, xMax) {
  const phone = width < 560;
  const M = { left: 30, right: 12, top: 20, bottom: 24 };
  const plotH = phone ? 150 : 210;
  const row = 30;
  const height = M.top + plotH + M.bottom + all.length * row + 2;
  const plotW = Math.max(60, width - M.left - M.right);
  const X = (ms) => M.left + (Math.min(ms, xMax) / xMax) * plotW;
  const Y = (home) => M.top + plotH - (home / 52) * plotH;
  const grid = [0, 13, 26, 39, 52].map((n) =>
    s("g", { class: "grid" }, s("line", { x1: M.left, x2: M.left + plotW, y1: Y(n), y2: Y(n) }), s("text", { x: M.left - 5, y: Y(n) + 4, "text-anchor": "end" }, number(n))),
  );
  const step = tickStep(xMax, plotW);
  const ticks = [];
  for (let ms = 0; ms <= xMax + 1; ms += step) ticks.push(s("g", { class: "tick" }, s("line", { x1: X(ms), x2: X(ms), y1: M.top + plotH, y2: M.top + plotH + 4 }), s("text", { x: X(ms), y: M.top + plotH + 16, "text-anchor": ms === 0 ? "start" : "middle" }, clock(ms))));
  const lines = all.map((r) => {
    let d = `M${X(0).toFixed(1)} ${Y(r.points[0].home).toFixed(1)}`;
    for (const p of r.points.slice(1)) d += `H${X(p.ms).toFixed(1)}V${Y(p.home).toFixed(1)}`;
    d += `H${X(r.end).toFixed(1)}`;
    return s("path", { class: "racer-line", "data-player": r.player, d, stroke: r.colour, "stroke-dasharray": r.dash || null });
  });
  const homeAt = (r, step) => r.points[Math.min(step, r.points.length - 1)].home;
  const marks = all.flatMap((r) =>
    r.a.costly.map((c) => {
      const x = X(c.ms);
      const y = Y(homeAt(r, c.index + 1));
      const title = s("title", {}, costlyWords(r, c));
      const at = { "data-player": r.player, "data-step": c.index + 1 };
      if (c.kind === "lost")
        return s("g", { class: "lost-mark", ...at }, title, s("circle", { cx: x, cy: y, r: 8 }), s("path", { d: `M${x - 4} ${y - 4}L${x + 4} ${y + 4}M${x + 4} ${y - 4}L${x - 4} ${y + 4}` }));
      if (c.kind === "longer") return s("g", { class: "costly-mark longer", ...at }, title, s("path", { d: `M${x} ${y - 7}L${x + 6} ${y + 4}L${x - 6} ${y + 4}Z`, fill: r.colour }));
      return s("g", { class: "costly-mark slow", ...at }, title, s("path", { d: `M${x} ${y - 6}L${x + 6} ${y}L${x} ${y + 6}L${x - 6} ${y}Z`, fill: r.colour }));
    }),
  );
  // Lost moves drawn last: over the others at the same place.
  marks.sort((p, q) => Number(p.classList.contains("lost-mark")) - Number(q.classList.contains("lost-mark")));
  const bands = all.map((r, i) => {
    const top = M.top + plotH + M.bottom + i * row;
    const segments = [];
    r.points.forEach((p, k) => {
      const to = k + 1 < r.points.length ? r.points[k + 1].ms : r.end;
      const last = segments[segments.length - 1];
      if (last && last.verdict === p.verdict) last.to = to;
      else segments.push({ verdict: p.verdict, from: p.ms, to });
    });
    return s(
      "g",
      { class: "band", "data-band": r.player },
      s("text", { class: "band-name", x: M.left, y: top + 10 }, r.name),
      s("rect", { class: "band-back", x: M.left, y: top + 13, width: plotW, height: 13 }),
      segments.map((g) => {
        const x = X(g.from);
        const w = Math.max(0, X(g.to) - x);
        const word = VERDICTS[g.verdict]?.() ?? g.verdict;
        const fits = w >= word.length * 6.5 + 8;
        return s(
          "g",
          { class: `segment ${g.verdict}`, "data-verdict": g.verdict },
          s("rect", { x, y: top + 13, width: w, height: 13, fill: BAND_FILL[g.verdict] ?? "url(#band-unknown)" }),
          fits ? s("text", { x: x + 4, y: top + 23 }, word) : null,
        );
      }),
    );
  });
  const svg = s(
    "svg",
    { class: "analysis-graph", viewBox: `0 0 ${width} ${height}`, width: "100%", height, role: "img", "aria-labelledby": "analysis-h", "aria-describedby": "analysis-about" },
    s(
      "defs",
      {},
      s("pattern", { id: "band-lost", width: 6, height: 6, patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" }, s("rect", { width: 6, height: 6, fill: "#7f1d1d" }), s("line", { x1: 1.5, y1: 0, x2: 1.5, y2: 6, stroke: "#fca5a5", "stroke-width": 2.5 })),
      s("pattern", { id: "band-unknown", width: 6, height: 6, patternUnits: "userSpaceOnUse" }, s("rect", { width: 6, height: 6, fill: "#374151" }), s("circle", { cx: 3, cy: 3, r: 1.3, fill: "#d1d5db" })),
    ),
    s("rect", { class: "plot", x: M.left, y: M.top, width: plotW, height: plotH }),
    grid,
    s("text", { class: "axis-name", x: M.left, y: M.top - 7 }, t("cards home")),
    ticks,
    lines,
    marks,
    bands,
    s("circle", { class: "now-mark", r: 5, cx: -10, cy: -10 }),
  );
  return [svg, { X, Y, homeAt }];
}

/** The legend: each racer's line, the band's three kinds, the marks' shapes. */
function legend(all) {
  const swatch = (...children) => s("svg", { width: 26, height: 14, viewBox: "0 0 26 14", "aria-hidden": "true", class: "swatch" }, children);
  const item = (icon, text) => h("li", {}, icon, " ", text);
  return h(
    "ul",
    { class: "legend" },
    all.map((r) => item(swatch(s("line", { x1: 1, x2: 25, y1: 7, y2: 7, stroke: r.colour, "stroke-width": 3, "stroke-dasharray": r.dash || null })), r.name)),
    item(swatch(s("rect", { width: 26, height: 12, y: 1, fill: BAND_FILL.winnable })), t("still winnable")),
    item(swatch(s("rect", { width: 26, height: 12, y: 1, fill: "url(#band-lost)" })), t("lost: no win left")),
    item(swatch(s("rect", { width: 26, height: 12, y: 1, fill: "url(#band-unknown)" })), t("not known")),
    item(swatch(s("circle", { cx: 13, cy: 7, r: 6, fill: "#b91c1c", stroke: "#fff", "stroke-width": 1.5 }), s("path", { d: "M10 4L16 10M16 4L10 10", stroke: "#fff", "stroke-width": 2 })), t("the move that lost the deal")),
    item(swatch(s("path", { d: "M13 1L19 12L7 12Z", fill: "#e5e7eb", stroke: "#111" })), t("a detour: the winning line got longer")),
    item(swatch(s("path", { d: "M13 1L19 7L13 13L7 7Z", fill: "#e5e7eb", stroke: "#111" })), t("a long think")),
  );
}

/** Draws the analysis of ``race`` into ``section`` once the server has it; ``go(player, step)``
 * jumps the replay. Keeps what it shows in ``R`` (``analysis``: the document; ``analysisView``:
 * ``mark(player, step)`` moves the graph's marker, ``pointAt(player, step)`` a point's place on the
 * screen, ``verdictAt(player, step)``). A race not analysed (404, failed, an error) is left out. */
export async function showAnalysis(section, race, opening, R, go) {
  const heading = h("h2", { id: "analysis-h" }, t("Where the race was won and lost"));
  let doc = null;
  for (let tries = 0; ; tries++) {
    try {
      doc = await raceAnalysis(race.race_id, { fresh: tries > 0 });
    } catch (e) {
      if ((e.status === 429 || e.status === 503) && tries < RETRIES) {
        await new Promise((resolve) => setTimeout(resolve, (e.retryAfter ?? RETRY_MS / 1000) * 1000));
        continue;
      }
      R.analysis = { status: "absent", error: e.status ?? 0 };
      section.hidden = true;
      return;
    }
    R.analysis = doc;
    if (doc.status !== "pending") break;
    section.hidden = false;
    if (tries >= RETRIES) {
      section.replaceChildren(heading, h("p", { class: "muted", role: "status" }, t("The analysis is not ready yet: reload the page in a minute.")));
      return;
    }
    section.replaceChildren(heading, h("p", { class: "muted", id: "analysis-pending", role: "status" }, t("Analysing…")));
    await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
  }
  if (doc.status !== "done" || !doc.analysis) {
    section.hidden = true;
    return;
  }
  const all = racerSeries(race, doc.analysis, opening);
  if (!all.length) {
    section.hidden = true;
    return;
  }
  const xMax = Math.max(1000, race.ended_at - race.started_at, ...all.map((r) => r.end));
  const holder = h("div", { class: "graph" });
  const byPlayer = new Map(all.map((r) => [r.player, r]));
  let geometry = null;
  let svg = null;
  let width = 0;
  let shown = null; // [player, step] the marker is at
  const mark = (player, step) => {
    shown = [player, step];
    const r = byPlayer.get(player);
    const now = svg?.querySelector(".now-mark");
    if (!now) return;
    if (!r) return now.setAttribute("visibility", "hidden");
    const p = r.points[Math.min(step, r.points.length - 1)];
    now.setAttribute("visibility", "visible");
    now.setAttribute("cx", geometry.X(p.ms));
    now.setAttribute("cy", geometry.Y(p.home));
  };
  const draw = () => {
    const room = Math.round(holder.clientWidth || 640);
    if (room === width) return;
    width = room;
    [svg, geometry] = drawGraph(width, all, xMax);
    svg.addEventListener("click", (e) => pick(e));
    holder.replaceChildren(svg);
    if (shown) mark(...shown);
  };
  const pick = (e) => {
    const target = e.target.closest("[data-step]");
    if (target) return go(target.dataset.player, Number(target.dataset.step));
    const at = new DOMPoint(e.clientX, e.clientY).matrixTransform(svg.getScreenCTM().inverse());
    const band = e.target.closest("[data-band]")?.dataset.band;
    let best = null;
    for (const r of all) {
      if (band && r.player !== band) continue;
      for (const p of r.points) {
        const dx = geometry.X(p.ms) - at.x;
        const dy = band ? 0 : geometry.Y(p.home) - at.y;
        const d = dx * dx + dy * dy;
        if (best === null || d < best.d) best = { d, player: r.player, step: p.step };
      }
    }
    if (best) go(best.player, best.step);
  };
  const solver = doc.analysis.solution;
  const shortest = doc.analysis.shortest;
  const shortestBy = shortest && shortest.by !== "solver" ? (race.racers.find((r) => r.player === shortest.by)?.name ?? shortest.by) : null;
  section.hidden = false;
  section.replaceChildren(
    heading,
    h("p", { class: "muted", id: "analysis-about" }, t("Cards home over the race's time, one line per racer; under it, whether each racer's deal could still be won. Choose a point to replay that move.")),
    holder,
    legend(all),
    h(
      "ul",
      { class: "analysis-facts", id: "analysis-facts" },
      all.map((r) =>
        h(
          "li",
          { "data-player": r.player },
          h("strong", {}, r.name),
          h(
            "ul",
            {},
            racerFacts(r, race).map(([kind, text, step]) =>
              h(
                "li",
                { class: `fact ${kind}`, "data-fact": kind },
                h("span", {}, text),
                step === null
                  ? null
                  : [" ", h("button", { class: "quiet show", "data-player": r.player, "data-step": step, "aria-label": t("Show {name}'s move {n}", { name: r.name, n: number(ownUpTo(r.racer, step)) }), onclick: () => go(r.player, step) }, t("Show"))],
              ),
            ),
          ),
        ),
      ),
    ),
    solver !== null ? h("p", { class: "muted", id: "analysis-solver" }, tn("The solver wins this deal in {n} move.", "The solver wins this deal in {n} moves.", solver), shortestBy ? [" ", tn("The shortest win in this race: {name}'s, {n} move.", "The shortest win in this race: {name}'s, {n} moves.", shortest.moves, { name: shortestBy })] : null) : null,
  );
  draw();
  if (typeof ResizeObserver === "function") new ResizeObserver(() => draw()).observe(holder);
  R.analysisView = {
    mark,
    verdictAt: (player, step) => byPlayer.get(player)?.points[step] ?? null,
    pointAt: (player, step) => {
      const r = byPlayer.get(player);
      const p = r.points[step];
      const screen = new DOMPoint(geometry.X(p.ms), geometry.Y(p.home)).matrixTransform(svg.getScreenCTM());
      return { x: screen.x, y: screen.y };
    },
  };
  R.onAnalysis?.();
}

/** The racer's own moves and undos among their first ``step`` entries (the standings' count). */
function ownUpTo(racer, step) {
  const served = new Set(racer.auto ?? []);
  let own = 0;
  for (let i = 0; i < step && i < racer.moves.length; i++) own += !served.has(i);
  return own;
}
