"""The n-tuple residual: its entries, its file, the TD trainer's rule and its games.

benchmarks/train_tuples.py is loaded by file path on purpose: it is build tooling that
regenerates the shipped tables offline (about an hour), which no command and no module of
the package runs, so its self-play loop and TD step stay out of the installed package. What
the package ships and uses (the layout, the tables, their file and phases) is
nochmal/bots/tuples.py, imported as usual; these tests keep the trainer honest (its games
are the bot's games, its update closes the TD error), so retraining stays valid.
"""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nochmal.bots.registry import make_agent
from nochmal.board import load_board
from nochmal.bots import tuples
from nochmal.bots.tuples import PHASES, TupleResidual, phase_of, shipped_residual
from nochmal.cache import clear_caches
from nochmal.dice import seeded_roll
from nochmal.errors import NochmalError
from nochmal.game import Game

BOARD = load_board("classic")
SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "train_tuples.py"


def load_trainer():
    """benchmarks/train_tuples.py as a module (research tooling: see the module docstring)."""
    spec = importlib.util.spec_from_file_location("train_tuples", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def random_tables(seed: int) -> TupleResidual:
    res = TupleResidual.zeros(BOARD)
    rng = random.Random(seed)
    res.tables = [[rng.uniform(-1, 1) for _ in table] for table in res.tables]
    return res


RANDOM = random_tables(7)


def pattern_by_hand(crossed: int, column: int) -> int:
    """Bit r set when row r + 1 of the column is crossed (from the grid, not the layout)."""
    return sum(1 << r for r in range(7) if crossed >> BOARD.bit_of[r * BOARD.cols + column] & 1)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, (1 << 105) - 1), st.integers(0, (1 << 105) - 1), st.integers(0, 8), st.integers(1, 29))
def test_value_is_the_sum_of_the_sheets_entries(crossed, anchored, jokers, rolls_left):
    table = RANDOM.tables[phase_of(rolls_left)]
    idx = RANDOM.layout.indices(crossed, anchored, jokers)
    assert len(idx) == len(set(idx)) == 15 + len(BOARD.blocks) + 1 + 14
    direct = sum(table[i] for i in idx)
    assert RANDOM.value(crossed, anchored, rolls_left) + RANDOM.joker(rolls_left, jokers) == pytest.approx(direct)
    assert RANDOM.layout.column_patterns(crossed) == [pattern_by_hand(crossed, c) for c in range(15)]


def test_entries_by_hand_on_a_small_sheet():
    crossed = BOARD.mask_of(["H1", "H2", "H7"])
    lay = RANDOM.layout
    idx = lay.indices(crossed, BOARD.start_mask, 5)
    assert idx[7] == 7 * 128 + 0b1000011  # column H: rows 1, 2 and 7
    assert idx[6] == 6 * 128  # column G untouched
    assert lay.joker_base + 5 in idx
    assert lay.pair_base + 6 * 16384 + 0 + 128 * 0b1000011 in idx  # the pair G|H


def test_no_residual_once_no_roll_is_to_come():
    assert RANDOM.value(BOARD.mask_of(["H1"]), BOARD.start_mask, 0) == 0.0
    assert RANDOM.joker(0, 3) == 0.0
    assert [phase_of(r) for r in (1, 5, 6, 25, 26, 29, 40)] == [0, 0, 1, 4, 5, 5, PHASES - 1]


def test_file_round_trip_and_errors(tmp_path):
    path = tmp_path / "t.npz"
    RANDOM.save(path)
    back = TupleResidual.load(path, BOARD)
    x = BOARD.mask_of(["H1", "H2", "G2"])
    assert back.value(x, BOARD.start_mask, 12) == pytest.approx(RANDOM.value(x, BOARD.start_mask, 12), abs=1e-5)
    with pytest.raises(NochmalError, match="another sheet"):
        TupleResidual.load(path, load_board("red"))
    bad = tmp_path / "bad.npz"
    bad.write_text("not numpy")
    with pytest.raises(NochmalError, match="bad.npz: not an n-tuple weights file"):
        TupleResidual.load(bad, BOARD)
    cut = tmp_path / "cut.npz"
    cut.write_bytes(path.read_bytes()[:2000])  # a truncated download
    with pytest.raises(NochmalError, match="cut.npz: not an n-tuple weights file"):
        TupleResidual.load(cut, BOARD)
    arr = tmp_path / "arr.npy"
    np.save(arr, np.zeros(3))  # a numpy file, but not an archive
    with pytest.raises(NochmalError, match="arr.npy: not an n-tuple weights file"):
        TupleResidual.load(arr, BOARD)


def test_shipped_tables_fit_the_classic_sheet_only():
    res = shipped_residual(BOARD)
    assert res is not None and any(v != 0 for v in res.tables[0])
    assert shipped_residual(load_board("red")) is None


def test_shipped_file_is_read_once_per_process(monkeypatch):
    reads = []
    real_load = np.load
    monkeypatch.setattr(tuples.np, "load", lambda *a, **k: reads.append(a[0]) or real_load(*a, **k))
    clear_caches("bots.tuples.")  # the file and its fitted tables: read again
    try:
        assert tuples.shipped_residual(BOARD) is not None
        assert tuples.shipped_residual(load_board("red")) is None
        assert tuples.shipped_residual(BOARD) is not None
    finally:
        clear_caches("bots.tuples.")
    assert len(reads) == 1


