"""A whole Clever 4ever game state as JSON (format ``clever4ever-state``), read back into a
CleverGame with its history left out, as Noch mal!'s positions are (nochmal/position.py):
what a web page or a saved game in progress needs. Reading checks the format and every
rule a single sheet must keep (rows in order, grey crossed from a start segment on, track
counts); CleverStateError names the key at fault.

Sheet coordinates are 1-based as in docs/clever.md: blue cells [row, column], a grey
segment by its first cell [row, column].
"""

from __future__ import annotations

import json

from nochmal.clever.bonuses import triggered
from nochmal.clever.dice import DICE
from nochmal.clever.errors import CleverStateError
from nochmal.clever.game import MAX_PLAYERS, PICKS, CleverGame
from nochmal.clever.options import CleverRules
from nochmal.clever.sheet import Sheet, blue_bit
from nochmal.clever.sheetdata import ACTIONS, MAX_DIE, QUESTIONS, SheetFacts, clever4ever
from nochmal.fileio import load_json_text
from nochmal.game import TERMINAL

FORMAT = "clever4ever-state"
VERSION = 1
PHASES = ("active", "passive", "extra", "over")
PLACES = ("pool", "field", "tray")


def sheet_json(facts: SheetFacts, sheet: Sheet) -> dict:
    return {
        "yellow": [list(r) for r in sheet.yellow],
        "blue": [[r + 1, c + 1] for r in range(MAX_DIE) for c in range(MAX_DIE) if sheet.blue & blue_bit(r, c)],
        "grey": [[s.cells[0][0] + 1, s.cells[0][1] + 1] for s in facts.segments if sheet.grey >> s.index & 1],
        "green": {"low": list(sheet.green[0]), "up": list(sheet.green[1])},
        "pink": list(sheet.pink),
        "foxes": sheet.foxes,
        "unlocked": dict(zip(ACTIONS, sheet.unlocked)),
        "used": dict(zip(ACTIONS, sheet.used)),
    }


def to_state(game: CleverGame) -> dict:
    return {
        "format": FORMAT, "version": VERSION, "players": game.n_players, "options": game.rules.to_dict(),
        "round": game.round, "active": game.active, "stage": game.stage, "phase": game.phase,
        "actor": None if game.phase == "over" else game.actor, "picks": game.picks, "throws": game.throws,
        "dice": {d: [v, w] for d, (v, w) in game.dice().items()},
        "to_throw": list(game.to_throw), "queue": list(game.queue),
        "extra_used": [d for d in DICE if d in game.extra_used],
        "sheets": [sheet_json(game.facts, s) for s in game.sheets],
        "pending": [list(p) for p in game.pending],
    }


def state_text(game: CleverGame) -> str:
    """The state as one line of JSON."""
    return json.dumps(to_state(game), separators=(",", ":"))


def _int(value, low: int, high: int, key: str) -> int:
    if type(value) is not int or not low <= value <= high:
        raise CleverStateError(f"state: {key} must be a whole number {low}..{high}, got {value!r}")
    return value


def _numbers(values, most: int, key: str) -> tuple[int, ...]:
    if not isinstance(values, list) or len(values) > most:
        raise CleverStateError(f"state: {key} must be a list of at most {most} numbers")
    return tuple(_int(v, 1, MAX_DIE, f"{key}[{i + 1}]") for i, v in enumerate(values))


def _cells(values, key: str) -> list[tuple[int, int]]:
    if not isinstance(values, list) or not all(isinstance(c, list) and len(c) == 2 for c in values):
        raise CleverStateError(f"state: {key} must be a list of [row, column]")
    return [(_int(c[0], 1, 99, f"{key} row"), _int(c[1], 1, 99, f"{key} column")) for c in values]


