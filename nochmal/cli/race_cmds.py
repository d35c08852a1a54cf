"""``nochmal analyse`` for a competitive record: per seat, the best that player could have
reached with the other players' moves as they were, and the points each roll lost
(nochmal.solver.race). Called by the analyse command (nochmal/cli/solver_cmds.py); not a
command group of its own."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from nochmal.cli.common import console, emit_json, err_console
from nochmal.record import GameRecord


def seat_text(result) -> str:
    """The headline of one seat: actual score and the best, proven or as an interval."""
    if result.plan is None:
        done = min((x.roll for x in result.losses), default=None)
        return (f"seat {result.seat + 1} ({result.name}): actual score {result.actual_score}; interrupted before "
                f"the best from roll 1 was found" + (f" (rolls {done}.. done)" if done else ""))
    if result.optimum_proven:
        best = f"{result.optimum} (proven)"
    elif result.optimum_bound is not None:
        best = f"at least {result.optimum}, at most {result.optimum_bound} (not proven)"
    else:
        best = f"at least {result.optimum} (no bound proven)"
    text = (f"seat {result.seat + 1} ({result.name}): actual score {result.actual_score}; best possible with "
            f"these dice and the others' moves {best}")
    return text + ("; interrupted" if result.interrupted else "")


def analyse_competitive(rec: GameRecord, path: Path, seat: int | None, time_limit: float, workers: int,
                        top: int, as_json: bool, best_only: bool, reporter_factory) -> None:
    """Analyse one seat (``seat``, 1-based) or every seat of a competitive record; Ctrl-C
    stops the analysis, prints what is done, marked interrupted, and exits 130. ``reporter_factory``:
    the analyse command's progress line (solver_cmds.ProgressLine, passed in to keep the
    import one way)."""
    from nochmal.solver.interrupt import SigintStop
    from nochmal.solver.race import analyse_seat  # OR-Tools: loaded only to plan

    n = len(rec.players)
    if seat is not None and not 1 <= seat <= n:
        raise typer.BadParameter(f"the record has seats 1..{n}, not {seat}", param_hint="'--seat'")
    seats = [seat - 1] if seat is not None else list(range(n))
    results = []
    # one Ctrl-C watch for all seats: a press between two seats stops too, with the tables so far
    with reporter_factory("analysing") as reporter, SigintStop() as stop:
        for s in seats:
            if stop.interrupted:
                break
            def on_solve(roll: int, plan, s: int = s) -> None:
                # the next solve starts from another position: its figures start afresh
                reporter.reset(f"analysing seat {s + 1} (roll {roll} done: best {plan.total}, {plan.status})")

            reporter.reset(f"analysing seat {s + 1}")
            result = analyse_seat(rec, s, time_limit=time_limit, workers=workers, source=str(path),
                                  per_roll=not best_only, on_solve=on_solve, progress=reporter, stop=stop)
            results.append(result)
            if result.interrupted:
                break
    interrupted = stop.interrupted or any(r.interrupted for r in results)
    if as_json:
        emit_json({"record": str(path), "mode": "competitive", "players": len(rec.players),
                   "interrupted": interrupted, "seats": [r.to_json() for r in results]})
    else:
        _print_seats(results, path, top, interrupted)
    if interrupted:  # as the solo and co-op analyses do: what is done is printed, exit 130
        err_console.print("interrupted", markup=False)
        raise typer.Exit(130)


def _print_seats(results: list, path: Path, top: int, interrupted: bool) -> None:
    """Per seat the table of points lost per roll and the headline."""
    for r in results:
        if r.losses:
            rows = sorted(r.losses, key=lambda x: (-x.loss, x.roll))[:top] if top else r.losses
            # the heading on its own line: a table title would wrap to the table's width
            console.print(f"seat {r.seat + 1} ({r.name}): points lost per roll ({path})", soft_wrap=True)
            table = Table()
            for col in ("roll", "dice", "open", "played", "best", "lost", "proven"):
                table.add_column(col)
            for x in rows:
                high = "?" if x.loss_high is None else x.loss_high
                lost = str(x.loss) if x.proven else f"{x.loss} (in {x.loss_low}..{high})"
                table.add_row(str(x.roll), x.dice, r.open_dice[x.roll - 1], x.actual, x.best, lost,
                              "yes" if x.proven else "bound")
            console.print(table)
        console.print(seat_text(r), soft_wrap=True)
    if interrupted:
        console.print("interrupted: the seats and rolls above are the ones done", soft_wrap=True)
