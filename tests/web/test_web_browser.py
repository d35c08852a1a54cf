"""The web app in a real browser: Debian's Chromium driven by Playwright.

A missing Chromium is a failure, never a skip (README's test command installs it).
Screenshots of every page, at phone (360 px) and laptop (1280 px) width, go to
tests/artifacts/ (git-ignored) for people to look at.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nochmal.bots.registry import make_agent
from nochmal.board import load_board
from nochmal.cli import app as cli_app
from nochmal.dice import seeded_roll
from nochmal.game import Game
from nochmal.play import play_solo
from nochmal.record import GameRecord
from nochmal.rules import RuleSettings
from nochmal.seats import seat_name
from webserver import NO_WORKER

ARTIFACTS = Path(__file__).parents[1] / "artifacts"
WIDTHS = {"phone": (360, 760), "laptop": (1280, 860)}
pytestmark = pytest.mark.slow


def new_page(browser, width: str = "laptop"):
    w, h = WIDTHS[width]
    page = browser.new_page(viewport={"width": w, "height": h}, **NO_WORKER)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors
    return page


def shot(page, name: str) -> None:
    """Save a screenshot; on a phone-wide page, nothing may stick out sideways."""
    ARTIFACTS.mkdir(exist_ok=True)
    width = page.viewport_size["width"]
    if width <= 400:
        assert page.evaluate("document.documentElement.scrollWidth") <= width, f"{name}: wider than {width} px"
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def pick_and_cross(page, move) -> None:
    """Play ``move`` by tapping: its two dice, then its cells, then Cross (or Pass)."""
    if move.is_pass:
        page.click("#pass")
        return
    for kind, face in (("colour", move.colour_face), ("number", move.number_face)):
        if not page.locator(f'.die.{kind}.picked[data-face="{face}"]').count():  # a second click unpicks
            page.locator(f'.die.{kind}[data-face="{face}"]:not([disabled])').first.click()
    page.wait_for_selector("#sheets.choosing")  # the pick's answer (and its message line) before any tap
    for cell in move.cells:
        before = page.locator("#my-sheet rect.cell.picked").count()
        page.locator(f'#my-sheet rect.cell[data-cell="{cell}"]').click(force=True)
        page.wait_for_function(f'document.querySelectorAll("#my-sheet rect.cell.picked").length > {before}')
    page.wait_for_function(f'document.getElementById("cross").textContent === {json.dumps("Cross " + str(move))}')
    page.click("#cross")


def wait_roll(page, roll_text: str) -> None:
    page.wait_for_function(f'document.getElementById("roll-info").textContent.startsWith({json.dumps(roll_text)})')


def test_pages_render_at_phone_and_laptop_width(server, browser):
    for width in WIDTHS:
        page = new_page(browser, width)
        for name, path, ready in (("index", "/", ".cards"), ("play-setup", "/play", "#seats .seat"),
                                  ("replay-upload", "/replay", "#upload"),
                                  ("puzzle-start", "/puzzle/42", "#my-sheet rect.cell"),
                                  ("api-docs", "/docs", ".opblock"),  # Swagger UI from the app's files, no CDN
                                  ("api-redoc", "/redoc", ".api-content")):
            page.goto(server.url + path)
            page.wait_for_selector(ready)
            shot(page, f"{name}-{width}")
        assert page.js_errors == []
        page.close()


def test_whole_puzzle_by_tapping_matches_the_cli_replay(server, browser, tmp_path):
    seed = 11
    board = load_board("classic")
    page = new_page(browser, "phone")
    page.goto(f"{server.url}/puzzle/{seed}")
    page.wait_for_selector("#my-sheet rect.cell")
    game = Game(board, 1, mode="solo")
    agent = make_agent("greedy")
    moves = []
    for k in range(30):
        game.apply_roll(seeded_roll(seed, k, 2))
        move = agent.choose(game)
        moves.append(move)
        wait_roll(page, f"roll {k + 1} of 30")
        if k == 3:
            page.reload()  # survives a reload
            page.wait_for_selector("#my-sheet rect.cell")
            wait_roll(page, "roll 4 of 30")
        pick_and_cross(page, move)
        if k == 0:
            wait_roll(page, "roll 2 of 30")
            assert "game=" in page.url  # the game's id is in the URL once it has a move: a reload continues it
        if k == 5:
            shot(page, "puzzle-midgame-phone")
        game.apply_move(move)
    page.wait_for_selector("#end:not(.hidden)")
    score = game.scores()[0]
    assert page.locator("#final-score").inner_text().startswith(f"Score {score}:")
    # the same moves typed into the CLI give the same record
    cli_record = tmp_path / "cli.json"
    res = CliRunner().invoke(cli_app, ["puzzle", "--seed", str(seed), "--planner-time", "0", "--save", str(cli_record)],
                             input="".join(f"{m}\n" for m in moves))
    assert res.exit_code == 0, res.output
    game_id = page.url.split("game=")[1]
    web_record = json.loads(page.request.get(f"{server.url}/api/games/{game_id}/record").text())
    assert web_record == GameRecord.load(cli_record).to_json()
    assert GameRecord.from_json(web_record).verify().scores() == [score]
    # the planner's best arrives in the background, with the best plan beside the player's sheet
    page.wait_for_selector("#compare:not(.hidden)", timeout=60_000)
    page.wait_for_selector("#cmp-best svg")
    status = page.locator("#planner-status").inner_text()
    assert "You scored" in status and str(score) in status
    page.click("#cmp-prev")
    page.wait_for_function('document.getElementById("cmp-label").textContent.startsWith("after roll 29")')
    page.wait_for_function(f'document.querySelectorAll("#cmp-mine rect.cell.plan-now").length === {len(moves[28].cells)}')
    shot(page, "puzzle-end-phone")
    page.set_viewport_size({"width": 1280, "height": 860})
    shot(page, "puzzle-end-laptop")
    svg = page.request.get(f"{server.url}/api/games/{game_id}/svg?download=true")
    assert svg.ok and "seed 11" in svg.text() and "attachment" in svg.headers["content-disposition"]
    assert page.js_errors == []


def test_illegal_tap_is_refused_with_the_engines_reason(server, browser):
    page = new_page(browser, "laptop")
    page.goto(f"{server.url}/puzzle/42")
    page.wait_for_selector("#my-sheet rect.cell")
    roll = seeded_roll(42, 0, 2)
    page.locator(".die.colour:not([disabled])").first.click()
    page.locator(".die.number:not([disabled])").first.click()
    page.wait_for_selector("#sheets.choosing")  # the pick's answer first: a tap aimed before its message line moved the sheet could miss
    colour = roll.colours[0]
    # a cell of the picked colour far from column H is never anchored on an empty sheet
    board = load_board("classic")
    target = colour if colour != "x" else "y"
    cell = next(board.cell_name(b) for b in range(board.n_cells)
                if board.colour_of_bit(b) == target and board.cell_name(b)[0] in "AB")
    page.locator(f'#my-sheet rect.cell[data-cell="{cell}"]').click(force=True)
    page.wait_for_function('document.getElementById("message").textContent.includes("anchored")')
    assert "not anchored" in page.locator("#message").inner_text()
    assert page.locator(f'#my-sheet rect.cell[data-cell="{cell}"]').get_attribute("class").count("refused") == 1
    assert page.locator("#my-sheet rect.cell.picked").count() == 0
    shot(page, "puzzle-refused-laptop")
    # a legal move, then Undo: back at roll 1 with an empty sheet
    game = Game(board, 1, mode="solo")
    game.apply_roll(roll)
    pick_and_cross(page, next(m for m in game.legal_moves() if not m.is_pass))
    wait_roll(page, "roll 2 of 30")
    assert page.locator('#my-sheet rect.cell[data-crossed="1"]').count() > 0
    page.click("#undo")
    wait_roll(page, "roll 1 of 30")
    assert page.locator('#my-sheet rect.cell[data-crossed="1"]').count() == 0
    # the open-information switch shows every roll of the seed; it re-renders the roll, and the
    # message about the pick it dropped goes with it
    page.locator(".die.colour:not([disabled])").first.click()
    page.locator(".die.number:not([disabled])").first.click()
    page.wait_for_function('document.getElementById("message").textContent !== ""')
    page.check("#open-switch")
    page.wait_for_selector("#all-rolls:not(.hidden) span")
    assert page.text_content("#message") == ""
    assert page.locator(".die.picked").count() == 0
    shown = page.locator("#all-rolls span").all_inner_texts()
    assert shown == [f"{k + 1}: {seeded_roll(42, k, 2).text()}" for k in range(30)]
    shot(page, "puzzle-open-laptop")


def test_two_seat_game_against_a_bot_runs_to_its_end(server, browser):
    page = new_page(browser, "phone")
    page.goto(server.url + "/play")
    page.wait_for_selector("#seats .seat")
    page.locator("#seats .seat-name").first.fill("Anna")
    page.fill("#seed", "7")
    page.click("#start")
    page.wait_for_url("**/play/*")
    page.wait_for_selector("#my-sheet rect.cell")
    shot(page, "play-competitive-phone")
    for turn in range(200):
        if page.locator("#end:not(.hidden)").count():
            break
        info = page.locator("#roll-info").inner_text()
        if turn == 5:
            page.reload()
            page.wait_for_selector("#roll-info:not(:text('loading'))")
            assert page.locator("#roll-info").inner_text() == info  # the game survived the reload
        page.click("#pass")
        page.wait_for_function(f'document.getElementById("roll-info").textContent !== {json.dumps(info)}')
    else:
        pytest.fail("the game did not end")
    text = page.locator("#final-score").inner_text()
    assert "winner" in text and "greedy" in text
    assert page.locator("#log li").count() > 0 and "greedy (seat 2)" in page.locator("#log").inner_text()
    shot(page, "play-end-phone")
    assert page.js_errors == []


def test_coop_mission_with_a_bot_teammate_shows_objectives_and_hints(server, browser):
    page = new_page(browser, "laptop")
    page.goto(server.url + "/play")
    page.wait_for_selector("#seats .seat")
    page.select_option("#mission", "star-hunt")
    page.select_option("#difficulty", "easy")
    page.fill("#seed", "3")
    page.click("#start")
    page.wait_for_url("**/play/*")
    page.wait_for_selector("#mission:not(.hidden)")
    assert "rolls left" in page.locator("#mission").inner_text()
    page.click("#hint")
    page.wait_for_selector("#hints li", timeout=60_000)
    assert 1 <= page.locator("#hints li").count() <= 3
    shot(page, "play-coop-laptop")
    page.set_viewport_size({"width": 360, "height": 760})
    shot(page, "play-coop-phone")
    assert page.js_errors == []


def test_record_upload_and_stepping_with_the_arrow_keys(server, browser, tmp_path):
    # a short solo game (rule option solo_rolls=8) keeps the analysis job short
    record = play_solo(load_board("classic"), make_agent("greedy"), seed=5, rules=RuleSettings(solo_rolls=8))
    path = tmp_path / "game.json"
    record.save(path)
    states = [record.new_game()] + [g.clone() for _, g in record.replay()]
    page = new_page(browser, "laptop")
    page.goto(server.url + "/replay")
    page.set_input_files("#file", str(path))
    page.click("#upload button[type=submit]")
    page.wait_for_selector("#viewer:not(.hidden)")
    page.wait_for_function('document.getElementById("turn-label").textContent === "turn 8 of 8"')
    assert "/replay/" in page.url
    page.keyboard.press("Home")
    page.wait_for_function('document.getElementById("turn-label").textContent === "turn 0 of 8"')
    for t in range(1, 4):
        page.keyboard.press("ArrowRight")
        page.wait_for_function(f'document.getElementById("turn-label").textContent === "turn {t} of 8"')
        played = seat_name(record.players, 0) + ": " + str(record.rolls[t - 1][1][0][1])
        page.wait_for_function(f'document.querySelector("#turn-moves li") && '
                               f'document.querySelector("#turn-moves li").textContent === {json.dumps(played)}')
        crossed = page.locator('#sheets rect.cell[data-crossed="1"]').count()
        assert crossed == states[t].sheets[0].crossed.bit_count()
    page.keyboard.press("ArrowLeft")
    page.wait_for_function('document.getElementById("turn-label").textContent === "turn 2 of 8"')
    shot(page, "replay-step-laptop")
    # the analysis of a solo record runs in the background and marks each roll's moves
    page.select_option("#analyse-time", "2")
    page.click("#analyse")
    page.wait_for_selector("#losses:not(.hidden)", timeout=90_000)
    assert page.locator("#losses tbody tr").count() == 8
    # an unproven figure is "best found", with what was proven and the time per roll beside it
    status = page.text_content("#analysis-status")
    assert re.match(r"actual -?\d+ · (best possible -?\d+ \(proven\)|best found -?\d+(, at most -?\d+ possible \(not "
                    r"proven| \(no bound proven) in 2 s per roll\))\. ", status), status
    lost = [page.text_content(f"#losses tbody tr:nth-child({i + 1}) td:last-child") for i in range(8)]
    ranges = sum("–" in x for x in lost)
    assert page.text_content("#best-head") == ("best found" if ranges else "best")
    assert page.text_content("#losses-note") == (f"{ranges} of 8 rolls not proven in 2 s per roll: their loss lies in "
                                                 "the range shown (more seconds per roll narrow it)." if ranges else "")
    page.locator("#losses tbody tr").nth(2).click()
    page.wait_for_function('document.getElementById("turn-label").textContent === "turn 3 of 8"')
    page.wait_for_function('document.getElementById("turn-note").textContent.startsWith("roll 3: played")')
    # the best move's cells (those not played) carry their own mark, distinct from the legal outline
    best = page.text_content("#losses tbody tr:nth-child(3) td:nth-child(4)")
    best_cells = set() if best == "pass" else set(best.split()[1:])
    marked = page.locator("#sheets rect.cell.best")
    assert {marked.nth(i).get_attribute("data-cell") for i in range(marked.count())} == best_cells - set(record.rolls[2][1][0][1].cells)
    assert page.locator("#sheets rect.cell.legal").count() == 0
    shot(page, "replay-analysis-laptop")
    page.set_viewport_size({"width": 360, "height": 760})
    shot(page, "replay-analysis-phone")
    assert page.js_errors == []


def test_an_unproven_analysis_says_best_found(server, browser, tmp_path):
    """Whether 2 s per roll proves a game depends on the machine: here the job's answer is
    rewritten in flight (Playwright's route) into an unproven one, so the wording is tested
    every time: "best found", the bound, the time per roll, and the rows' ranges explained."""
    record = play_solo(load_board("classic"), make_agent("greedy"), seed=6, rules=RuleSettings(solo_rolls=4))
    path = tmp_path / "game.json"
    record.save(path)
    page = new_page(browser, "laptop")

    def unproven(route):
        resp = route.fetch()
        job = resp.json()
        if job.get("result"):
            res = job["result"]
            res.update(optimum_proven=False, optimum_bound=res["optimum"] + 9)
            for loss in res["losses"][1:]:
                loss.update(proven=False, loss_low=loss["loss"], loss_high=loss["loss"] + 3)
        route.fulfill(response=resp, json=job)

    page.route("**/api/jobs/*", unproven)
    page.goto(server.url + "/replay")
    page.set_input_files("#file", str(path))
    page.click("#upload button[type=submit]")
    page.wait_for_selector("#viewer:not(.hidden)")
    page.select_option("#analyse-time", "2")
    page.click("#analyse")
    page.wait_for_selector("#losses:not(.hidden)", timeout=90_000)
    status = page.text_content("#analysis-status")
    m = re.fullmatch(r"actual (-?\d+) · best found (-?\d+), at most (-?\d+) possible \(not proven in 2 s per roll\)\. "
                     r"Click a row to see that roll\.", status)
    assert m and int(m.group(3)) == int(m.group(2)) + 9 and int(m.group(1)) == record.verify().scores()[0], status
    assert page.text_content("#best-head") == "best found"
    assert page.text_content("#losses-note") == ("3 of 4 rolls not proven in 2 s per roll: their loss lies in the range "
                                                 "shown (more seconds per roll narrow it).")
    page.locator("#losses tbody tr").nth(1).click()
    page.wait_for_function('document.getElementById("turn-note").textContent.startsWith("roll 2: played")')
    assert " · best found " in page.text_content("#turn-note")
    shot(page, "replay-analysis-unproven-laptop")
    assert page.js_errors == []


def test_one_seat_of_a_competitive_record_analysed_and_marked_on_its_sheet(server, browser, tmp_path):
    """Seat 2 of a 2-seat record: the rows are its rolls, the note names it with the dice open
    to it, and the played/best marks go on its sheet only (the second drawn)."""
    from nochmal.play import play_game
    from nochmal.game import Mode

    game = play_game(Game(load_board("classic"), 2, mode=Mode.COMPETITIVE, roll_limit=4),
                     [make_agent("greedy"), make_agent("random", 1)], 5)
    record = GameRecord.from_game(game, ["greedy", "random"], 5)
    path = tmp_path / "race.json"
    record.save(path)
    page = new_page(browser, "laptop")
    page.goto(server.url + "/replay")
    page.set_input_files("#file", str(path))
    page.click("#upload button[type=submit]")
    page.wait_for_selector("#seat-pick:not(.hidden)")
    page.select_option("#analyse-seat", "2")
    page.select_option("#analyse-time", "2")
    page.click("#analyse")
    page.wait_for_selector("#losses:not(.hidden)", timeout=90_000)
    assert page.locator("#losses tbody tr").count() == len(record.rolls)
    name = seat_name(record.players, 1)  # as the turn JSON names the seat
    assert page.text_content("#analysis-status").startswith(f"{name}: actual {game.scores()[1]}")
    # the row of a roll whose recorded move crossed cells: its cells are marked on seat 2's sheet
    roll = next(t for t, (_, moves) in enumerate(record.rolls, 1) if not dict(moves)[1].is_pass)
    page.locator("#losses tbody tr").nth(roll - 1).click()
    page.wait_for_function(f'document.getElementById("turn-note").textContent.startsWith({json.dumps(f"roll {roll}: {name}, played")})')
    assert f"dice open to {name}: " in page.text_content("#turn-note")
    played = dict(record.rolls[roll - 1][1])[1]
    marked = page.locator("#sheets > :nth-child(2) rect.cell.picked")
    assert sorted(marked.nth(i).get_attribute("data-cell") for i in range(marked.count())) == sorted(played.cells)
    assert page.locator("#sheets > :nth-child(1) rect.cell.picked").count() == 0
    shot(page, "replay-seat-analysis-laptop")
    page.set_viewport_size({"width": 360, "height": 760})
    shot(page, "replay-seat-analysis-phone")
    assert page.js_errors == []
