"""Reading mission TOML files: every mistake named with the file, the key and the reason.

Players owning the Deluxe box should be able to transcribe a printed mission in minutes, so
the loader accepts friendly forms (column letters, colour letters or names, ``"all"``) and
refuses everything it cannot evaluate: unknown keys or kinds, wrong types, cells or columns
off the board, targets no game can reach, missing budgets. All problems of a file are
reported at once.
"""

from __future__ import annotations

import re
from importlib import resources
from functools import lru_cache
from pathlib import Path
from typing import Callable

from nochmal.board import BUILTIN_BOARDS, COLOUR_NAMES, COLOURS, COLUMN_LETTERS, Board, load_board
from nochmal.errors import NochmalError, quoted
from nochmal.fileio import load_toml_text, read_text_file
from nochmal.i18n import LANGUAGES
from nochmal.rules import MAX_GAME_ROLLS
from nochmal.sheet import max_score
from nochmal.missions.model import (DIFFICULTIES, KINDS, PLAYER_COUNTS, SCOPES, SOURCES, Mission, MissionError,
                                    Objective, rolls_lower_bound)

_TOP_KEYS = {"id": str, "name": str, "source": str, "description": str, "objectives": list, "budgets": dict}
_OPTIONAL_TOP = {"board": str, "names": dict, "descriptions": dict}
_KIND_KEYS = {
    "columns": {"columns"},
    "colours": {"colours", "count"},
    "stars": {"count"},
    "cells": {"cells"},
    "score": {"at_least"},
    "jokers_left": {"at_least"},
}
# caps that keep every figure computed from a mission file bounded (docs/missions.md: 1-4 players,
# a budget of rolls; the calibrated budgets are below 130)
MAX_BUDGET = MAX_GAME_ROLLS  # a roll budget: at most the rolls a record can hold
MAX_OBJECTIVES = 50
MAX_TEXT = 200
_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_COLOUR_BY_NAME = {name: letter for letter, name in COLOUR_NAMES.items()}
_COLOUR_BY_NAME["pink"] = "r"


def _tname(value) -> str:
    return {bool: "boolean", int: "integer", str: "string", list: "list", dict: "table", float: "number"}.get(
        type(value), type(value).__name__)


def _key_text(key: str) -> str:
    """A TOML key inside a dotted key path: escaped (no newline can break the line), cut."""
    return quoted(key)[1:-1] if len(repr(key)) <= 40 else quoted(key)[1:]


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_mission_text(text: str, source: str) -> Mission:
    """Build a Mission from TOML text; MissionError lists every problem."""
    data = load_toml_text(text, lambda reason: MissionError(source, [reason]))
    return mission_from_dict(data, source)


