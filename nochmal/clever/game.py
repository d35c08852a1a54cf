"""Clever 4ever as one explicit state machine, behind the same state API as nochmal.Game
(nochmal/game.py; nochmal/clever/state_api.py names the shared part):

    current_player()   a seat's index, or PlayerId.CHANCE (dice to throw) / TERMINAL
    chance_outcomes(), apply_roll(throw)   at a chance node (dice_to_throw(), throw_key()
                       say which dice and where in the game, for seeded dice)
    legal_moves(), apply_move(action)      at a decision (IllegalActionError with the reason)
    push(throw or action), pop()           the same with undo
    is_terminal(), scores(), winners(), returns(), clone()

The turn structure (docs/clever.md "A round"): every round each seat is the active player
once: three picks, each a die taken and entered (every lower die in play put on the silver
tray) or a throw passed; then the +1 window; then every passive player takes one tray die
(and has a +1 window). Solo: after the active turn all six dice are thrown, the three lowest go on the
tray and the player takes one of them as the passive player. A pending "?" bonus is resolved
by its player before anything else happens.
"""

from __future__ import annotations

from nochmal.clever.actions import DONE, PASS, REROLL, Action
from nochmal.clever.bonuses import award, question_entries
from nochmal.clever.dice import DICE, Throw, seeded_throw, throw_outcomes
from nochmal.clever.errors import IllegalActionError
from nochmal.clever.options import DEFAULT_OPTIONS, CleverRules
from nochmal.clever.scoring import score
from nochmal.clever.sheet import Place, Sheet, blue_free, enter, places
from nochmal.clever.sheetdata import MAX_DIE, SheetFacts, clever4ever
from nochmal.clever.words import KINDS, PHASES, WHERE, bonus, colour
from nochmal.errors import OutOfTurnError, SetupError
from nochmal.game import CHANCE, TERMINAL
from nochmal.i18n import say

MAX_PLAYERS = 4
PICKS = 3  # an active turn has three picks (throws), each a take or a pass
SOLO_TRAY = 3  # solo: the three lowest dice of the passive throw go on the tray
JOKER_AREAS = ("yellow", "grey", "green", "pink")  # the white die's areas: all but blue

# the state apply changes (the history and the undo stack aside), saved whole for pop()
_STATE = ("sheets", "pending", "round", "active", "stage", "phase", "actor", "values", "where", "picks", "throws",
          "to_throw", "queue", "extra_used")


