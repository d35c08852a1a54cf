"""The game as one explicit state machine (OpenSpiel style), for every mode.

A ``Game`` is at a chance node (the dice must be rolled), at a decision of one player, or
terminal. Everything that plays (bots, CLI, replays, missions, the planner's validator)
drives this one class:

    current_player()  -> player index, or PlayerId.CHANCE / PlayerId.TERMINAL
    chance_outcomes() at a chance node: the distinct rolls with their probabilities
    apply_roll(roll)  at a chance node
    available_dice()  the dice the deciding player may pick from
    legal_moves()     every legal Move, pass included
    apply_move(move)  raises IllegalMoveError with the reason
    push(roll or move), pop()   the same with undo (python-chess style): every applied roll
                      and move saves the state before it, pop() restores it
    is_terminal(), scores(), winners(), returns()
    Game.from_position(position), position()   set up / read a whole position, validated
                      (nochmal/position.py has its one-line text form)

Modes: ``solo`` (docs/rules.md §5: 2+2 dice, 30 rolls, upper values), ``competitive``
(docs/rules.md §4: 1-6 players, first/later values, two-colour end) and ``coop``
(docs/missions.md: competitive dice flow, upper values, a roll limit and a stop condition
supplied by the mission).
"""

from __future__ import annotations

from enum import IntEnum
from typing import Callable, NamedTuple

from nochmal.board import COLOURS, Board
from nochmal.choice import Choice
from nochmal.dice import Roll, roll_classes, seeded_roll
from nochmal.errors import IllegalMoveError, IllegalPositionError, NochmalError, OutOfTurnError, RollError, SetupError
from nochmal.i18n import say
from nochmal.verdicts import rating  # noqa: F401  (the solo verdicts: nochmal.game.rating as before)
from nochmal.modes import MODES, Mode
from nochmal.position import CHANCE_TEXT, OVER_TEXT, Position, player_text
from nochmal.move import PASS, Move
from nochmal.rules import DEFAULT_RULES, RuleSettings
from nochmal.sheet import Sheet


class PlayerId(IntEnum):
    """What ``Game.current_player()`` returns when no player decides (OpenSpiel's PlayerId).

    Integers below every player's index, so ``current_player() < 0`` asks "no player" and a
    player's index stays a plain int.
    """

    CHANCE = -1  # the dice are to be rolled
    TERMINAL = -2  # the game is over


CHANCE = PlayerId.CHANCE
TERMINAL = PlayerId.TERMINAL
FREE_ROLLS = 3  # docs/rules.md §4: in rolls 1-3 everybody picks from all six dice
MAX_PLAYERS = 6  # docs/rules.md §4: the competitive game has 1 to 6 players
MAX_COOP_PLAYERS = 4  # docs/missions.md §2: a co-op mission has 1 to 4 players


class Claims(NamedTuple):
    """Columns (bit c) and colours (bit i of COLOURS) someone scored in an earlier roll."""

    columns: int
    colours: int


NO_CLAIMS = Claims(0, 0)


