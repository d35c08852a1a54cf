"""Clever 4ever at the terminal (docs/clever.md "Play at the terminal"): a human seat is an
agent whose ``choose`` reads the action typed (the notation of nochmal/clever/actions.py),
so a table of humans and bots is played by the one game loop of both games
(nochmal/play.py play_game), line by line through nochmal/terminal/reader.py (a pipe or a
test plays a whole game)."""

from __future__ import annotations

from typing import Callable

from nochmal.clever import Action, CleverGame
from nochmal.errors import NochmalError
from nochmal.game import CHANCE
from nochmal.terminal.clever_view import draw_game
from nochmal.terminal.reader import InputEnded, Reader

HELP = """\
Type one action (docs/clever.md "The engine"):
  take DIE NUMBER PLACE    take a die, e.g. take yellow 4 yellow:top, take blue 3 blue:5
  extra DIE NUMBER PLACE   a +1: one more die of those lying out
  bonus KIND NUMBER PLACE  enter a pending "?", e.g. bonus ?grey 3 grey:2,1
  forfeit KIND             give up a pending "?" that has no place
  reroll | pass | done     throw again, lose this throw / take nothing, end the +1 window
PLACE: yellow:top|mid|bottom, blue:COLUMN (NUMBER is the row), grey:ROW,COLUMN, green:low|up, pink
Other commands:
  legal      the legal actions, numbered; then type a number
  sheet      your sheet again
  help       this text"""


def dice_line(game: CleverGame) -> str:
    """The six dice with their numbers, grouped by where they lie (in play, tray, fields)."""
    where: dict[str, list[str]] = {}
    for die, (value, place) in game.dice().items():
        where.setdefault(place, []).append(f"{die} {value}")
    names = {"pool": "in play", "tray": "silver tray", "field": "on the fields"}
    return "; ".join(f"{names.get(k, k)}: {', '.join(v)}" for k, v in where.items())


class HumanCleverAgent:
    """A seat played by a person: before each decision its sheet, the dice and what is
    pending; a bad action gets one line and the question again."""

    def __init__(self, name: str, say: Callable[[str], None], read: Reader):
        self.name, self.say, self.read = name, say, read

    def situation(self, game: CleverGame, seat: int) -> str:
        pending = game.pending[seat]
        lines = [draw_game(game, seat), f"{game.phase} — dice {dice_line(game)}"]
        if pending:
            lines.append(f'pending "?": {", ".join(pending)}')
        return "\n".join(lines)

    def choose(self, game: CleverGame) -> Action:
        seat = game.current_player()
        legal = game.legal_moves()
        self.say(self.situation(game, seat))
        listed: list[Action] = []
        while True:
            line = self.read(f"{self.name}> ")
            if line is None:
                raise InputEnded("input ended before the game was over")
            text = line.strip()
            if not text:
                continue
            if text == "help":
                self.say(HELP)
            elif text == "sheet":
                self.say(self.situation(game, seat))
            elif text == "legal":
                listed = legal
                self.say("\n".join(f"{k:3d}  {a.text(game.facts)}" for k, a in enumerate(listed, 1)))
            elif text.isdecimal() and listed:
                if 1 <= int(text) <= len(listed):
                    return listed[int(text) - 1]
                self.say(f"{text}: type a number from 1 to {len(listed)}")
            else:
                action = self._checked(game, text)
                if action is not None:
                    return action

    def _checked(self, game: CleverGame, text: str) -> Action | None:
        """The typed action if the rules allow it; else the reason said in one line."""
        try:
            action = Action.parse(text, game.facts)
            game.clone().apply_move(action)
        except NochmalError as exc:
            self.say(f"{exc} (type 'legal' for the list, 'help' for the notation)")
            return None
        return action


def announce(game: CleverGame, names: list[str], humans: set[int], say: Callable[[str], None]) -> None:
    """After a step of the game loop: a throw, or a bot's action, said in one line."""
    who, step = game.history[-1]
    if who == CHANCE:
        say(f"throw: {step.text()}")
    elif who not in humans:
        say(f"{names[who]} (seat {who + 1}): {step.text(game.facts)}")