def test_residual_only_in_solo():
    agent = make_agent("ntuple", 1)
    solo = Game(BOARD, 1, mode="solo")
    race = Game(BOARD, 2)
    ev = agent.engine.evaluator(solo)
    assert ev.context(solo, 0, 10).tuples is not None
    assert ev.context(race, 0, 10).tuples is None


def engine_game(bot: str, seed: int) -> tuple[list[tuple[int, int]], int]:
    """(crossed mask and jokers left after every decision, final score) of ``bot`` through
    the engine, which checks every move."""
    game = Game(BOARD, 1, mode="solo")
    agent = make_agent(bot, seed)
    sheets = []
    while not game.is_terminal():
        if game.current_player() < 0:
            game.apply_roll(seeded_roll(seed, game.rolls_done, 2))
            continue
        game.apply_move(agent.choose(game))
        sheets.append((game.sheets[0].crossed, game.sheets[0].jokers_left))
    return sheets, game.scores()[0]


@pytest.mark.parametrize("bot,seed", [("heuristic", 3), ("heuristic", 4), ("ntuple", 5)])
def test_self_play_makes_the_bots_moves(bot, seed):
    """The trainer's games are move for move the engine's games of the bot it trains
    (all-zero tables: the heuristic; the shipped tables: ntuple)."""
    tables = TupleResidual.zeros(BOARD) if bot == "heuristic" else shipped_residual(BOARD)
    trace: list = []
    score = load_trainer().SelfPlay(tables).play(seed, trace=trace)
    sheets, final = engine_game(bot, seed)
    assert [(X, jl) for _v, X, _A, jl, _r in trace] == sheets
    assert score == final


def test_td_step_one_moves_the_last_after_state_onto_the_final_value():
    tt = load_trainer()
    res = TupleResidual.zeros(BOARD)
    sp = tt.SelfPlay(res)
    trace: list = []
    final = sp.play(11, step=1.0, trace=trace)
    assert trace[-1][4] == 0 and trace[-1][0] == final  # the last decision is valued exactly
    v, X, A, jl, r = trace[-2]
    ctx = sp.contexts[r]
    after = sp.ev.base_value(X, A, ctx) + sp.ev.joker_value(ctx, jl)
    assert after == pytest.approx(final)  # the update closed the whole TD error
    assert v != pytest.approx(final)  # ... which was not zero before


def test_training_is_deterministic_and_written_atomically(tmp_path, capsys):
    tt = load_trainer()
    outs = []
    for k in range(2):
        out = tmp_path / f"w{k}.npz"
        assert tt.main(["--stages", "3:0.05", "--no-select", "--out", str(out), "--report", "3"]) == 0
        outs.append(TupleResidual.load(out, BOARD).tables)
    assert outs[0] == outs[1] and any(v for t in outs[0] for v in t)
    assert "stage 1 (0.05): 3/3 games" in capsys.readouterr().out
    assert not [p for p in tmp_path.iterdir() if p.suffix == ".tmp"]


@pytest.mark.parametrize("argv,message", [
    (["--stages", "ten:0.1"], "is not GAMES:STEP"),
    (["--stages", "10:2"], "0 < step <= 1"),
    (["--stages", "10:0.1", "--first-seed", "100100"], "overlap the held-out range"),
])
def test_trainer_rejects_bad_options(argv, message, capsys, tmp_path):
    tt = load_trainer()
    assert tt.main(argv + ["--out", str(tmp_path / "w.npz")]) == 2
    assert message in capsys.readouterr().err


def _cut_board(keep_rows: int, extra: list[str] = ()):
    """The classic sheet with only its first ``keep_rows`` rows (plus ``extra`` rows), unchecked."""
    from nochmal.board import parse_board_text

    text = (Path(__file__).resolve().parents[2] / "boards" / "classic.toml").read_text()
    start, end = text.index("grid = [\n") + len("grid = [\n"), text.index("]\n", text.index("grid = ["))
    rows = [line for line in text[start:end].splitlines() if line.strip()][:keep_rows]
    rows += [f'    "{r}",' for r in extra]
    return parse_board_text(text[:start] + "\n".join(rows) + "\n" + text[end:], f"{keep_rows}-rows.toml", strict=False)


def test_layout_sizes_follow_the_board_rows():
    """The column groups are named from the board's height (no 7-row constants): on a 6-row
    sheet a column has 64 patterns, and every entry matches a direct reading of the cells."""
    board = _cut_board(6)
    lay = tuples.TupleLayout(board)
    assert (lay.rows, lay.column_entries, lay.pair_entries) == (6, 64, 64 * 64)
    rng = random.Random(4)
    for _ in range(30):
        crossed = rng.getrandbits(board.n_cells)
        want = [sum(1 << r for r in range(6) if crossed >> board.bit_of[r * board.cols + c] & 1)
                for c in range(board.cols)]
        assert lay.column_patterns(crossed) == want
        idx = lay.indices(crossed, 0, 0)
        assert idx[:board.cols] == [c * 64 + p for c, p in enumerate(want)]
        assert idx[-1] == lay.pair_base + (board.cols - 2) * 64 * 64 + want[-2] + 64 * want[-1]
        assert max(idx) < lay.size


def test_layout_refuses_a_sheet_taller_than_its_packing_in_one_line():
    board = _cut_board(7, ["gggyyyygbbboyyy", "ogygyyoorbboogg"])
    with pytest.raises(NochmalError, match=r"^n-tuple layout: a column packs into 8 bits, so boards of 1\.\.8 rows; this one has 9$"):
        tuples.TupleLayout(board)
