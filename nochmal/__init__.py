"""nochmal: the rules engine of the dice game Noch mal! (Encore!) and tools around it.

The public API, for scripts and for the other parts of the project::

    import nochmal as nm
    board = nm.load_board("classic")              # or a path to a board TOML file
    sheet = nm.Sheet.from_cells(board, ["H4", "H5"])
    masks = sheet.placements("y", 3)              # legal placements as cell masks
    [board.cells_of(m) for m in masks]            # ... as cell names
    game = nm.Game(board, players=1, mode=nm.Mode.SOLO)
    game.apply_roll(nm.Roll(("b", "y"), ("4", "2")))  # or nm.seeded_roll(seed, index, dice=2)
    game.apply_move(nm.Move.parse("b4 G4 G5 H4 H5"))  # IllegalMoveError says why not
    record = nm.play_solo(board, nm.GreedyAgent(), seed=7)  # bots by name: nochmal.bots.make_agent
    record.save("game.json"); nm.GameRecord.load("game.json").verify()
"""

from nochmal.agents import Agent, GreedyAgent, RandomAgent
from nochmal.board import BUILTIN_BOARDS, COLOURS, Board, load_board, read_board_file
from nochmal.choice import Choice
from nochmal.dice import Roll, resolutions, seeded_roll, seeded_rolls
from nochmal.errors import (BoardError, IllegalMoveError, IllegalPositionError, InvalidMoveError, NochmalError,
                            OptionError, PositionTextError, RecordError, SheetError)
from nochmal.game import CHANCE, TERMINAL, Game, Mode, PlayerId, rating
from nochmal.move import PASS, Move
from nochmal.position import Position
from nochmal.play import play_competitive, play_game, play_solo
from nochmal.record import GameRecord
from nochmal.rules import DEFAULT_RULES, RuleSettings
from nochmal.sheet import ScoreBreakdown, Sheet, format_typed_sheet, parse_typed_sheet

__all__ = [
    "Agent", "GreedyAgent", "RandomAgent",
    "BUILTIN_BOARDS", "COLOURS", "Board", "load_board", "read_board_file",
    "Roll", "resolutions", "seeded_roll", "seeded_rolls",
    "BoardError", "IllegalMoveError", "IllegalPositionError", "InvalidMoveError", "NochmalError", "OptionError",
    "PositionTextError", "RecordError", "SheetError", "Position",
    "CHANCE", "TERMINAL", "PlayerId", "Game", "Mode", "rating", "PASS", "Move", "Choice",
    "play_competitive", "play_game", "play_solo", "GameRecord", "DEFAULT_RULES", "RuleSettings",
    "ScoreBreakdown", "Sheet", "format_typed_sheet", "parse_typed_sheet",
]
