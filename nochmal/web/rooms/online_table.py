"""One online room's game in memory, rebuilt from what the store keeps (docs/rooms.md,
online games): the table session (nochmal/table/session.py: the seed's rolls, the mission,
the record) with the roll's choices that wait for a seat before them in the engine's order.

A passive seat chooses at the same time as the others: its choice is checked on a copy of the
game in which the seats before it that have not chosen pass (their choices change neither its
dice nor its sheet), kept, and applied as soon as every seat before it has been (``_drain``).
Only the active player's choice comes first from roll 4 on (docs/rules.md §4).
"""

from __future__ import annotations

import threading

from nochmal.dice import seeded_roll
from nochmal.errors import NochmalError
from nochmal.game import CHANCE, Game
from nochmal.i18n import said, say
from nochmal.move import PASS, Move
from nochmal.seats import HUMAN
from nochmal.svg import SheetPicture, pictures_svg
from nochmal.table.session import TableSession
from nochmal.web.errors import WebError
from nochmal.web.routers.games import mission_text
from nochmal.web.rooms.model import RoomMode, board_of, shipped_mission
from nochmal.web.rooms.online_store import KeptMove, OnlineRecord


class OnlineTable:
    """The game of one online room; every change goes through the service under ``lock``."""

    def __init__(self, stored: OnlineRecord):
        self.code = stored.code
        self.setup = stored.setup
        self.seed = stored.seed
        self.commitment = stored.commitment
        self.version = stored.version
        self.started = stored.started
        self.names = dict(stored.names)
        self.lock = threading.RLock()
        self.pending: dict[int, Move] = {}  # choices of the roll in play not yet applied
        self.by: dict[tuple[int, int], str] = {}  # (roll, seat) -> who chose: seat, quiet, bot
        self.offered_at: dict[int, float] = {}  # seat -> when it was offered this roll's dice
        self.drawn: tuple | None = None  # what the sheets last sent on the stream were drawn for
        setup = self.setup
        mission = shipped_mission(setup.mission) if setup.mode is RoomMode.MISSION else None
        self.session = TableSession(board_of(setup), self.seat_specs(), self.seed, mission=mission,
                                    difficulty=setup.difficulty, extra=setup.extra())
        self._drain()
        for kept in stored.moves:
            self.keep(kept)

    @property
    def game(self) -> Game:
        return self.session.game

    def seat_specs(self) -> list[str]:
        """The record's seat specs: a seated person as human:NAME, a bot by its name."""
        return [f"{HUMAN}:{self.names[k]}" if k in self.names else spec for k, spec in enumerate(self.setup.seats)]

    def sat(self, seat: int, name: str, version: int, starts: bool) -> None:
        self.names[seat] = name
        self.session.seats = self.seat_specs()
        self.version = version
        if starts:
            self.started = True
            self._drain()

    # --- the turn loop ---------------------------------------------------------------------
    def _drain(self) -> None:
        """Roll the seed's dice when due and apply the kept choices in the engine's order."""
        g = self.game
        while self.started and not g.is_terminal():
            p = g.current_player()
            if p == CHANCE:
                g.apply_roll(seeded_roll(self.seed, g.rolls_done, g.dice_per_kind))
                self.offered_at.clear()
            elif p in self.pending:
                g.apply_move(self.pending.pop(p))
            else:
                return

    def keep(self, kept: KeptMove) -> None:
        """A choice the store holds (acknowledged now, or replayed at start-up)."""
        self.pending[kept.seat] = Move.parse(kept.move)
        self.by[(kept.roll, kept.seat)] = kept.by
        self._drain()

    def roll_index(self) -> int | None:
        """The roll in play, 0-based (None before the start and after the end)."""
        g = self.game
        return g.rolls_done if g.roll is not None else None

    def chosen(self, seat: int) -> Move | None:
        """Seat's choice in the roll in play, applied or waiting."""
        g = self.game
        if g.roll is None:
            return None
        for q, move in g.history[-1][1]:
            if q == seat:
                return move
        return self.pending.get(seat)

    def view(self, seat: int) -> Game | None:
        """A copy of the game with ``seat`` deciding, or None when it may not choose now (it
        chose, the game is not running, or the active player has not chosen from roll 4 on)."""
        g = self.game
        if g.roll is None or g.is_terminal() or self.chosen(seat) is not None:
            return None
        v = g.clone()
        while v.current_player() != seat:
            q = v.current_player()
            if q == g.active_player and not v.free_choice:
                return None  # the others choose from what the active player leaves
            v.apply_move(self.pending.get(q, PASS))
        return v

    def state_of(self, seat: int) -> str:
        g = self.game
        if g.is_terminal():
            return "over"
        if not self.started:
            return "not started"
        if self.chosen(seat) is not None:
            return "chosen"
        return "choosing" if self.view(seat) is not None else "waiting"

    def check(self, seat: int, roll: int, text: str) -> KeptMove:
        """Seat's move for roll ``roll`` (from 1) checked by the engine, ready to keep."""
        index = self.roll_index()
        if index is None or roll != index + 1:
            now = say("the game is over") if self.game.is_terminal() else (
                say("the game has not started") if index is None else say("roll %(roll)s is in play", roll=index + 1))
            raise WebError(say("%(now)s, not roll %(roll)s", now=now, roll=roll), "roll", 409)
        state = self.state_of(seat)
        if state == "chosen":
            raise WebError(say("seat %(seat)s has already chosen in roll %(roll)s", seat=seat + 1, roll=roll), "move", 409)
        if state == "waiting":
            raise WebError(say("the active player chooses first; the others then choose from the dice left"),
                           "move", 409)
        try:
            move = Move.parse(text)
            self.view(seat).check_move(move)
        except NochmalError as exc:
            raise WebError(exc.message, "move", 422) from None
        return KeptMove(index, seat, str(move), "seat")

    def offered(self) -> list[int]:
        """The seats that may choose now."""
        return [k for k in range(len(self.setup.seats)) if self.started and self.view(k) is not None]

    # --- what phones see -------------------------------------------------------------------
    def document(self, seat: int | None = None, now: float | None = None, lang: str = "en") -> dict:
        """The room as every phone sees it: the sheets as at the roll's start (the moves of a
        roll show when it ends); ``seat`` adds that seat's offer (``you``); a mission's outcome
        said in ``lang``."""
        g = self.game
        setup = self.setup
        sheets = g.position().sheets if g.roll is not None else g.sheets
        over = g.is_terminal()
        seats = []
        for k, spec in enumerate(setup.seats):
            sheet = sheets[k]
            view = self.view(k) if self.started else None
            seats.append({"seat": k, "name": self.names.get(k, spec if spec != HUMAN else None),
                          "bot": spec if spec != HUMAN else None, "taken": spec != HUMAN or k in self.names,
                          "state": self.state_of(k), "dice": view.available_dice().to_json() if view else None,
                          "cells": g.board.cells_of(sheet.crossed),
                          "jokers_used": sheet.jokers_used, "score": sheet.score()})
        out = {"id": self.code, "version": self.version, "mode": str(setup.mode), "board": setup.board,
               "mission": setup.mission, "difficulty": setup.difficulty, "commitment": self.commitment,
               "quiet": setup.to_dict()["quiet"], "started": self.started,
               "roll": g.rolls_done + 1 if g.roll is not None else None,
               "dice": g.roll.to_json() if g.roll is not None else None,
               "active": g.active_player if g.roll is not None else None, "seats": seats,
               "last": self._last_roll(), "over": over, "scores": [sheet.score() for sheet in sheets],
               "winners": g.winners() if over else None, "outcome": None,
               "seed": self.seed if over else None,
               "seed_text": str(self.seed) if over else None}  # 62 bits: a browser's number keeps 53
        if setup.mode is RoomMode.MISSION:
            result = self.session.mission_outcome()
            outcome = result.to_dict(lang)
            name = self.session.mission.name_in(lang)
            out["outcome"] = {**outcome, "text": result.text() if lang == "en" else mission_text(outcome, name, lang)}
        if seat is not None:
            out["you"] = {"seat": seat, "offer": self.offer(seat, now)}
        return out

    def offer(self, seat: int, now: float | None = None) -> dict:
        view = self.view(seat) if self.started else None
        chosen = self.chosen(seat)
        quiet_in = None
        if view is not None and now is not None and self.setup.quiet.after != "wait" and seat in self.offered_at:
            quiet_in = max(0.0, self.offered_at[seat] + self.setup.quiet.seconds - now)
        return {"state": self.state_of(seat), "dice": view.available_dice().to_json() if view else None,
                "move": str(chosen) if chosen is not None else None, "quiet_in": quiet_in}

    def _last_roll(self) -> dict | None:
        g = self.game
        ended = g.history[:-1] if g.roll is not None else g.history
        if not ended:
            return None
        roll, moves = ended[-1]
        t = len(ended)
        return {"roll": t, "dice": roll.to_json(),
                "moves": [{"seat": p, "move": str(m), "by": self.by.get((t - 1, p), "seat")} for p, m in moves]}

    def sheet_svg(self, seat: int, lang: str = "en") -> str:
        """Seat's sheet drawn in ``lang``'s words (a phone's language: docs/web.md "Languages"):
        a player's name, a bot's, or a free seat's label in that language."""
        g = self.game
        sheets = g.position().sheets if g.roll is not None else g.sheets
        claims = g.race_claims
        spec = self.setup.seats[seat]
        name = self.names.get(seat) or (spec if spec != HUMAN else said(say("seat %(n)s (free)", n=seat + 1), lang))
        return pictures_svg([SheetPicture(name, sheets[seat], claims.columns & ~sheets[seat].cols_upper,
                                          claims.colours & ~sheets[seat].colours_upper)], lang=lang)

    def record(self):
        """The game's record (the seed in it), for the end."""
        return self.session.record()