def mission_from_dict(data: dict, source: str) -> Mission:
    """A Mission from parsed TOML; MissionError lists every problem of the file at once.

    Each key is checked on its own, so an unknown top-level key or a bad scope never hides
    the problems further down.
    """
    problems: list[str] = []
    ok: dict[str, bool] = {}
    for key, typ in {**_TOP_KEYS, **_OPTIONAL_TOP}.items():
        if key not in data:
            if key in _TOP_KEYS:
                problems.append(f"key {key!r} is missing")
            ok[key] = False
        elif not isinstance(data[key], typ):
            problems.append(f"key {key!r} must be a {_tname(typ())}, got {_tname(data[key])} {quoted(data[key])}")
            ok[key] = False
        else:
            ok[key] = True
    for key in sorted(set(data) - set(_TOP_KEYS) - set(_OPTIONAL_TOP)):
        problems.append(f"unknown key {quoted(key)} (known: {', '.join(list(_TOP_KEYS) + list(_OPTIONAL_TOP))})")
    if ok["id"] and not _ID.match(data["id"]) or ok["id"] and len(data["id"]) > MAX_TEXT:
        problems.append(f"key 'id': {quoted(data['id'])} must be lower-case letters, digits and dashes")
    for key in ("name", "description"):
        if ok[key] and len(data[key]) > (MAX_TEXT if key == "name" else 100 * MAX_TEXT):
            problems.append(f"key {key!r} is too long ({len(data[key])} characters)")
    if ok["source"] and data["source"] not in SOURCES:
        problems.append(f"key 'source': {quoted(data['source'])} is not one of {', '.join(SOURCES)}")
    board_name = data["board"] if ok["board"] else "classic"
    board = _mission_board(board_name, source, problems) if "board" not in data or ok["board"] else None
    objectives = []
    if ok["objectives"]:
        if not data["objectives"]:
            problems.append("key 'objectives': a mission needs at least one objective")
        if len(data["objectives"]) > MAX_OBJECTIVES:
            problems.append(f"key 'objectives': at most {MAX_OBJECTIVES} objectives, got {len(data['objectives'])}")
        for i, raw in enumerate(data["objectives"][:MAX_OBJECTIVES], 1):
            obj = _objective(raw, f"objectives[{i}]", board, problems)
            if obj is not None:
                objectives.append(obj)
    budgets = _budgets(data["budgets"], problems) if ok["budgets"] else ()
    names = _translations(data["names"], "names", MAX_TEXT, problems) if ok["names"] else ()
    descriptions = _translations(data["descriptions"], "descriptions", 100 * MAX_TEXT, problems) \
        if ok["descriptions"] else ()
    if not problems and board is not None:
        problems += _budget_shortfalls(objectives, budgets, board)
    if problems:
        raise MissionError(source, problems)
    return Mission(id=data["id"], name=data["name"], source=data["source"], description=data["description"].strip(),
                   objectives=tuple(objectives), budgets=budgets, board=_resolve_board(board_name, source),
                   path=source, names=names, descriptions=descriptions)


def _translations(table: dict, where: str, longest: int, problems: list[str]) -> tuple:
    """``[names]`` / ``[descriptions]``: one text per language of nochmal.i18n.LANGUAGES, all of
    them (a table that leaves a language out would show that language's players English)."""
    found = []
    for key in sorted(table):
        value = table[key]
        if key not in LANGUAGES:
            problems.append(f"key '{where}.{_key_text(key)}': unknown language (use {', '.join(LANGUAGES)})")
        elif not isinstance(value, str) or not value.strip():
            problems.append(f"key '{where}.{key}' must be a non-empty string, got {_tname(value)} {quoted(value)}")
        elif len(value) > longest:
            problems.append(f"key '{where}.{key}' is too long ({len(value)} characters)")
        else:
            found.append((key, value.strip()))
    for lang in LANGUAGES:
        if lang not in table:
            problems.append(f"key '{where}.{lang}' is missing (a translated table gives every language: "
                            f"{', '.join(LANGUAGES)})")
    return tuple(sorted(found))


def _budget_shortfalls(objectives: list[Objective], budgets: tuple, board: Board) -> list[str]:
    """Budgets below the rolls any team needs (rolls_lower_bound): such a mission is never won."""
    problems = []
    for players, row in budgets:
        need = rolls_lower_bound(objectives, board, players)
        for difficulty, rolls in row:
            if rolls < need:
                problems.append(f"key 'budgets.{players}.{difficulty}': {rolls} roll(s) can never be enough, "
                                f"{players} player(s) need at least {need} (each roll crosses at most 5 cells "
                                "in one block on each sheet)")
    return problems


def _resolve_board(name: str, source: str) -> str:
    """A built-in board name as is; a board file relative to the mission file's folder."""
    if name in BUILTIN_BOARDS:
        return name
    path = Path(name)
    if not path.is_absolute() and source and Path(source).parent.exists():
        path = Path(source).parent / path
    return str(path)


def _mission_board(name: str, source: str, problems: list[str]) -> Board | None:
    try:
        return load_board(_resolve_board(name, source))
    except NochmalError as exc:
        problems.append(f"key 'board': {exc}")
        return None


