"""The bot benchmark's modes as a type: BenchMode, with the stored text unchanged,
so the bots stores already on disk still resume and report."""

from __future__ import annotations

import json
import sqlite3

import pytest
from typer.testing import CliRunner

from nochmal.batch.report import bots_bench
from nochmal.batch.store import OK, Store, check_store
from nochmal.board import load_board
from nochmal.bots.harness import BenchMode, run_bench
from nochmal.cli import app
from nochmal.cli.bot_cmds import bots_campaign
from nochmal.errors import OptionError
from nochmal.modes import Mode

cli = CliRunner()
# the campaign settings as the string-mode code wrote them into a store (plain JSON text)
OLD_TABLE_CAMPAIGN = {"board": "classic", "bots": ["greedy", "random"], "mode": "table", "players": 2}


def test_bench_modes_keep_their_text_and_name_their_game_mode():
    assert [m.value for m in BenchMode] == ["solo", "table"]
    assert json.dumps({"mode": BenchMode.TABLE}) == '{"mode": "table"}'
    assert BenchMode.SOLO.game_mode is Mode.SOLO and BenchMode.TABLE.game_mode is Mode.COMPETITIVE
    assert BenchMode.parse("table") is BenchMode.TABLE
    with pytest.raises(OptionError, match="^--mode 'race': use solo or table$"):
        BenchMode.parse("race")


def test_the_campaign_of_a_mode_matches_a_store_written_with_the_text():
    """A store written before the enum resumes: the campaign settings are the same JSON."""
    campaign = bots_campaign("greedy,random", "table", 2, "classic")
    assert campaign == OLD_TABLE_CAMPAIGN and type(campaign["mode"]) is str
    assert bots_campaign("greedy", "solo", 3, "classic")["players"] == 1


def _old_table_store(path):
    st = Store.open(path, "bots", OLD_TABLE_CAMPAIGN)
    for seed, (g, r) in ((7, (30.0, 10.0)), (8, (24.0, 12.0))):
        per_bot = {name: {"score": score, "win": win, "games": 2, "decisions": 60, "seconds": 0.6,
                          "cpu_seconds": 0.5}
                   for name, score, win in (("greedy", g, 1.0), ("random", r, 0.0))}
        st.record(f"seed={seed}", {**OLD_TABLE_CAMPAIGN, "seed": seed}, OK, {"bots": per_bot}, None, 0.1, "w", 1)
    st.close()


def test_a_store_written_with_the_mode_text_resumes_and_reports(tmp_path):
    path = tmp_path / "old.sqlite"
    _old_table_store(path)
    con = sqlite3.connect(path)
    stored = dict(con.execute("SELECT key, value FROM meta"))["settings"]
    con.close()
    assert '"mode":"table"' in stored
    check_store(path, "bots", bots_campaign("greedy,random", "table", 2, "classic"))  # no StoreError
    st = Store.read(path)
    try:
        bench, _ = bots_bench(st)
    finally:
        st.close()
    assert bench.mode is BenchMode.TABLE
    assert [f.win_rate for f in bench.bots] == [1.0, 0.0]
    result = cli.invoke(app, ["batch", "report", str(path), "--json"])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["bench"]["mode"] == "table" and data["bench"]["bots"][0]["mean_score"] == 27.0
    table = cli.invoke(app, ["batch", "report", str(path)])
    assert table.exit_code == 0 and "table of 2, seats rotated" in table.stdout, table.stderr


def test_a_store_with_a_mode_we_do_not_know_is_one_line(tmp_path):
    path = tmp_path / "odd.sqlite"
    Store.open(path, "bots", {**OLD_TABLE_CAMPAIGN, "mode": "duel"}).close()
    result = cli.invoke(app, ["batch", "report", str(path)])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [f"error: {path}: settings.mode 'duel': use solo or table"]


def test_run_bench_takes_the_member_or_its_stored_text():
    board = load_board("classic")
    by_member = run_bench(board, ["greedy"], BenchMode.SOLO, (3, 4))
    by_text = run_bench(board, ["greedy"], "solo", (3, 4))
    assert by_member.mode is by_text.mode is BenchMode.SOLO
    assert by_member.per_seed == by_text.per_seed
    with pytest.raises(OptionError, match="mode 'race'"):
        run_bench(board, ["greedy"], "race", (3, 4))