class Game:
    def __init__(self, board: Board, players: int = 1, rules: RuleSettings = DEFAULT_RULES,
                 mode: Mode | str | None = None, roll_limit: int | None = None,
                 stop_after_roll: Callable[["Game"], bool] | None = None):
        """``mode``: a Mode or its text; default solo for 1 player, else competitive."""
        if mode is None:
            mode = Mode.SOLO if players == 1 else Mode.COMPETITIVE
        try:
            mode = Mode(mode)
        except ValueError:
            raise SetupError(f"unknown mode {mode!r}; modes are {', '.join(MODES)}") from None
        if mode is Mode.SOLO and players != 1:
            raise SetupError("a solo game has exactly 1 player")
        most = MAX_COOP_PLAYERS if mode is Mode.COOP else MAX_PLAYERS
        if not 1 <= players <= most:
            raise SetupError(f"a {mode} game has 1-{most} players, not {players}")
        self.board = board
        self.rules = rules
        self.mode = mode
        self.n_players = players
        self.roll_limit = rules.solo_rolls if mode is Mode.SOLO and roll_limit is None else roll_limit
        self.stop_after_roll = stop_after_roll
        self.dice_per_kind = 2 if (mode is Mode.SOLO or (mode is Mode.COOP and players == 1)) else 3
        self.sheets: list[Sheet] = [Sheet.empty(board) for _ in range(players)]
        self.rolls_done = 0  # completed rolls
        self.roll: Roll | None = None  # the roll being decided
        self.history: list[tuple[Roll, list[tuple[int, Move]]]] = []
        self.claimed_columns = 0  # columns someone has scored (in an earlier roll)
        self.claimed_colours = 0
        self._order: list[int] = []
        self._pos = 0
        self._after_active: Roll | None = None
        self._ended = False
        self._roll_masks: list[tuple[int, int]] = []  # (player, cells) crossed in this roll
        # the state before each applied roll and move, for pop(): Sheet and Roll are immutable,
        # so a saved state is a small tuple (see _save)
        self._undo: list[tuple] = []

    # --- whose turn ------------------------------------------------------------------------
    @property
    def active_player(self) -> int:
        return self.rolls_done % self.n_players

    def current_player(self) -> int:
        if self._ended:
            return TERMINAL
        if self.roll is None:
            return CHANCE
        return self._order[self._pos]

    def is_chance_node(self) -> bool:
        return self.current_player() == CHANCE

    def is_terminal(self) -> bool:
        return self._ended

    @property
    def race_claims(self) -> Claims:
        """What the race has taken: the columns and colours someone scored in an earlier roll,
        worth only their later value to everybody else (docs/rules.md §4). Solo and co-op score
        first values always: NO_CLAIMS."""
        if self.mode is Mode.COMPETITIVE:
            return Claims(self.claimed_columns, self.claimed_colours)
        return NO_CLAIMS

    @property
    def free_choice(self) -> bool:
        """Whether every player picks from all dice in this roll (solo, or rolls 1-3)."""
        return self.n_players == 1 or self.rolls_done < FREE_ROLLS

    # --- chance ----------------------------------------------------------------------------
    def apply_roll(self, roll: Roll) -> None:
        if self.current_player() != CHANCE:
            raise OutOfTurnError(say("the dice are not to be rolled now"))
        if len(roll.colours) != self.dice_per_kind or len(roll.numbers) != self.dice_per_kind:
            raise RollError(say("this game rolls %(n)s colour and %(n)s number dice", n=self.dice_per_kind))
        self._save()
        self.roll = roll
        self.history.append((roll, []))
        a = self.active_player
        self._order = [(a + k) % self.n_players for k in range(self.n_players)]
        self._pos = 0
        self._after_active = None

    def chance_outcomes(self) -> tuple[tuple[Roll, float], ...]:
        """At a chance node: the distinct rolls (up to die order) with their probabilities."""
        if self.current_player() != CHANCE:
            raise OutOfTurnError(say("the dice are not to be rolled now"))
        return roll_classes(self.dice_per_kind)

    def seeded_outcome(self, seed: int) -> Roll:
        """The seed's roll at this chance node: the one seam a game loop needs for either game
        (docs/clever.md "One state API")."""
        return seeded_roll(seed, self.rolls_done, self.dice_per_kind)

    # --- decisions -------------------------------------------------------------------------
    def available_dice(self) -> Roll:
        """The dice the deciding player may pick from."""
        if self.roll is None or self._ended:
            raise OutOfTurnError(say("no decision is pending"))
        if self._pos == 0 or self.free_choice or self._after_active is None:
            return self.roll
        return self._after_active

    def choices(self) -> list[Choice]:
        """The dice picks open to the deciding player, jokers resolved (not yet placed)."""
        return self.available_dice().choices(self.sheets[self.current_player()].jokers_left)

    def legal_moves(self) -> list[Move]:
        """Every legal move of the deciding player: pass, then every distinct placement."""
        sheet = self.sheets[self.current_player()]
        seen: set[tuple[int, int]] = set()
        moves = [PASS]
        bridging = self.rules.bridging
        for pick in sorted(self.choices(), key=lambda c: c.cost):
            for mask in sheet.placements(pick.colour, pick.count, bridging):
                if (mask, pick.cost) in seen:
                    continue
                seen.add((mask, pick.cost))
                moves.append(pick.placed(mask).move(self.board))
        return moves

    def check_move(self, move: Move) -> int:
        """Validate ``move`` for the deciding player; return its cell mask (0 for a pass)."""
        player = self.current_player()
        if player < 0:
            raise IllegalMoveError(say("no player is to move now"))
        if move.is_pass:
            return 0
        dice = self.available_dice()
        sheet = self.sheets[player]
        if move.colour_face not in dice.colours:
            raise IllegalMoveError(say("no colour die %(die)s available (dice: %(dice)s)", die=repr(move.colour_face),
                                       dice=dice.text()))
        if move.number_face not in dice.numbers:
            raise IllegalMoveError(say("no number die %(die)s available (dice: %(dice)s)", die=repr(move.number_face),
                                       dice=dice.text()))
        if move.joker_cost > sheet.jokers_left:
            raise IllegalMoveError(say("no jokers left: the choice costs %(cost)s, %(left)s left",
                                       cost=move.joker_cost, left=sheet.jokers_left))
        try:
            mask = self.board.mask_of(move.cells)
        except KeyError as exc:
            raise IllegalMoveError(say("cell %(cell)s is not on the %(board)s board", cell=exc.args[0],
                                       board=self.board.name)) from None
        if mask not in sheet.placements(move.colour, move.count, self.rules.bridging):
            sheet.check_placement(move.colour, move.count, mask, self.rules.bridging)
            raise AssertionError(f"placement index and validator disagree on {move}")
        return mask

    def apply_move(self, move: Move) -> None:
        mask = self.check_move(move)
        self._apply(move, mask)

    def _apply(self, move: Move, mask: int) -> None:
        self._save()
        player = self._order[self._pos]
        if mask:
            self.sheets[player] = self.sheets[player].cross(mask, move.joker_cost)
            self._roll_masks.append((player, mask))
        self.history[-1][1].append((player, move))
        if self._pos == 0 and not self.free_choice and not move.is_pass:
            self._after_active = self.roll.without(move.colour_face, move.number_face)
        self._pos += 1
        if self._pos == len(self._order):
            self._end_roll()

    def _end_roll(self) -> None:
        """Score the columns and colours completed in this roll, then check for the end.

        Only the cells crossed in this roll can complete something, so only the columns and
        the colour each move touched are examined.
        """
        claimed_cols, claimed_colours = self.race_claims
        board = self.board
        new_cols, new_colours = 0, 0
        for p, mask in self._roll_masks:
            sheet = self.sheets[p]
            crossed = sheet.crossed
            done_cols = sheet.cols_upper | sheet.cols_lower
            cols = 0
            for c in board.columns_of(mask):
                m = board.column_mask[c]
                if crossed & m == m and not done_cols >> c & 1:
                    cols |= 1 << c
            colours = 0
            ci = COLOURS.index(board.colour_of_bit(mask.bit_length() - 1))
            cm = board.colour_mask[COLOURS[ci]]
            if crossed & cm == cm and not (sheet.colours_upper | sheet.colours_lower) >> ci & 1:
                colours = 1 << ci
            if cols or colours:
                self.sheets[p] = sheet.award(cols & ~claimed_cols, cols & claimed_cols,
                                             colours & ~claimed_colours, colours & claimed_colours)
                new_cols |= cols
                new_colours |= colours
        self._roll_masks = []
        self.claimed_columns |= new_cols
        self.claimed_colours |= new_colours
        self.rolls_done += 1
        self.roll = None
        if self._over_after_roll():
            self._ended = True

    def _over_after_roll(self) -> bool:
        """Whether the game ends at this roll boundary: the roll limit, the second colour
        (the race; solo with that option), or the mission's stop condition."""
        if self.roll_limit is not None and self.rolls_done >= self.roll_limit:
            return True
        if self.mode is Mode.COMPETITIVE or (self.mode is Mode.SOLO and self.rules.solo_ends_on_second_colour):
            if any((s.colours_upper | s.colours_lower).bit_count() >= 2 for s in self.sheets):
                return True
        return self.stop_after_roll is not None and self.stop_after_roll(self)

    # --- results ---------------------------------------------------------------------------
    def scores(self) -> list[int]:
        return [s.score() for s in self.sheets]

    def winners(self) -> list[int]:
        """Solo and competitive: the top scorers (``top_scorers``). Co-op: the team wins or loses
        together (docs/missions.md §2): every seat once the game has stopped on its objectives
        (the mission's stop condition), no seat while it runs or when the budget ran out first."""
        if self.mode is Mode.COOP:
            won = self._ended and self.stop_after_roll is not None and self.stop_after_roll(self)
            return list(range(self.n_players)) if won else []
        return self.top_scorers()

    def top_scorers(self) -> list[int]:
        """Highest score; ties go to more unused jokers; still tied, all share (docs/rules.md §4)."""
        key = [(s.score(), s.jokers_left) for s in self.sheets]
        best = max(key)
        return [p for p, k in enumerate(key) if k == best]

    def returns(self) -> list[float]:
        """Per player: 1 for a (shared) win, 0 otherwise; for solo the score itself."""
        if self.mode is Mode.SOLO:
            return [float(self.sheets[0].score())]
        win = set(self.winners())
        return [1.0 if p in win else 0.0 for p in range(self.n_players)]

    # --- positions (python-chess's FEN, OpenSpiel's new_initial_state(state)) --------------
    @classmethod
    def from_position(cls, position: Position, rules: RuleSettings = DEFAULT_RULES,
                      stop_after_roll: Callable[["Game"], bool] | None = None) -> "Game":
        """A game set up at ``position``, validated: IllegalPositionError says what the rules
        cannot reach. The roll in progress and its moves are applied through the engine, so
        pop() can take them back (not further: a set-up game has no earlier history)."""
        board = position.board
        try:
            game = cls(board, len(position.sheets), rules, position.mode, position.roll_limit, stop_after_roll)
        except NochmalError as exc:
            raise IllegalPositionError(say("position: %(why)s", why=exc.message)) from None
        _check_position(game, position)
        game.sheets = list(position.sheets)
        game.rolls_done = position.rolls_done
        game.claimed_columns, game.claimed_colours = position.scored()
        game._ended = game._over_after_roll()
        if position.roll is not None:
            if game._ended:
                raise IllegalPositionError("position: the game is over, so no roll can be in progress")
            try:
                game.apply_roll(position.roll)
            except NochmalError as exc:
                raise IllegalPositionError(f"position: roll {position.roll.text()}: {exc}") from None
            for i, move in enumerate(position.moves, 1):
                if game.current_player() < 0:
                    raise IllegalPositionError(f"position: {len(position.moves)} moves made in a roll of "
                                               f"{game.n_players} player(s); at most {game.n_players - 1}")
                try:
                    game.apply_move(move)
                except NochmalError as exc:
                    raise IllegalPositionError(f"position: move {i} ({move}): {exc}") from None
            if game.roll is None:
                raise IllegalPositionError(f"position: {len(position.moves)} moves made in a roll of "
                                           f"{game.n_players} player(s); at most {game.n_players - 1}")
        elif position.moves:
            raise IllegalPositionError("position: moves given but no roll in progress")
        if position.to_move is not None and position.to_move != game._to_move_text():
            raise IllegalPositionError(f"position: says {position.to_move} to move, "
                                       f"but the facts give {game._to_move_text()}")
        return game

    def position(self) -> Position:
        """This game's position (Position.text() for its text form)."""
        sheets = list(self.sheets)
        moves: tuple[Move, ...] = ()
        if self.roll is not None:  # the roll's moves are given, the sheets as at its start
            moves = tuple(m for _, m in self.history[-1][1])
            for p, move in self.history[-1][1]:
                if not move.is_pass:
                    s = sheets[p]
                    sheets[p] = Sheet(self.board, s.crossed & ~self.board.mask_of(move.cells),
                                      s.jokers_used - move.joker_cost, s.cols_upper, s.cols_lower,
                                      s.colours_upper, s.colours_lower)
        return Position(self.mode, tuple(sheets), self.rolls_done, self.roll_limit, self.claimed_columns,
                        self.claimed_colours, self.roll, moves, self._to_move_text())

    def _to_move_text(self) -> str:
        player = self.current_player()
        if player == TERMINAL:
            return OVER_TEXT
        return CHANCE_TEXT if player == CHANCE else player_text(player)

    # --- undo --------------------------------------------------------------------------------
    def push(self, action: Roll | Move) -> None:
        """Apply a roll (at a chance node) or a move (at a decision); ``pop`` takes it back.
        The same as apply_roll / apply_move, which save the state just as well."""
        if isinstance(action, Roll):
            self.apply_roll(action)
        else:
            self.apply_move(action)

    def pop(self) -> Roll | Move:
        """Take back the last applied roll or move and return it; OutOfTurnError if there is
        none (a fresh game, or a position set up without its history)."""
        if not self._undo:
            raise OutOfTurnError(say("nothing to take back"))
        (sheets, self.rolls_done, self.roll, self.claimed_columns, self.claimed_colours, self._order,
         self._pos, self._after_active, self._ended, roll_masks) = self._undo.pop()
        self.sheets = list(sheets)
        self._roll_masks = list(roll_masks)
        if self.roll is None:  # the state before was a chance node: the roll is undone
            return self.history.pop()[0]
        return self.history[-1][1].pop()[1]

    @property
    def undo_depth(self) -> int:
        """How many rolls and moves ``pop`` can take back."""
        return len(self._undo)

    def _save(self) -> None:
        """Push the state an apply is about to change (everything but the history, which
        pop trims itself)."""
        self._undo.append((tuple(self.sheets), self.rolls_done, self.roll, self.claimed_columns,
                           self.claimed_colours, self._order, self._pos, self._after_active, self._ended,
                           tuple(self._roll_masks)))

    def clone(self) -> "Game":
        other = Game.__new__(Game)
        other.__dict__.update(self.__dict__)
        other.sheets = list(self.sheets)
        other.history = [(r, list(ms)) for r, ms in self.history]
        other._order = list(self._order)
        other._roll_masks = list(self._roll_masks)
        other._undo = list(self._undo)
        return other