def _per_players(value, where: str, problems: list[str]) -> tuple[tuple[int, int], ...] | None:
    """An integer, or a table with one integer per player count 1-4.

    Returns the well-formed (players, value) pairs even when others are wrong or missing, so
    that the caller can still range-check them (a missing ``at_least.4`` must not hide a
    score above the maximum for 1 player); None only when nothing is usable.
    """
    if _is_int(value):
        return tuple((p, value) for p in PLAYER_COUNTS)
    if not isinstance(value, dict):
        problems.append(f"key {where!r} must be an integer or a table of player counts 1-4, "
                        f"got {_tname(value)} {quoted(value)}")
        return None
    out = []
    _unknown_player_counts(value, where, problems)
    for p in PLAYER_COUNTS:
        v = value.get(str(p))
        if v is None:
            problems.append(f"key '{where}.{p}' is missing (one value per player count 1-4)")
        elif not _is_int(v):
            problems.append(f"key '{where}.{p}' must be an integer, got {_tname(v)} {quoted(v)}")
        else:
            out.append((p, v))
    return tuple(out)


def _objective(raw, where: str, board: Board | None, problems: list[str]) -> Objective | None:
    """One objective; every problem of it is appended (a bad scope or key hides nothing)."""
    if not isinstance(raw, dict):
        problems.append(f"key {where!r} must be a table ([[objectives]]), got {_tname(raw)}")
        return None
    n_before = len(problems)
    kind = raw.get("kind")
    if kind is None:
        problems.append(f"key '{where}.kind' is missing (kinds: {', '.join(KINDS)})")
        return None
    if kind not in KINDS:
        problems.append(f"key '{where}.kind': unknown kind {quoted(kind)} (kinds: {', '.join(KINDS)})")
        return None
    scope = raw.get("scope")
    if scope is None:
        problems.append(f"key '{where}.scope' is missing (scopes: {', '.join(SCOPES)})")
    elif scope not in SCOPES:
        problems.append(f"key '{where}.scope': unknown scope {quoted(scope)} (scopes: {', '.join(SCOPES)})")
        scope = None
    allowed = _KIND_KEYS[kind] | {"kind", "scope"}
    for key in sorted(set(raw) - allowed):
        problems.append(f"key '{where}.{_key_text(key)}': unknown key for kind {kind!r} "
                        f"(allowed: {', '.join(sorted(allowed))})")
    if kind == "colours":
        if "colours" in raw and "count" in raw:
            problems.append(f"key '{where}': give either 'colours' or 'count', not both")
        elif not ("colours" in raw or "count" in raw):
            problems.append(f"key '{where}.colours' is missing (or give 'count')")
    else:
        for key in sorted(_KIND_KEYS[kind] - set(raw)):
            problems.append(f"key '{where}.{key}' is missing")
    fields: dict = {}
    if kind == "columns" and "columns" in raw and board is not None:
        fields["columns"] = _columns(raw["columns"], f"{where}.columns", board, problems)
    elif kind == "colours" and "colours" in raw:
        fields["colours"] = _colours(raw["colours"], f"{where}.colours", problems)
    elif kind == "colours" and "count" in raw:
        fields["count"] = _count(raw["count"], f"{where}.count", len(COLOURS), "colours", problems)
    elif kind == "stars" and "count" in raw and board is not None:
        fields["count"] = _count(raw["count"], f"{where}.count", board.n_stars, "stars", problems)
    elif kind == "cells" and "cells" in raw and board is not None:
        fields["cells"] = _cells(raw["cells"], f"{where}.cells", board, problems)
    elif kind in ("score", "jokers_left") and "at_least" in raw:
        values = _per_players(raw["at_least"], f"{where}.at_least", problems)
        if values is not None and board is not None:
            _check_thresholds(kind, scope, values, f"{where}.at_least", board, problems)
        fields["at_least"] = values
    if len(problems) > n_before or board is None:
        return None
    return Objective(kind=kind, scope=scope, **fields)


