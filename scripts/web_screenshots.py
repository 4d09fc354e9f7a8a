"""Screenshots of the browser client for docs/: the lobby, a race and the results, desktop and phone,
then the race's replay, its analysis (the graph, where the phone's racer lost the deal on purpose)
and the winner's page (the records pages).

    .venv/bin/python scripts/web_screenshots.py

Starts a server process on a free port (its records in a temporary data folder), plays seahaven
deal 1 in headless Chromium (/usr/bin/chromium) and writes
docs/web-{lobby,race,results,replay,analysis}-{desktop,phone}.png and docs/web-player-desktop.png.

    .venv/bin/python scripts/web_screenshots.py --lang nl

writes the lobby and a race as a browser speaking that language sees them (its
``navigator.languages``, Playwright's ``locale``): docs/web-{lobby,race}-LANG.png (docs/i18n.md).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from seahaven import Board
from seahaven.moves import COLUMN_TOKENS, FOUNDATION
from seahaven.solver import solve

DOCS = Path(__file__).resolve().parents[1] / "docs"
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


def key_moves(page: Page, moves: list[str]) -> None:
    for text in moves:
        src, dst = text[0], text[1]
        page.keyboard.press(src)
        for _ in range(int(text.split(":")[1]) - 1 if ":" in text else 0):
            page.keyboard.press("ArrowUp")
        page.keyboard.press("." if dst == "#" else dst)
    page.wait_for_function("() => window.seahaven.pending.length === 0")


def start_server() -> tuple[subprocess.Popen[str], str, str]:
    """A server process on a free port, its base URL and its data folder."""
    cmd = [sys.executable, "-m", "server", "--port", "0", "--countdown", "0.2", "--spectator-delay", "0"]
    data = tempfile.mkdtemp(prefix="seahaven-shots-")
    env = {**os.environ, "SEAHAVEN_DATA_DIR": data}
    server = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)
    assert server.stdout is not None
    return server, "http://127.0.0.1:" + server.stdout.readline().rsplit(":", 1)[1].strip(), data


def losing_move(played: list[str]) -> str:
    """A move after ``played`` on deal 1 that leaves no win (the solver proves it), not to the foundation."""
    board = Board.deal("seahaven", 1)
    for text in played:
        board.push_text(text)
    for move in board.legal_moves():
        if move.dst_area == FOUNDATION:
            continue
        after = board.copy()
        after.push(move)
        if solve(after, max_states=50_000).status == "unsolvable":
            return str(move)
    raise SystemExit("no losing move found")


def analysed(base: str, race_id: str) -> None:
    """Wait until the server has analysed the race (a few seconds after it is on record)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{base}/api/v1/races/{race_id}/analysis") as answer:
                if json.load(answer)["status"] != "pending":
                    return
        except OSError:
            pass  # not on record yet (404), or busy
        time.sleep(1)
    raise SystemExit(f"race {race_id} not analysed in time")


def language_shots(lang: str) -> int:
    """The lobby and a race, desktop sized, in a browser whose language is ``lang``."""
    server, base, data = start_server()
    solution = [str(m) for m in solve(Board.deal("seahaven", 1)).moves]
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium")
            pages = []
            for name in ("Ann", "Bob", "Cleo"):
                page = browser.new_page(viewport=SIZES["desktop"], locale=lang)  # type: ignore[arg-type]
                page.add_init_script("localStorage.setItem('seahaven.autoMove', 'off')")
                page.goto(base + "/")
                page.fill("#name", name)
                page.click("form.name-form button[type=submit]")
                page.wait_for_selector("#rooms-h")
                pages.append(page)
            ann, bob, decoy = pages
            decoy.select_option("select[name=preset]", "freecell")
            decoy.click("form.create button[type=submit]")
            decoy.wait_for_selector("#room-code")
            ann.wait_for_selector(".rooms tbody tr", timeout=10_000)
            ann.wait_for_selector("section[aria-labelledby=daily-h] p.muted")
            ann.screenshot(path=DOCS / f"web-lobby-{lang}.png")
            ann.fill("input[name=deal]", "1")
            ann.click("form.create button[type=submit]")
            ann.wait_for_selector("#room-code")
            bob.goto(base + "/r/" + ann.inner_text("#room-code"))
            bob.wait_for_selector("#ready")
            for page in (ann, bob):
                page.click("#ready")
            for page in (ann, bob):
                page.wait_for_selector(".board")
            key_moves(ann, solution[:30])
            key_moves(bob, solution[:17])
            ann.wait_for_timeout(1200)  # the race clock shows a second or so
            ann.screenshot(path=DOCS / f"web-race-{lang}.png")
            browser.close()
    finally:
        server.kill()
        shutil.rmtree(data, ignore_errors=True)
    print(f"wrote {DOCS / f'web-lobby-{lang}.png'} and {DOCS / f'web-race-{lang}.png'}")
    return 0


