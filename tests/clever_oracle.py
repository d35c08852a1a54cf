"""Independent oracles for Clever 4ever, written from the data file's raw TOML (not from
the engine's loader): the segments by union-find, each area's score, the places a number
may go, and the bonuses a sheet has triggered. Plus a seeded random player that records
every state it passes through, for the property tests."""

from __future__ import annotations

import random
import tomllib

from nochmal.clever.game import CleverGame
from nochmal.clever.sheetdata import DATA_FILE

RAW = tomllib.loads(DATA_FILE.read_text(encoding="utf-8"))
SHADES = RAW["grey"]["shades"]
ROWS, COLS = len(SHADES), len(SHADES[0])


def segments_by_union_find() -> list[frozenset[tuple[int, int]]]:
    parent = {(r, c): (r, c) for r in range(ROWS) for c in range(COLS)}

    def root(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for r in range(ROWS):
        for c in range(COLS):
            for nr, nc in ((r + 1, c), (r, c + 1)):
                if nr < ROWS and nc < COLS and SHADES[nr][nc] == SHADES[r][c]:
                    parent[root((nr, nc))] = root((r, c))
    groups: dict = {}
    for cell in parent:
        groups.setdefault(root(cell), set()).add(cell)
    return [frozenset(g) for g in groups.values()]


SEGMENTS = segments_by_union_find()
START_CELLS = {(r - 1, c - 1) for r, c in RAW["grey"]["start_cells"]}


class Plain:
    """A sheet as plain data: yellow rows, blue cells (row, column), grey crossed cells,
    green lower and upper halves, pink numbers, foxes."""

    def __init__(self, engine_sheet, facts):
        self.yellow = [list(r) for r in engine_sheet.yellow]
        self.blue = {(r, c) for r in range(6) for c in range(6) if engine_sheet.blue >> (r * 6 + c) & 1}
        self.grey = engine_sheet.grey_cells(facts)
        self.low, self.up = (list(h) for h in engine_sheet.green)
        self.pink = list(engine_sheet.pink)
        self.foxes = engine_sheet.foxes


def area_scores(s: Plain) -> dict[str, int]:
    y = RAW["yellow"]["column_points"]
    yellow = sum(s.yellow[2]) - sum(s.yellow[1]) + sum(y[c] for c in range(len(y)) if all(len(r) > c for r in s.yellow))
    b = RAW["blue"]["column_points"]
    blue = sum(b[c] for c in range(6) if len([1 for r in range(6) if (r, c) in s.blue]) > 1)
    if len([1 for r in range(6) if (r, 5 - r) in s.blue]) > 1:
        blue += RAW["blue"]["anti_diagonal_points"]
    g = RAW["grey"]["column_points"]
    grey = sum(g[c] for c in range(COLS) if {(r, c) for r in range(ROWS)} <= s.grey)
    start = RAW["green"]["double_from"]
    green = 0
    for i in range(min(len(s.low), len(s.up))):
        green += (s.low[i] + s.up[i]) * (2 if i + 1 >= start else 1)
    circles = {int(k): v for k, v in RAW["pink"]["circle_points"].items()}
    pink = (RAW["pink"]["points"][len(s.pink) - 1] if s.pink else 0) + sum(circles.get(v, 0) for v in s.pink)
    return {"yellow": yellow, "blue": blue, "grey": grey, "green": green, "pink": pink}


def total(s: Plain) -> int:
    a = area_scores(s)
    return sum(a.values()) + s.foxes * min(a.values())


def places(s: Plain, area: str, value: int, upper_needs_lower: bool = False) -> set:
    """(area, spot) pairs as the engine's Place(area, spot), grey spots as frozensets of cells."""
    if area == "yellow":
        return {("yellow", r) for r in range(3)
                if len(s.yellow[r]) < 5 and not (r == 0 and s.yellow[0] and s.yellow[0][-1] >= value)}
    if area == "green":
        out = set()
        if len(s.low) < 11:
            out.add(("green", 0))
        if len(s.up) < 11 and (not upper_needs_lower or len(s.up) < len(s.low)):
            out.add(("green", 1))
        return out
    if area == "pink":
        return {("pink", 0)} if len(s.pink) < 12 else set()
    if area == "grey":
        out = set()
        for seg in SEGMENTS:
            if seg & s.grey or len(seg) > value:
                continue
            if not s.grey:
                ok = bool(seg & START_CELLS)
            else:
                ok = any((r + dr, c + dc) in s.grey for r, c in seg for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)))
            if ok:
                out.add(("grey", seg))
        return out
    raise ValueError(area)


def triggered(s: Plain, rounds_started: int) -> list[str]:
    """Every bonus the sheet's entries (and the round bonuses so far) have triggered."""
    out = [b for r in range(3) for c, b in enumerate(RAW["yellow"]["bonuses"][r]) if c < len(s.yellow[r]) and b]
    for r in range(6):
        if len([1 for c in range(6) if (r, c) in s.blue]) >= 2 and RAW["blue"]["row_bonuses"][r]:
            out.append(RAW["blue"]["row_bonuses"][r])
    if len([1 for i in range(6) if (i, i) in s.blue]) >= 2:
        out.append(RAW["blue"]["diagonal_bonus"])
    for entry in RAW["grey"]["cell_bonuses"]:
        if (entry["cell"][0] - 1, entry["cell"][1] - 1) in s.grey:
            out.append(entry["bonus"])
    for shade in "WLD":
        if all((r, c) in s.grey for r in range(ROWS) for c in range(COLS) if SHADES[r][c] == shade):
            out.append("fox")
    out += [RAW["green"]["bonuses"][i] for i in range(len(s.low)) if RAW["green"]["bonuses"][i]]
    out += [RAW["pink"]["bonuses"][i] for i, v in enumerate(s.pink) if v in (5, 6) and RAW["pink"]["bonuses"][i]]
    out += [b for b in RAW["rounds"]["bonuses"][:rounds_started] if b]
    return out


def random_game(players: int, seed: int, policy_seed: int, visit=None, enter_bias: float = 0.0) -> CleverGame:
    """Play a seeded game with random legal actions; ``visit(game)`` sees every state.
    ``enter_bias`` is the chance of picking among entering actions only (fuller sheets)."""
    rng = random.Random(policy_seed)
    game = CleverGame(players)
    while True:
        if visit:
            visit(game)
        if game.is_terminal():
            return game
        if game.is_chance_node():
            game.apply_roll(game.seeded_throw(seed))
            continue
        moves = game.legal_moves()
        entering = [m for m in moves if m.place is not None]
        game.apply_move(rng.choice(entering if entering and rng.random() < enter_bias else moves))