def _check_thresholds(kind: str, scope: str | None, values, where: str, board: Board, problems: list[str]) -> None:
    """Targets above the highest or below the lowest reachable value (an unknown scope is
    checked against the loosest, the team's, so that it adds no false problem)."""
    per_sheet = max_score(board) if kind == "score" else board.jokers
    floor = -board.star_penalty * board.n_stars if kind == "score" else 0
    team = scope in ("team", None)
    for p, v in values:
        top = per_sheet * (p if team else 1)
        low = floor * (p if team else 1)
        if v > top:
            what = "score" if kind == "score" else "number of unused jokers"
            problems.append(f"key {where!r}: {quoted(v)} for {p} player(s) is impossible, the highest "
                            f"{what} {'of the team ' if scope == 'team' else ''}is {top}")
        elif v < low:
            problems.append(f"key {where!r}: {quoted(v)} for {p} player(s) is below the lowest possible {low}")


def _columns(value, where: str, board: Board, problems: list[str]) -> tuple[int, ...] | None:
    letters = COLUMN_LETTERS[: board.cols]

    def read(item: str):
        if len(item) != 1 or item.upper() not in letters:
            return f"column {quoted(item)} is not on the {board.name} board (A..{letters[-1]})"
        return COLUMN_LETTERS.index(item.upper()), f"column {item.upper()!r}"

    out = _named_list(value, where, problems, every=range(board.cols), noun="column letters",
                      count=f"columns, the board has {board.cols}", limit=board.cols,
                      expected="a column letter", read=read)
    return None if out is None else tuple(sorted(out))


def _colours(value, where: str, problems: list[str]) -> tuple[str, ...] | None:
    def read(item: str):
        letter = item.lower() if item.lower() in COLOUR_NAMES else _COLOUR_BY_NAME.get(item.lower())
        if letter is None:  # (a letter, not any piece of "ygbro": "yg" or "" is no colour)
            return f"{quoted(item)} is not a colour (y g b r o or yellow green blue red orange)"
        return letter, f"colour {COLOUR_NAMES[letter]}"

    out = _named_list(value, where, problems, every=COLOURS, noun="colours",
                      count=f"colours, there are {len(COLOURS)}", limit=len(COLOURS), expected="a colour", read=read)
    return None if out is None else tuple(c for c in COLOURS if c in out)


def _cells(value, where: str, board: Board, problems: list[str]) -> tuple[str, ...] | None:
    def read(item: str):
        try:
            board.bit(item)
        except KeyError:
            return (f"cell {quoted(item)} is not on the {board.name} board "
                    f"(A1..{COLUMN_LETTERS[board.cols - 1]}{board.rows})")
        return item.upper(), f"cell {item.upper()!r}"

    out = _named_list(value, where, problems, every=None, noun='cells like "A1"',
                      count=f"cells, the board has {board.n_cells}", limit=board.n_cells,
                      expected='a cell name like "H4"', read=read)
    return None if out is None else tuple(out)


def _named_list(value, where: str, problems: list[str], *, every, noun: str, count: str, limit: int, expected: str,
                read: Callable[[str], tuple[object, str] | str]) -> list | None:
    """A key that lists named things (columns, colours, cells): ``every`` what "all" stands for
    (None: no "all"); each item read by ``read`` into (its value, its name when listed twice) or
    the reason it is none. One problem per bad item; None when the list itself is wrong."""
    if every is not None and value == "all":
        return list(every)
    if not isinstance(value, list) or not value:
        all_or = '"all" or ' if every is not None else ""
        problems.append(f"key {where!r} must be {all_or}a non-empty list of {noun}, got {_tname(value)} {quoted(value)}")
        return None
    if len(value) > limit:
        problems.append(f"key {where!r} lists {len(value)} {count}")
        return None
    out = []
    for item in value:
        if not isinstance(item, str):
            problems.append(f"key {where!r}: {quoted(item)} is a {_tname(item)}, expected {expected}")
            continue
        found = read(item)
        if isinstance(found, str):
            problems.append(f"key {where!r}: {found}")
        elif found[0] in out:
            problems.append(f"key {where!r}: {found[1]} is listed twice")
        else:
            out.append(found[0])
    return out