def read_sheet(facts: SheetFacts, rules: CleverRules, data, key: str) -> Sheet:
    if not isinstance(data, dict) or set(data) != {"yellow", "blue", "grey", "green", "pink", "foxes", "unlocked", "used"}:
        raise CleverStateError(f"state: {key} must have yellow, blue, grey, green, pink, foxes, unlocked, used")
    rows = data["yellow"]
    if not isinstance(rows, list) or len(rows) != facts.yellow_rows:
        raise CleverStateError(f"state: {key}.yellow must be {facts.yellow_rows} rows")
    yellow = tuple(_numbers(r, facts.yellow_columns, f"{key}.yellow[{i + 1}]") for i, r in enumerate(rows))
    if list(yellow[0]) != sorted(set(yellow[0])):
        raise CleverStateError(f"state: {key}.yellow[1] must ascend strictly, got {list(yellow[0])}")
    blue = 0
    for r, c in _cells(data["blue"], f"{key}.blue"):
        _int(r, 1, MAX_DIE, f"{key}.blue row"), _int(c, 1, MAX_DIE, f"{key}.blue column")
        blue |= blue_bit(r - 1, c - 1)
    grey = 0
    firsts = {(s.cells[0][0] + 1, s.cells[0][1] + 1): s.index for s in facts.segments}
    for cell in _cells(data["grey"], f"{key}.grey"):
        if cell not in firsts:
            raise CleverStateError(f"state: {key}.grey: {list(cell)} is not a segment's first cell")
        grey |= 1 << firsts[cell]
    _check_grey(facts, grey, key)
    green = data["green"]
    if not isinstance(green, dict) or set(green) != {"low", "up"}:
        raise CleverStateError(f"state: {key}.green must be {{\"low\": [...], \"up\": [...]}}")
    low = _numbers(green["low"], facts.green_fields, f"{key}.green.low")
    up = _numbers(green["up"], facts.green_fields, f"{key}.green.up")
    if rules.green_upper_needs_lower and len(up) > len(low):
        raise CleverStateError(f"state: {key}.green: more upper halves than lower ones (green_upper_needs_lower)")
    pink = _numbers(data["pink"], facts.pink_fields, f"{key}.pink")
    foxes = _int(data["foxes"], 0, 7, f"{key}.foxes")
    tracks = []
    for name in ("unlocked", "used"):
        counts = data[name]
        if not isinstance(counts, dict) or set(counts) != set(ACTIONS):
            raise CleverStateError(f"state: {key}.{name} must count {', '.join(ACTIONS)}")
        tracks.append(tuple(_int(counts[a], 0, facts.track_slots[a], f"{key}.{name}.{a}") for a in ACTIONS))
    if any(u > n for u, n in zip(tracks[1], tracks[0])):
        raise CleverStateError(f"state: {key}: more actions used than unlocked")
    return Sheet(yellow, blue, grey, (low, up), pink, foxes, tracks[0], tracks[1])


def _check_grey(facts: SheetFacts, grey: int, key: str) -> None:
    """The crossed segments grow from a start segment, each touching an earlier one."""
    crossed = {s.index for s in facts.segments if grey >> s.index & 1}
    reached = set()
    todo = [s for s in crossed if s in facts.start_segments]
    while todo:
        s = todo.pop()
        if s not in reached:
            reached.add(s)
            todo.extend(n for n in facts.neighbours[s] if n in crossed)
    if reached != crossed:
        raise CleverStateError(f"state: {key}.grey: the crossed segments do not grow from a start segment")


def _check_tracks(facts: SheetFacts, sheet: Sheet, rounds_started: int, key: str) -> None:
    """Foxes and unlocked slots are what the sheet's entries and the rounds have given."""
    got = triggered(facts, sheet, rounds_started)
    if sheet.foxes != got.count("fox"):
        raise CleverStateError(f"state: {key}.foxes: the sheet has earned {got.count('fox')}, not {sheet.foxes}")
    for i, action in enumerate(ACTIONS):
        want = min(got.count(action), facts.track_slots[action])
        if sheet.unlocked[i] != want:
            raise CleverStateError(f"state: {key}.unlocked.{action}: the sheet has earned {want}, "
                                   f"not {sheet.unlocked[i]}")


