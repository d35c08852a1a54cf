"""Helpers of the online rooms' tests (docs/rooms.md, online games): make a room, sit down,
and choose as a test player: the move that crosses the most cells with the dice the server
offers, found on the test's side from the sheet the room shows (the engine's placements)."""

from __future__ import annotations

from nochmal.board import load_board
from nochmal.dice import Roll
from nochmal.move import PASS
from nochmal.rules import DEFAULT_RULES
from nochmal.sheet import Sheet

API = "/api/rooms/online"


def auth(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def new_online(client, **setup) -> dict:
    res = client.post(API, json=setup or {"mode": "competitive", "seats": ["human", "human", "human"]})
    assert res.status_code == 201, res.text
    return res.json()


def sit_all(client, code: str, names) -> list[str]:
    """Every name sits down, in seat order; their seat tokens."""
    tokens = []
    for name in names:
        res = client.post(f"{API}/{code}/seats", json={"name": name})
        assert res.status_code == 201, res.text
        tokens.append(res.json()["seat_token"])
    return tokens


def room(client, code: str, token: str | None = None) -> dict:
    res = client.get(f"{API}/{code}", headers=auth(token) if token else {})
    assert res.status_code == 200, res.text
    return res.json()


def biggest_move(doc: dict, seat: int) -> str:
    """The move crossing the most cells with the seat's offered dice (pass when none fits)."""
    board = load_board(doc["board"])
    mine = doc["seats"][seat]
    sheet = Sheet(board, board.mask_of(mine["cells"]), mine["jokers_used"])
    dice = Roll.from_json(doc["you"]["offer"]["dice"])
    best, size = PASS, 0
    for pick in sorted(dice.choices(sheet.jokers_left), key=lambda c: (-c.count, c.cost)):
        for mask in sheet.placements(pick.colour, pick.count, DEFAULT_RULES.bridging):
            if pick.count > size:
                best, size = pick.placed(mask).move(board), pick.count
            break
    return str(best)


def choose(client, code: str, seat: int, token: str, move: str | None = None) -> dict:
    """Seat chooses (its biggest move unless ``move`` is given); the answer."""
    doc = room(client, code, token)
    text = move if move is not None else biggest_move(doc, seat)
    res = client.post(f"{API}/{code}/seats/{seat}/move", json={"roll": doc["roll"], "move": text},
                      headers=auth(token))
    assert res.status_code == 200, res.text
    return res.json()


def offered(client, code: str, tokens: dict[int, str]) -> list[int]:
    return [seat for seat, token in tokens.items() if room(client, code, token)["you"]["offer"]["state"] == "choosing"]


def play_out(client, code: str, tokens: dict[int, str], online=None, rolls: int = 120) -> dict:
    """Every seat in ``tokens`` chooses whenever offered until the game ends (the server's
    seats, bots, are waited for: the service's change signal, ``online`` or the client's app's);
    the last room."""
    online = online or client.app.state.online
    table = online.table(code)
    for _ in range(rolls * len(tokens)):
        if table.game.is_terminal():
            return room(client, code)
        seats = offered(client, code, tokens)
        if not seats:
            assert online.wait_for(lambda: table.game.is_terminal() or any(
                table.state_of(k) == "choosing" for k in tokens), 120), "no seat was offered its dice"
            continue
        for seat in seats:
            choose(client, code, seat, tokens[seat])
    raise AssertionError("the game did not end")


# --- phones (Playwright pages; tests/rooms_support.py makes them) --------------------------------
def sit_on_page(page, url: str, name: str) -> None:
    """Open the online room's link, take the seat the page offers first, named ``name``."""
    page.goto(url)
    page.wait_for_selector("#live.on")
    page.fill("#seat-name", name)
    page.click("#seat-form button[type=submit]")
    page.wait_for_selector("#my-sheet svg rect[data-cell]")


def seat_of_page(page, code: str) -> tuple[int, str]:
    """The (seat, token) the phone keeps for online room ``code``."""
    import json

    held = json.loads(page.evaluate(f"() => localStorage.getItem('nochmal-online-{code}')"))
    return held["seat"], held["token"]


def wait_state(page, state: str) -> None:
    """Until the phone's own sheet says ``state`` (choosing, waiting, chosen, over)."""
    page.wait_for_selector(f'#my-sheet[data-state="{state}"]')


def pick_dice(page, move: str) -> None:
    """The phone picks the move's dice (a joker's as the joker); its legal cells are outlined."""
    from nochmal.move import Move

    m = Move.parse(move)
    page.click(f'#dice .die.colour[data-face="{m.colour_face}"]:not(.unusable)')
    page.click(f'#dice .die.number[data-face="{m.number_face}"]:not(.unusable)')
    page.wait_for_selector("#sheets.choosing")


def choose_on_page(page, move: str, picked: bool = False) -> None:
    """The phone picks the move's dice (unless ``picked``) and taps its cells, each answered
    before the next, then Cross; or Pass."""
    from nochmal.move import Move

    if move == "pass":
        page.click("#pass")
        return
    if not picked:
        pick_dice(page, move)
    for cell in Move.parse(move).cells:
        page.click(f'#my-sheet rect[data-cell="{cell}"]')
        page.wait_for_selector(f'#my-sheet rect[data-cell="{cell}"].picked')
    page.wait_for_selector("#cross:not([disabled])")
    page.click("#cross")


def job_done(client, job_id: str, hang_guard: float = 600.0) -> dict:
    """Poll the app's job as the end page does until it is done (``hang_guard``: a hang, not a pace)."""
    import time

    end = time.monotonic() + hang_guard
    job = client.get(f"/api/jobs/{job_id}").json()
    while not job["done"] and time.monotonic() < end:
        time.sleep(0.3)
        job = client.get(f"/api/jobs/{job_id}").json()
    return job