def _count(value, where: str, top: int, what: str, problems: list[str]) -> int | None:
    if value == "all":
        return top
    if not _is_int(value):
        problems.append(f"key {where!r} must be an integer or \"all\", got {_tname(value)} {quoted(value)}")
        return None
    if not 1 <= value <= top:
        problems.append(f"key {where!r}: {quoted(value)} is impossible, the sheet has {top} {what} (use 1..{top})")
        return None
    return value


def _unknown_player_counts(value: dict, where: str, problems: list[str]) -> None:
    """A table keyed by player count names only 1-4."""
    for key in value:
        if key not in {str(p) for p in PLAYER_COUNTS}:
            problems.append(f"key '{where}.{_key_text(key)}': unknown player count (use 1, 2, 3, 4)")


def _budgets(value: dict, problems: list[str]) -> tuple:
    rows = []
    _unknown_player_counts(value, "budgets", problems)
    for p in PLAYER_COUNTS:
        row = value.get(str(p))
        where = f"budgets.{p}"
        if row is None:
            problems.append(f"key {where!r} is missing (a roll budget per player count 1-4)")
            continue
        if not isinstance(row, dict):
            problems.append(f"key {where!r} must be a table of easy/normal/hard, got {_tname(row)} {quoted(row)}")
            continue
        for key in row:
            if key not in DIFFICULTIES:
                problems.append(f"key '{where}.{_key_text(key)}': unknown difficulty (use {', '.join(DIFFICULTIES)})")
        cells = []
        for d in DIFFICULTIES:
            v = row.get(d)
            if v is None:
                problems.append(f"key '{where}.{d}' is missing (roll budget for {p} player(s) on {d})")
            elif not _is_int(v):
                problems.append(f"key '{where}.{d}' must be an integer, got {_tname(v)} {quoted(v)}")
            elif not 1 <= v <= MAX_BUDGET:
                problems.append(f"key '{where}.{d}': a roll budget must be 1..{MAX_BUDGET}, got {quoted(v)}")
            else:
                cells.append((d, v))
        rows.append((p, tuple(cells)))
    return tuple(rows)


def read_mission_file(path: str | Path) -> Mission:
    text = read_text_file(path, lambda reason: MissionError(str(path), [reason]))
    return parse_mission_text(text, str(path))


def builtin_mission_files() -> list[Path]:
    """The mission files shipped in the package, sorted by name."""
    folder = resources.files("nochmal.missions")
    return sorted((Path(str(p)) for p in folder.iterdir() if p.name.endswith(".toml")), key=lambda p: p.name)


@lru_cache(maxsize=1)
def _shipped() -> dict[str, Mission]:
    """The shipped missions by id, read once per process (Mission is immutable)."""
    return {m.id: m for m in (read_mission_file(p) for p in builtin_mission_files())}


def builtin_missions() -> list[Mission]:
    return list(_shipped().values())


def shipped_mission(mission_id: str) -> Mission | None:
    """A shipped mission by id (never a file: for ids that come from a request), or None."""
    return _shipped().get(mission_id)


def load_mission(id_or_path: str) -> Mission:
    """A shipped mission by id, or any mission file by path. An id wins over a file of the
    same name in the current folder (``lockstep`` is the shipped mission)."""
    text = str(id_or_path)
    if text in _shipped():
        return _shipped()[text]
    if text.endswith(".toml") or "/" in text or Path(text).is_file():
        return read_mission_file(text)
    raise MissionError(text, [f"no such mission (shipped: {', '.join(_shipped())}; or give a path to a .toml file)"])