class CleverGame:
    """One game of 1-4 seats (see the module doc); every rule applied here is in docs/clever.md."""

    def __init__(self, players: int = 1, rules: CleverRules = DEFAULT_OPTIONS, facts: SheetFacts | None = None):
        if type(players) is not int or not 1 <= players <= MAX_PLAYERS:
            raise SetupError(f"Clever 4ever has 1-{MAX_PLAYERS} players, not {players!r}")
        self.facts = facts or clever4ever()
        self.rules = rules
        self.n_players = players
        self.sheets: list[Sheet] = [Sheet() for _ in range(players)]
        self.pending: list[tuple[str, ...]] = [() for _ in range(players)]
        self.history: list[tuple[int, Throw | Action]] = []  # (CHANCE, throw) or (seat, action)
        self._undo: list[tuple] = []
        self.round = 0
        self.active = 0
        self.stage = "active"  # the active player's part of the turn, or the passive picks
        self.phase = "active"  # active, passive (a tray pick), extra (a +1 window), over
        self.actor = 0  # the seat whose phase it is
        self.values: tuple[int, ...] = (0,) * len(DICE)
        self.where: tuple[str, ...] = ("pool",) * len(DICE)  # pool, field (taken), tray
        self.picks = 0  # picks made in this active turn: dice taken and throws passed
        self.throws = 0  # throws in this active turn, re-rolls included
        self.to_throw: tuple[str, ...] = ()
        self.queue: tuple[int, ...] = ()  # passive seats still to pick after the actor
        self.extra_used: frozenset[str] = frozenset()
        self._start_round(1)

    @property
    def solo(self) -> bool:
        return self.n_players == 1

    @property
    def rounds(self) -> int:
        return self.rules.rounds(self.n_players)

    # --- whose turn ----------------------------------------------------------------------
    def current_player(self) -> int:
        if self.phase == "over":
            return TERMINAL
        for seat in [self.actor] + [(self.active + k) % self.n_players for k in range(self.n_players)]:
            if self.pending[seat]:
                return seat
        if self.to_throw:
            return CHANCE
        return self.actor

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def is_terminal(self) -> bool:
        return self.phase == "over"

    # --- dice ----------------------------------------------------------------------------
    def dice_to_throw(self) -> tuple[str, ...]:
        return self.to_throw

    def throw_key(self) -> str:
        """Where the coming throw is in the game: round, active seat, throw number in the
        turn ("p" for the solo passive throw); with the seed it fixes the faces."""
        number = "p" if self.phase == "passive" else str(self.throws)
        return f"{self.round}.{self.active}.{number}"

    def seeded_throw(self, seed: int) -> Throw:
        return seeded_throw(seed, self.throw_key(), self.to_throw)

    seeded_outcome = seeded_throw  # the shared state API's name (nochmal/clever/state_api.py)

    def chance_outcomes(self) -> tuple[tuple[Throw, float], ...]:
        if self.current_player() != CHANCE:
            raise OutOfTurnError("the dice are not to be thrown now")
        return throw_outcomes(self.to_throw)

    def dice(self) -> dict[str, tuple[int, str]]:
        """Each die's number and where it lies (pool, field, tray)."""
        return {d: (self.values[i], self.where[i]) for i, d in enumerate(DICE)}

    def apply_roll(self, throw: Throw) -> None:
        if self.current_player() != CHANCE:
            raise OutOfTurnError("the dice are not to be thrown now")
        if throw.dice != self.to_throw:
            raise IllegalActionError(f"this throw is of {' '.join(self.to_throw)}, not {' '.join(throw.dice)}")
        self._save()
        self.history.append((CHANCE, throw))
        values = list(self.values)
        for die, value in throw.faces:
            values[DICE.index(die)] = value
        self.values = tuple(values)
        self.to_throw = ()
        if self.phase == "passive":  # solo: the three lowest on the tray, ties in die order
            low = sorted(range(len(DICE)), key=lambda i: (self.values[i], i))[:SOLO_TRAY]
            self.where = tuple("tray" if i in low else "field" for i in range(len(DICE)))
        else:
            self.throws += 1

    # --- decisions -----------------------------------------------------------------------
    def entries(self, seat: int, die: str) -> list[tuple[int, Place, int]]:
        """Every (number, place, polish cost) ``die`` may be entered as on ``seat``'s sheet;
        a die on the tray may be polished (docs/clever.md "Actions")."""
        sheet, facts = self.sheets[seat], self.facts
        budget = sheet.left("polish")
        i = DICE.index(die)

        def faces(j: int) -> list[tuple[int, int]]:
            value = self.values[j]
            if self.rules.polish_scope == "any" or self.where[j] == "tray":
                return [(v, abs(v - value)) for v in range(1, MAX_DIE + 1) if abs(v - value) <= budget]
            return [(value, 0)]

        out = []
        if die == "blue":
            for row, c1 in faces(i):
                for col, c2 in faces(DICE.index("white")):
                    if c1 + c2 <= budget and blue_free(sheet, row - 1, col - 1):
                        out.append((row, Place("blue", col - 1), c1 + c2))
            return out
        value = self.values[i]
        for area in (JOKER_AREAS if die == "white" else (die,)):
            for number, cost in faces(i):
                for place in places(facts, self.rules, sheet, area, number):
                    if area == "grey":  # a larger number crosses the same segment: keep the cheapest
                        size = len(facts.segments[place.spot].cells)
                        if number != max(value, size):
                            continue
                    out.append((number, place, cost))
        return out

    def legal_moves(self) -> list[Action]:
        """Every legal action of the deciding seat."""
        seat = self.current_player()
        if seat < 0:
            raise OutOfTurnError("no seat decides now")
        if self.pending[seat]:
            return self._bonus_actions(seat)
        out: list[Action] = []
        if self.phase == "active":
            for die in self._takeable(seat):
                out.extend(Action("take", die, n, p) for n, p, _ in self.entries(seat, die))
            if not out or self.rules.active_pass == "always":
                out.append(PASS)
            if self.sheets[seat].left("reroll"):
                out.append(REROLL)
        elif self.phase == "passive":
            for die in self._takeable(seat):
                out.extend(Action("take", die, n, p) for n, p, _ in self.entries(seat, die))
            out.append(PASS)
        else:  # the +1 window
            for die in DICE:
                if die not in self.extra_used:
                    out.extend(Action("extra", die, n, p) for n, p, _ in self.entries(seat, die))
            out.append(DONE)
        return out

    def _bonus_actions(self, seat: int) -> list[Action]:
        out = []
        for kind in sorted(set(self.pending[seat])):
            entries = question_entries(self.facts, self.rules, self.sheets[seat], kind)
            out.extend(Action("bonus", number=n, place=p, bonus=kind) for n, p in entries)
            if not entries or self.rules.bonus_forfeit == "always":
                out.append(Action("forfeit", bonus=kind))
        return out

    def check_move(self, action: Action) -> None:
        """IllegalActionError naming why ``action`` is not legal now."""
        seat = self.current_player()
        if seat < 0:
            raise IllegalActionError(say("the game is over") if seat == TERMINAL else say("the dice are to be thrown now"))
        if self.pending[seat] and action.kind not in ("bonus", "forfeit"):
            raise IllegalActionError(say("seat %(seat)s first enters or forfeits %(bonuses)s", seat=seat + 1,
                                         bonuses=[bonus(b) for b in self.pending[seat]]))
        if action.kind in ("bonus", "forfeit") and action.bonus not in self.pending[seat]:
            raise IllegalActionError(say("no %(bonus)s bonus is pending", bonus=bonus(action.bonus)))
        want = {"active": ("take", "pass", "reroll"), "passive": ("take", "pass"), "extra": ("extra", "done")}[self.phase]
        if action.kind not in want + ("bonus", "forfeit"):
            raise IllegalActionError(say("%(action)s is not possible now (%(phase)s: %(allowed)s)",
                                         action=say(KINDS[action.kind]), phase=say(PHASES[self.phase]),
                                         allowed=[say(KINDS[k]) for k in want]))
        if action.kind == "reroll" and not self.sheets[seat].left("reroll"):
            raise IllegalActionError(say("no re-roll action is unlocked and unused"))
        if action.die is not None:
            where = self.where[DICE.index(action.die)]
            if action.kind == "take" and action.die not in self._takeable(seat):
                raise IllegalActionError(say("the %(die)s die is not available (%(where)s)", die=colour(action.die),
                                             where=say(WHERE[where])))
            if action.kind == "extra" and action.die in self.extra_used:
                raise IllegalActionError(say("the %(die)s die was used with +1 in this window already",
                                             die=colour(action.die)))
        if action not in self.legal_moves():
            raise IllegalActionError(say("%(action)s is not legal here", action=repr(action.text(self.facts))))

    def apply_move(self, action: Action) -> None:
        """Apply a legal action of the deciding seat (IllegalActionError otherwise)."""
        self.check_move(action)
        self._apply_move(action)

    def push_legal(self, action: Action) -> None:
        """``push`` an action taken from this very state's ``legal_moves()``, without checking
        it again (the search bots try every legal action: docs/clever.md "Bots")."""
        self._apply_move(action)

    def _apply_move(self, action: Action) -> None:
        seat = self.current_player()
        self._save()
        self.history.append((seat, action))
        if action.kind in ("bonus", "forfeit"):
            pending = list(self.pending[seat])
            pending.remove(action.bonus)
            self.pending[seat] = tuple(pending)
            if action.kind == "bonus":
                self._enter(seat, action.number, action.place, 0)
            self._settle()
        elif action.kind == "reroll":
            self.sheets[seat] = self.sheets[seat].use("reroll")
            self.to_throw = tuple(d for i, d in enumerate(DICE) if self.where[i] == "pool")
        elif self.phase == "active" and action.kind in ("take", "pass"):
            self._active_pick(seat, action)
        elif action.kind == "take" or action.kind == "pass":
            if action.kind == "take":
                self._enter(seat, action.number, action.place, self._cost(seat, action))
            self._open_window(seat)
        elif action.kind == "extra":
            self._enter(seat, action.number, action.place, self._cost(seat, action))
            self.sheets[seat] = self.sheets[seat].use("plus-one")
            self.extra_used = self.extra_used | {action.die}
            self._settle()
        else:  # done
            self._close_window()

    def _cost(self, seat: int, action: Action) -> int:
        return next(c for n, p, c in self.entries(seat, action.die) if n == action.number and p == action.place)

    def _enter(self, seat: int, number: int, place: Place, polish: int) -> None:
        sheet = self.sheets[seat].use("polish", polish) if polish else self.sheets[seat]
        sheet, got = enter(self.facts, self.rules, sheet, place, number)
        sheet, questions = award(self.facts, self.rules, sheet, got)
        self.sheets[seat] = sheet
        self.pending[seat] = self.pending[seat] + tuple(questions)

    def _takeable(self, seat: int) -> list[str]:
        """The dice ``seat`` may take now: the active player the dice in play; a passive one
        the tray's, or, when none of those can be entered, the active player's (OPTION
        passive_fallback, not in solo)."""
        if self.phase == "active":
            return [d for i, d in enumerate(DICE) if self.where[i] == "pool"]
        tray = [d for i, d in enumerate(DICE) if self.where[i] == "tray"]
        if self.solo or not self.rules.passive_fallback or any(self.entries(seat, d) for d in tray):
            return tray
        return [d for i, d in enumerate(DICE) if self.where[i] == "field"]

    def _active_pick(self, seat: int, action: Action) -> None:
        """A take (the die to a field, every lower die in play on the tray) or a pass (the
        throw lost, no die moves); after the third pick the dice in play go on the tray."""
        where = list(self.where)
        if action.kind == "take":
            i = DICE.index(action.die)
            self._enter(seat, action.number, action.place, self._cost(seat, action))
            taken = self.values[i]
            where[i] = "field"
            for j in range(len(DICE)):
                if where[j] == "pool" and self.values[j] < taken:
                    where[j] = "tray"
        self.picks += 1
        if self.picks == PICKS or "pool" not in where:
            where = ["tray" if w == "pool" else w for w in where]
            self.where = tuple(where)
            self._open_window(seat)
        else:
            self.where = tuple(where)
            self.to_throw = tuple(d for j, d in enumerate(DICE) if where[j] == "pool")

    # --- the flow of a round ---------------------------------------------------------------
    def _start_round(self, number: int) -> None:
        self.round = number
        bonus = self.facts.round_bonuses[number - 1] if number <= len(self.facts.round_bonuses) else None
        if bonus:
            for seat in range(self.n_players):
                sheet, questions = award(self.facts, self.rules, self.sheets[seat], [bonus])
                self.sheets[seat] = sheet
                self.pending[seat] = self.pending[seat] + tuple(questions)
        self._start_active(0)

    def _start_active(self, seat: int) -> None:
        self.active = self.actor = seat
        self.phase = self.stage = "active"
        self.values = (0,) * len(DICE)
        self.where = ("pool",) * len(DICE)
        self.picks = self.throws = 0
        self.to_throw = DICE

    def _open_window(self, seat: int) -> None:
        self.phase, self.actor, self.extra_used = "extra", seat, frozenset()
        self._settle()

    def _settle(self) -> None:
        """Close the +1 window by itself once its seat has no +1 left and no "?" pending (a
        pending "?" may still unlock a +1 for this window)."""
        if self.phase == "extra" and not self.pending[self.actor] and not self.sheets[self.actor].left("plus-one"):
            self._close_window()

    def _close_window(self) -> None:
        if self.stage == "active":  # the active turn is over: the passive picks follow
            self.stage = "passive"
            if self.solo:  # docs/clever.md "Solo": all six dice thrown for the passive pick
                self.phase, self.to_throw = "passive", DICE
                self.values, self.where = (0,) * len(DICE), ("pool",) * len(DICE)
                return
            self.queue = tuple((self.active + k) % self.n_players for k in range(1, self.n_players))
        if self.queue:
            self.phase, self.actor, self.queue = "passive", self.queue[0], self.queue[1:]
            return
        self._end_turn()

    def _end_turn(self) -> None:
        if not self.solo and self.active + 1 < self.n_players:
            self._start_active(self.active + 1)
        elif self.round < self.rounds:
            self._start_round(self.round + 1)
        else:
            self.phase, self.actor = "over", TERMINAL

    # --- results -------------------------------------------------------------------------
    def scores(self) -> list[int]:
        return [score(self.facts, s) for s in self.sheets]

    def winners(self) -> list[int]:
        scores = self.scores()
        return [p for p, s in enumerate(scores) if s == max(scores)]

    def returns(self) -> list[float]:
        """Solo: the score; else 1 for a (shared) win, 0 otherwise (as nochmal.Game)."""
        if self.solo:
            return [float(self.scores()[0])]
        win = set(self.winners())
        return [1.0 if p in win else 0.0 for p in range(self.n_players)]

    def rating(self, lang: str = "en") -> str:
        """The solo rating table's title for the score so far."""
        return self.facts.rating(self.scores()[0], lang)

    # --- undo ----------------------------------------------------------------------------
    def push(self, step: Throw | Action) -> None:
        if isinstance(step, Throw):
            self.apply_roll(step)
        else:
            self.apply_move(step)

    def pop(self) -> Throw | Action:
        if not self._undo:
            raise OutOfTurnError("nothing to take back")
        saved = self._undo.pop()
        for name, value in zip(_STATE, saved):
            setattr(self, name, value)
        self.sheets, self.pending = list(self.sheets), list(self.pending)
        return self.history.pop()[1]

    @property
    def undo_depth(self) -> int:
        return len(self._undo)

    def _save(self) -> None:
        self._undo.append(tuple(tuple(v) if isinstance(v, list) else v
                                for v in (getattr(self, n) for n in _STATE)))

    def clone(self) -> "CleverGame":
        other = CleverGame.__new__(CleverGame)
        other.__dict__.update(self.__dict__)
        other.sheets, other.pending = list(self.sheets), list(self.pending)
        other.history, other._undo = list(self.history), list(self._undo)
        return other
