"""One game at the terminal: the turn loop for any mix of human and bot seats.

A ``Session`` prints and reads around a table session (``nochmal.table.session``: the game,
the seats, the seed, undo, the mission, the record), for a table of humans and bots
(``play``), a seeded solo game (``puzzle``) or a co-op mission. Input is read line by line
(``nochmal.terminal.reader``), so a pipe or a test runner can play a whole game.
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from nochmal.agents import immediate_gain
from nochmal.board import COLOURS, Board
from nochmal.dice import seeded_rolls
from nochmal.errors import NochmalError
from nochmal.fileio import check_writable, is_decimal
from nochmal.game import Game, rating
from nochmal.modes import Mode
from nochmal.move import PASS, Move
from nochmal.record import GameRecord
from nochmal.seats import is_human, seat_name
from nochmal.sheetview import SheetDrawing, render_dice, render_sheet
from nochmal.table.session import TableSession
from nochmal.terminal.choice import parse_choice
from nochmal.terminal.reader import InputEnded, Reader, default_reader

LIST_LIMIT = 40

HELP = """\
Enter your choice as the dice you take plus the cells you cross:
  b 4 G4 G5 H4 H5    blue die and 4 die: cross G4 G5 H4 H5
  x 3 A1 A2 A3       colour joker (the colour follows from the cells)
  y ? H1 H2          number joker (the count follows from the cells)
  b4 G4 G5 H4 H5     the move notation works too (xb4 ..., b?4 ..., xb?4 ...)
Other commands:
  list [y g b r o 1-5]  numbered legal placements, jokers last, best points first;
                        then type a number (0 = pass)
  pass       cross nothing this roll
  undo       take back the last human choice of this roll
             (at the start of a roll: of the roll before)
  hint       the hint bot's suggestions, when it is installed
  sheets     everybody's sheet       rolls   all rolls (open puzzles)
  save FILE  write the game record; later: nochmal play --resume FILE
  quit       stop (not saved unless you typed save FILE or gave --save)