def _check_position(game: Game, position: Position) -> None:
    """The facts a set-up position must have at its roll start (IllegalPositionError, a
    Message: a room's advice says it in the phone's language, nochmal/web/rooms/dice.py)."""
    board = game.board
    if position.rolls_done < 0:
        raise IllegalPositionError(say("position: %(rolls)s rolls done", rolls=position.rolls_done))
    if game.roll_limit is not None and position.rolls_done > game.roll_limit:
        raise IllegalPositionError(say("position: %(rolls)s rolls done of a limit of %(limit)s",
                                       rolls=position.rolls_done, limit=game.roll_limit))
    for p, sheet in enumerate(position.sheets, 1):
        if sheet.board is not board and sheet.board.name != board.name:
            raise IllegalPositionError(say("position: sheet %(sheet)s is for board %(name)s, not %(board)s",
                                           sheet=p, name=sheet.board.name, board=board.name))
        problems = sheet.scoring_problems()
        if problems:  # every completion is scored when its roll ends
            raise IllegalPositionError(say("position: sheet %(sheet)s: %(problem)s", sheet=p, problem=problems[0]))
    scored = position.scored()
    if position.claims() != scored:
        raise IllegalPositionError(say("position: the claims must be exactly the columns and colours the sheets "
                                       "have scored"))
    # Later values are not checked against the other sheets: a position may stand for a table
    # whose other sheets it leaves out (the hint command sets up one player's race sheet).
