"""A Clever 4ever sheet drawn as text for the terminal (docs/clever.md "The sheet"): the
five areas laid out as on the pad, with the numbers entered, the crosses, the tracks and
the points per area. Plain characters, so it reads the same in a pipe."""

from __future__ import annotations

from nochmal.clever.game import CleverGame
from nochmal.clever.scoring import area_points, score
from nochmal.clever.sheet import Sheet, blue_bit
from nochmal.clever.sheetdata import ACTIONS, SheetFacts

SHORT = {"reroll": "R", "plus-one": "+1", "polish": "P", "fox": "F", "?yellow": "?y", "?blue": "?b", "?grey": "?g",
         "?green": "?G", "?pink": "?p", "?any": "?*", None: "-"}
ROW_NAMES = ("top", "mid", "bot")


def _cells(values, length: int, width: int = 3) -> str:
    return "".join(f"{v:>{width}}" for v in list(values) + ["."] * (length - len(values)))


def draw_sheet(facts: SheetFacts, sheet: Sheet) -> list[str]:
    lines = ["YELLOW   (top ascending, mid counts minus, bot plus)"]
    for r, row in enumerate(sheet.yellow):
        bonuses = " ".join(SHORT[b] for b in facts.yellow_bonuses[r])
        lines.append(f"  {ROW_NAMES[r]:<4}{_cells(row, facts.yellow_columns)}     {bonuses if any(facts.yellow_bonuses[r]) else ''}")
    lines.append(f"  cols{_cells(facts.yellow_points, facts.yellow_columns)}")
    lines.append("BLUE     (row: blue die, column: white die)")
    lines.append("       " + " ".join(str(c + 1) for c in range(facts.blue_size)))
    for r in range(facts.blue_size):
        marks = " ".join("x" if sheet.blue & blue_bit(r, c) else "." for c in range(facts.blue_size))
        lines.append(f"    {r + 1}  {marks}   {SHORT[facts.blue_row_bonuses[r]]}")
    lines.append(f"  pts {' '.join(str(p) for p in facts.blue_points)}  (diagonal {SHORT[facts.blue_diagonal_bonus]},"
                 f" other diagonal {facts.blue_anti_diagonal_points})")
    lines.append("GREY     (W white, L light, D dark; x crossed)")
    crossed = sheet.grey_cells(facts)
    for r, shades in enumerate(facts.grey_shades):
        lines.append("    " + " ".join("x" if (r, c) in crossed else s for c, s in enumerate(shades)))
    lines.append("  pts " + " ".join(str(p % 10) if p < 10 else "T" if p == 10 else "E" for p in facts.grey_points)
                 + "  (T 10, E 11)")
    lines.append("GREEN    (a full field scores its halves, doubled from field "
                 f"{facts.green_double_from + 1})")
    lines.append(f"  up  {_cells(sheet.green[1], facts.green_fields)}")
    lines.append(f"  low {_cells(sheet.green[0], facts.green_fields)}")
    lines.append("PINK")
    lines.append(f"      {_cells(sheet.pink, facts.pink_fields)}")
    lines.append(f"  pts {_cells(facts.pink_points, facts.pink_fields)}")
    tracks = ", ".join(f"{a} {sheet.left(a)} ({sheet.unlocked[i]}/{facts.track_slots[a]})"
                       for i, a in enumerate(ACTIONS))
    lines.append(f"ACTIONS  left (unlocked/slots): {tracks}")
    lines.append(f"FOXES    {sheet.foxes}")
    lines.append("BONUSES  R re-roll, +1, P polish, F fox; a number of one's choice in")
    lines.append("         ?y yellow, ?b blue, ?g grey, ?G green, ?p pink, ?* any area")
    points = area_points(facts, sheet)
    lines.append("POINTS   " + ", ".join(f"{a} {p}" for a, p in points.items())
                 + f"; foxes {sheet.foxes} x {min(points.values())}; total {score(facts, sheet)}")
    return lines


def draw_game(game: CleverGame, seat: int = 0) -> str:
    head = f"Clever 4ever, round {min(game.round, game.rounds)} of {game.rounds}, seat {seat + 1}"
    if game.is_terminal() and game.solo:
        head += f": {game.scores()[0]} points, {game.rating()}"
    return "\n".join([head] + draw_sheet(game.facts, game.sheets[seat]))