def main() -> int:
    if sys.argv[1:2] == ["--lang"] and len(sys.argv) == 3:
        return language_shots(sys.argv[2])
    server, base, data = start_server()
    solution = [str(m) for m in solve(Board.deal("seahaven", 1)).moves]
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium")
            pages = {size: browser.new_page(viewport=vp, has_touch=size == "phone") for size, vp in SIZES.items()}  # type: ignore[arg-type]
            names = {"desktop": "Ann", "phone": "Bob"}
            for size, page in pages.items():
                # The solver's moves are played one by one: no auto-move to the foundations.
                page.add_init_script("localStorage.setItem('seahaven.autoMove', 'off')")
                page.goto(base + "/")
                page.fill("#name", names[size])
                page.click("text=Continue")
                page.wait_for_selector("text=Public rooms")
            # A waiting public room so the lobby shows its list.
            decoy = browser.new_page()
            decoy.goto(base + "/")
            decoy.fill("#name", "Cleo")
            decoy.click("text=Continue")
            decoy.select_option("select[name=preset]", "freecell")
            decoy.click("text=Create room")
            decoy.wait_for_selector("#room-code")
            for size, page in pages.items():
                page.wait_for_selector(".rooms tbody tr", timeout=10_000)
                page.screenshot(path=DOCS / f"web-lobby-{size}.png")

            ann, bob = pages["desktop"], pages["phone"]
            ann.fill("input[name=deal]", "1")
            ann.click("text=Create room")
            ann.wait_for_selector("#room-code")
            bob.goto(base + "/r/" + ann.inner_text("#room-code"))
            bob.wait_for_selector("#ready")
            for page in (ann, bob):
                page.click("#ready")
            for page in (ann, bob):
                page.wait_for_selector(".board")
            key_moves(ann, solution[:30])
            key_moves(bob, solution[:17])
            lost = losing_move(solution[:17])
            bob.wait_for_timeout(1500)  # a think before the move that loses the deal
            key_moves(bob, [lost])
            played = {"desktop": solution[:30], "phone": [*solution[:17], lost]}
            # Show a selection with its legal destinations: a column whose card can go somewhere but home.
            for page, size in ((ann, "desktop"), (bob, "phone")):
                b = Board.deal("seahaven", 1)
                for text in played[size]:
                    b.push_text(text)
                source = next(m.src for m in b.legal_moves() if m.src_area == 0 and m.dst_area != FOUNDATION)
                page.keyboard.press(COLUMN_TOKENS[source])
                page.wait_for_timeout(1200)  # the race clock shows a second or so
                page.screenshot(path=DOCS / f"web-race-{size}.png")
                page.keyboard.press("Escape")
            key_moves(ann, solution[30:])
            for page, size in ((ann, "desktop"), (bob, "phone")):
                page.wait_for_selector("#results-h")
                page.wait_for_timeout(700)  # the result moment has arrived
                page.locator("#results-h").scroll_into_view_if_needed()
                page.screenshot(path=DOCS / f"web-results-{size}.png")
            # The records pages: the race's replay a third of the way through Ann's moves, her page.
            replay = base + str(ann.get_attribute("#replay-link", "href"))
            mine = base + str(ann.get_attribute("#my-page-link", "href"))
            bob_id = bob.evaluate("() => window.seahaven.me.player")
            analysed(base, replay.rsplit("/", 1)[1])
            for page, size in ((ann, "desktop"), (bob, "phone")):
                page.goto(f"{replay}?step=30")
                page.wait_for_selector("#analysis-facts")
                page.screenshot(path=DOCS / f"web-replay-{size}.png", full_page=True)
                # The analysis, the phone's racer at the move that lost the deal.
                page.goto(f"{replay}?racer={bob_id}&step={len(played['phone'])}")
                page.wait_for_selector("#analysis-facts")
                page.locator("section.analysis").screenshot(path=DOCS / f"web-analysis-{size}.png")
            ann.goto(mine)
            ann.wait_for_function("() => window.seahavenRecords.ready")
            ann.screenshot(path=DOCS / "web-player-desktop.png")
            browser.close()
    finally:
        server.kill()
        shutil.rmtree(data, ignore_errors=True)
    for path in sorted(DOCS.glob("web-*.png")):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