def from_state(data, facts: SheetFacts | None = None) -> CleverGame:
    """The game in state ``data`` (to_state's form), without history (pop has nothing)."""
    facts = facts or clever4ever()
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != VERSION:
        raise CleverStateError(f"state: expected format {FORMAT!r} version {VERSION}")
    try:
        rules = CleverRules.from_dict(data.get("options"))
    except Exception as exc:
        raise CleverStateError(f"state: {exc}") from None
    n = _int(data.get("players"), 1, MAX_PLAYERS, "players")
    game = CleverGame(n, rules, facts)
    game.round = _int(data.get("round"), 1, rules.rounds(n), "round")
    game.active = _int(data.get("active"), 0, n - 1, "active")
    if data.get("stage") not in ("active", "passive") or data.get("phase") not in PHASES:
        raise CleverStateError(f"state: stage is active or passive, phase one of {', '.join(PHASES)}")
    game.stage, game.phase = data["stage"], data["phase"]
    game.actor = TERMINAL if game.phase == "over" else _int(data.get("actor"), 0, n - 1, "actor")
    game.picks = _int(data.get("picks"), 0, PICKS, "picks")
    game.throws = _int(data.get("throws"), 0, 10_000, "throws")
    dice = data.get("dice")
    if not isinstance(dice, dict) or set(dice) != set(DICE):
        raise CleverStateError(f"state: dice must give each of {', '.join(DICE)} as [number, place]")
    for d in DICE:
        if not (isinstance(dice[d], list) and len(dice[d]) == 2 and dice[d][1] in PLACES):
            raise CleverStateError(f"state: dice.{d} must be [number 0-6, one of {', '.join(PLACES)}]")
        _int(dice[d][0], 0, MAX_DIE, f"dice.{d}")
    game.values = tuple(dice[d][0] for d in DICE)
    game.where = tuple(dice[d][1] for d in DICE)
    for name in ("to_throw", "extra_used"):
        got = data.get(name)
        if not isinstance(got, list) or not all(d in DICE for d in got) or len(set(got)) != len(got):
            raise CleverStateError(f"state: {name} must be a list of distinct dice")
    if any(game.where[DICE.index(d)] != "pool" for d in data["to_throw"]):
        raise CleverStateError("state: to_throw names a die that is not in play")
    if any(v == 0 for d, v in zip(DICE, game.values) if d not in data["to_throw"]) and game.phase != "over":
        raise CleverStateError("state: a die shows no number but is not to be thrown")
    game.to_throw = tuple(d for d in DICE if d in data["to_throw"])
    game.extra_used = frozenset(data["extra_used"])
    queue = data.get("queue")
    if not isinstance(queue, list):
        raise CleverStateError("state: queue must be a list of seats")
    game.queue = tuple(_int(q, 0, n - 1, "queue") for q in queue)
    sheets, pending = data.get("sheets"), data.get("pending")
    if not (isinstance(sheets, list) and len(sheets) == n and isinstance(pending, list) and len(pending) == n):
        raise CleverStateError(f"state: sheets and pending must have one entry per seat ({n})")
    game.sheets = [read_sheet(facts, rules, s, f"sheets[{i + 1}]") for i, s in enumerate(sheets)]
    for i, sheet in enumerate(game.sheets):
        _check_tracks(facts, sheet, game.round, f"sheets[{i + 1}]")
    for i, p in enumerate(pending):
        if not isinstance(p, list) or not all(k in QUESTIONS for k in p):
            raise CleverStateError(f"state: pending[{i + 1}] must list \"?\" bonuses ({', '.join(QUESTIONS)})")
    game.pending = [tuple(p) for p in pending]
    return game


def read_state_text(text: str, facts: SheetFacts | None = None) -> CleverGame:
    return from_state(load_json_text(text, lambda why: CleverStateError(f"state: not JSON: {why}")), facts)