Sheet: X crossed, * star (upper-case letter without colour), last choice marked;
points (5) scored by you, -5- taken first by somebody else."""


def ranked_moves(game: Game) -> list[tuple[Move, int]]:
    """The deciding player's legal placements (no pass) with their immediate points net of
    joker cost: the numbering of ``list``. Choices without jokers come first (what most
    players look for), each group by immediate points, then by more crosses."""
    player = game.current_player()
    scored = []
    for move in game.legal_moves():
        if move.is_pass:
            continue
        mask = game.board.mask_of(move.cells)
        gain = immediate_gain(game, player, move.colour, mask) - move.joker_cost
        scored.append((move, gain))
    scored.sort(key=lambda mg: (mg[0].joker_cost, -mg[1], -mg[0].count, str(mg[0])))
    return scored


# --- the session -----------------------------------------------------------------------
class Session:
    """One game at the terminal, from the first roll (or a saved record) to the end: the
    table session ``table`` with a console to print on and a reader for the humans' lines."""

    def __init__(self, table: TableSession, console: Console | None = None, reader: Reader | None = None,
                 save_path: str | None = None):
        self.table = table
        self.console = console or Console(highlight=False)
        self.read = reader or default_reader(self.console)
        self.save_path = save_path
        self._helped = False
        self.saved_to: str | None = None
        self.saved: tuple | None = None

    @classmethod
    def from_record(cls, record: GameRecord, source: str, **kw) -> "Session":
        """Continue a saved game exactly where it stopped (TableSession.from_record)."""
        session = cls(TableSession.from_record(record, source), **kw)
        session.saved_to, session.saved = source, (source, session.table.signature())
        return session

    @property
    def game(self) -> Game:
        return self.table.game

    @property
    def board(self) -> Board:
        return self.table.board

    def save(self, path: str) -> None:
        self.table.save(path)
        self.saved_to = path
        self.saved = (path, self.table.signature())

    # --- output helpers ---------------------------------------------------------------------
    def say(self, text: str | Text | SheetDrawing = "", style: str | None = None) -> None:
        if not isinstance(text, str):
            self.console.print(text)
        else:
            self.console.print(text, style=style, markup=False, highlight=False, soft_wrap=True)

    def label(self, p: int) -> str:
        return seat_name(self.table.seats, p)

    def roll_title(self) -> str:
        g = self.game
        n = g.rolls_done + 1
        limit = g.roll_limit
        return f"roll {n}" + (f" of {limit}" if limit else "")

    def last_mask(self, p: int) -> int:
        """Cells of player p's most recent choice, for highlighting."""
        for roll, moves in reversed(self.game.history):
            for q, move in reversed(moves):
                if q == p:
                    return self.board.mask_of(move.cells) if not move.is_pass else 0
        return 0

    def sheet_text(self, p: int, title: str | None = None) -> SheetDrawing:
        g = self.game
        claims = g.race_claims
        return render_sheet(g.sheets[p], title if title is not None else self.label(p),
                            highlight=self.last_mask(p),
                            claimed_columns=claims.columns, claimed_colours=claims.colours)

    def scores_line(self) -> str:
        return "scores: " + " · ".join(f"{self.label(p)} {s}" for p, s in enumerate(self.game.scores()))

    def show_rolls(self) -> None:
        g = self.game
        count = g.roll_limit or 30
        self.say(f"all {count} rolls of seed {self.table.seed}:", style="bold")
        for i, r in enumerate(seeded_rolls(self.table.seed, count, g.dice_per_kind), 1):
            mark = "  <- now" if i == g.rolls_done + 1 and g.roll is not None else ""
            done = i <= g.rolls_done
            self.say(f" {i:>2}  {' '.join(r.colours)} / {' '.join(r.numbers)}{mark}", style="dim" if done else None)

    def intro(self) -> None:
        g, t = self.game, self.table
        who = ", ".join(f"{self.label(p)}" + ("" if is_human(s) else " [bot]") for p, s in enumerate(t.seats))
        what = {Mode.COOP: "co-op mission", Mode.SOLO: "solo game"}.get(g.mode, "game")
        self.say(f"Noch mal! {what} on the {t.board.name} sheet, seed {t.seed}: {who}", style="bold")
        if t.mission is not None:
            self.say(f"mission {t.mission.name} ({t.mission.id}, {t.difficulty}): "
                     f"{g.roll_limit} rolls for {g.n_players} player(s)")
            if t.mission.description:
                self.say(t.mission.description.strip())
            for o in t.mission.objectives:
                self.say(f"  - {o.describe(g.n_players)}")
        if g.rolls_done or (g.history and g.history[-1][1]):
            self.say(f"resumed after {g.rolls_done} complete roll(s)")
        if t.open_rolls:
            self.show_rolls()
        self.say("type help for the commands")

    # --- the loop ---------------------------------------------------------------------------
    def run(self) -> str:
        """Play until the game ends ('over') or a human quits ('quit').

        With ``save_path`` the path is checked before the first roll (a game is not played
        to be lost at the end) and the record written at the end, on quit, on Ctrl-C and
        when the input ends; the game-over screen comes first, so a failed write cannot
        hide it."""
        if self.save_path:
            check_writable(self.save_path)
        self.intro()
        try:
            while True:
                self.table.advance(self.show_bot_move)
                if self.game.is_terminal():
                    break
                if self.human_turn(self.game.current_player()) == "quit":
                    self.save_on_leaving()
                    return "quit"
        except (KeyboardInterrupt, InputEnded):
            self.say("")
            self.save_on_leaving()
            raise
        self.finish()
        if self.save_path:
            self.save(self.save_path)
            self.say(f"record saved to {self.save_path}")
        return "over"

    def save_on_leaving(self) -> None:
        """Save to ``save_path`` if given; else say what is (not) saved where."""
        if self.save_path:
            self.save(self.save_path)
            self.say(f"game saved to {self.save_path}; continue with: nochmal play --resume {self.save_path}")
        elif self.saved is None:
            self.say("game not saved (type 'save FILE' to keep a game, or start it with --save FILE)")
        elif self.saved == (self.saved_to, self.table.signature()):
            self.say(f"game saved in {self.saved_to}")
        else:
            self.say(f"the choices since {self.saved_to} was written are not saved; it still holds the game "
                     f"as it was then (type 'save FILE' to keep a game, or start it with --save FILE)")

    def show_bot_move(self, p: int, move: Move) -> None:
        """A bot's choice, just made; the roll's dice before the roll's first choice."""
        g = self.game
        if len(g.history[-1][1]) == 1:
            self.say(f"{self.roll_title()}: dice {g.history[-1][0].text()}", style="bold")
        self.say(f"  {self.label(p)}: {move}")

    def show_view(self, p: int) -> None:
        g = self.game
        self.say("")
        head = f"{self.roll_title()} · {self.label(p)} to choose"
        if g.n_players > 1:
            if p == g.active_player:
                head += " (active player: pick first)"
            elif not g.free_choice:
                head += f" (from the dice {self.label(g.active_player)} left)"
        self.say(head, style="bold")
        self.say(self.sheet_text(p))
        self.say(render_dice(g.roll, g.available_dice()))
        if self.table.open_rolls:
            nxt = seeded_rolls(self.table.seed, 3, g.dice_per_kind, g.rolls_done + 1)
            limit = g.roll_limit or 30
            upcoming = [r.text() for i, r in enumerate(nxt) if g.rolls_done + 1 + i < limit]
            if upcoming:
                self.say("next: " + "  ".join(upcoming), style="dim")
        if g.n_players > 1:
            self.say(self.scores_line())
        if self.table.mission is not None:
            self.show_mission_progress()
        if not self._helped:
            self.say("choose: dice and cells (b 4 G4 G5 H4 H5), list, pass, undo, hint, save FILE, quit, help", style="italic")
            self._helped = True

    def show_mission_progress(self) -> None:
        """One line per objective: done or k of n, and what is missing."""
        res = self.table.mission_outcome()
        for st in res.objectives:
            mark = "done" if st.met else f"{st.progress}/{st.total}"
            missing = "" if st.met or not st.missing else "  missing: " + ", ".join(st.missing[:6]) + (
                " ..." if len(st.missing) > 6 else "")
            self.say(f"  [{mark}] {st.objective.describe(self.game.n_players)}{missing}", style="dim")
        self.say(f"  rolls used {self.game.rolls_done} of {self.game.roll_limit}", style="dim")

    def human_turn(self, p: int) -> str:
        """Prompt seat ``p`` until it has decided ('moved'), undone ('undone') or quit."""
        self.show_view(p)
        listed: list[tuple[Move, int]] | None = None
        while True:
            line = self.read(f"{self.label(p)}> ")
            if line is None:
                raise InputEnded("input ended before the game was over (type 'save FILE' to keep a game, "
                                 "then nochmal play --resume FILE)")
            text = line.strip()
            low = text.lower()
            if not text:
                continue
            if low in ("help", "?"):
                self.say(HELP)
                continue
            if low in ("quit", "exit"):
                return "quit"
            if low in ("sheets", "show"):
                for q in range(self.game.n_players):
                    self.say(self.sheet_text(q))
                continue
            if low in ("sheet", "dice"):
                self.show_view(p)
                continue
            if low == "rolls":
                if self.table.open_rolls:
                    self.show_rolls()
                else:
                    self.say("the rolls are hidden in this game (nochmal puzzle --open shows them)")
                continue
            if low == "list" or low.startswith("list "):
                listed = ranked_moves(self.game)
                self.show_list(listed, low.split()[1:])
                continue
            if low == "hint":
                self.show_hint()
                continue
            if low == "save" or low.startswith("save "):
                path = text[4:].strip()
                if not path:
                    self.say("save needs a file name: save FILE")
                    continue
                try:
                    self.save(path)
                except (NochmalError, OSError) as exc:
                    self.say(f"not saved: {exc}")
                    continue
                self.say(f"saved to {path}; continue later with: nochmal play --resume {path}")
                continue
            if low == "undo":
                if self.undo():
                    return "undone"
                continue
            if is_decimal(low):
                listed = listed if listed is not None else ranked_moves(self.game)
                k = int(low)
                if k == 0:
                    move = PASS
                elif k <= len(listed):
                    move = listed[k - 1][0]
                elif not listed:
                    self.say("no placement is possible with these dice: type pass (or 0)")
                    continue
                else:
                    self.say(f"no placement number {k}: the list has 1-{len(listed)} (0 passes); type list")
                    continue
            else:
                try:
                    move = parse_choice(text, self.board)
                except NochmalError as exc:
                    self.say(f"not understood: {exc}")
                    continue
            try:
                self.game.apply_move(move)
            except NochmalError as exc:
                self.say(f"not allowed: {exc}")
                continue
            self.say(f"  {self.label(p)}: {move}")
            return "moved"

    def show_list(self, listed: list[tuple[Move, int]], filters: list[str]) -> None:
        colours = {f for f in filters if f in COLOURS}
        counts = {int(f) for f in filters if f in ("1", "2", "3", "4", "5")}
        bad = [f for f in filters if f not in COLOURS and f not in ("1", "2", "3", "4", "5")]
        if bad:
            self.say(f"list filters are colour letters (y g b r o) and counts (1-5), not {' '.join(bad)}")
            return
        shown = 0
        self.say("  0  pass")
        matching = [(k, m, g) for k, (m, g) in enumerate(listed, 1)
                    if (not colours or m.colour in colours) and (not counts or m.count in counts)]
        for k, move, gain in matching[:LIST_LIMIT]:
            joker = " (joker)" if move.joker_cost == 1 else (" (2 jokers)" if move.joker_cost == 2 else "")
            self.say(f"{k:>3}  {move}   {gain:+d} now{joker}")
            shown += 1
        if len(matching) > shown:
            self.say(f"... {len(matching) - shown} more; narrow it, e.g. 'list b' or 'list y 3'")
        if not matching:
            self.say("no placement matches" if filters else "no placement is possible: pass (0)")

    def show_hint(self) -> None:
        """The three best choices: for the mission in a co-op game (missions/tactics.py),
        else by the hint bot's estimated final score (nochmal/bots/hints.py)."""
        try:
            if self.table.mission is not None:
                from nochmal.missions.tactics import mission_hint

                tips, what = mission_hint(self.table.mission, self.game.clone(), top=3), "value for the mission"
            else:
                from nochmal.bots.hints import hint  # numpy and the tuple weights: loaded on first use

                tips, what = hint(self.game.clone(), top=3), "estimated final score"
        except NochmalError as exc:
            self.say(f"no hint here: {exc}")
            return
        if not tips:
            self.say("no suggestion")
        for k, (move, value) in enumerate(tips, 1):
            self.say(f" hint {k}: {move}   ({what} {value:.2f})")

    def undo(self) -> bool:
        """Take back the last human choice (TableSession.undo) and say which."""
        taken = self.table.undo()
        if taken is None:
            self.say("nothing to undo")
            return False
        where = "the roll before" if taken.roll_before else "this roll"
        whose = "your" if self.label(taken.player) == "you" else f"{self.label(taken.player)}'s"
        self.say(f"took back {whose} '{taken.move}' in {where}")
        return True

    # --- the end ----------------------------------------------------------------------------
    def finish(self) -> None:
        g = self.game
        self.say("")
        self.say("game over", style="bold")
        for p in range(g.n_players):
            self.say(self.sheet_text(p, f"{self.label(p)}: {g.sheets[p].score()} points"))
        if g.mode is Mode.SOLO:
            s = g.sheets[0].score()
            self.say(f"score {s}: {rating(s)}", style="bold")
        elif g.mode is Mode.COMPETITIVE:
            names = " and ".join(self.label(p) for p in g.winners())
            self.say(f"{self.scores_line()}  ->  winner: {names}", style="bold")
        res = self.table.mission_outcome()
        if res is not None:
            self.say(res.text(), style="bold")

    def result(self) -> dict:
        """The outcome as data (for --json): the table's, and where it was saved."""
        data = self.table.result()
        rated = {"rating": data.pop("rating")} if "rating" in data else {}
        return {**data, "saved": self.save_path, **rated}
