"""Mission-aware hints and bot seats in co-op games (missions/tactics.py).

Checked against facts read straight off the board (which cells are stars, which are
crossed on which sheet), not against the ranking's own numbers.
"""

from __future__ import annotations

import pytest

from nochmal.agents import GreedyAgent
from nochmal.dice import Roll, seeded_roll
from nochmal.game import Game
from nochmal.missions import coop_game, load_mission
from nochmal.missions.tactics import MissionAgent, mission_hint, rank_moves
from nochmal.modes import Mode
from nochmal.position import Position
from nochmal.sheet import Sheet

STAR_HUNT = load_mission("star-hunt")


def _crosses_open_star(game, move) -> bool:
    """Whether ``move`` crosses a star no sheet of the team has crossed yet."""
    if move.is_pass:
        return False
    board = game.board
    done = 0
    for s in game.sheets:
        done |= s.crossed
    return bool(board.mask_of(move.cells) & board.star_mask & ~done)


@pytest.mark.parametrize("seed", range(12))
def test_star_hunt_top_hint_crosses_a_star_when_one_is_crossable(seed):
    game = coop_game(STAR_HUNT, "normal", 2)
    for t in range(3):  # a few rolls in, so sheets differ and stars sit at various distances
        game.apply_roll(seeded_roll(seed, t, 3))
        while game.current_player() >= 0:
            if t == 2 and game.current_player() == 1:
                break
            game.apply_move(MissionAgent(STAR_HUNT, GreedyAgent()).choose(game))
        if game.current_player() >= 0:
            break
    assert game.current_player() >= 0
    crossable = any(_crosses_open_star(game, m) for m in game.legal_moves())
    top = mission_hint(STAR_HUNT, game, top=3)
    assert top
    assert _crosses_open_star(game, top[0][0]) == crossable
    values = [v for _, v in top]
    assert values == sorted(values, reverse=True)


def _teammate_position(star_crossed_elsewhere: bool):
    """Player 2 (index 1) to move with one green die pair: H1 (a star) or I4 (next to the
    H4 they crossed) are the green single cells they can cross. Set up through the API
    (Game.from_position, validated): one roll done, so roll 2 is player 2's."""
    fresh = coop_game(STAR_HUNT, "normal", 2)  # the mission's roll limit and win check
    board = fresh.board
    sheets = (Sheet.from_cells(board, ["H1"] if star_crossed_elsewhere else ["H2"]), Sheet.from_cells(board, ["H4"]))
    position = Position(Mode.COOP, sheets, rolls_done=1, roll_limit=fresh.roll_limit,
                        roll=Roll(("g", "g", "g"), ("1", "1", "1")))
    game = Game.from_position(position, stop_after_roll=fresh.stop_after_roll)
    assert game.current_player() == 1 and game.sheets[0].crossed != game.sheets[1].crossed
    options = {m.cells for m in game.legal_moves() if not m.is_pass and not m.joker_cost}
    assert {("H1",), ("I4",)} <= options
    return game


def test_teammate_bot_leaves_a_star_another_sheet_has():
    game = _teammate_position(star_crossed_elsewhere=True)
    # the score-maximising bot takes the star for its own sheet's points ...
    assert GreedyAgent().choose(game).cells == ("H1",)
    # ... the mission-aware seat does not: the team already has that star
    move = MissionAgent(STAR_HUNT, GreedyAgent()).choose(game)
    assert "H1" not in move.cells
    assert not move.is_pass
    assert "H1" not in mission_hint(STAR_HUNT, game, top=1)[0][0].cells


def test_teammate_bot_takes_a_star_the_team_still_needs():
    game = _teammate_position(star_crossed_elsewhere=False)
    assert MissionAgent(STAR_HUNT, GreedyAgent()).choose(game).cells == ("H1",)


def test_equal_moves_go_to_the_seats_own_bot():
    mission = load_mission("team-target")
    game = coop_game(mission, "normal", 2)
    game.apply_roll(seeded_roll(5, 0, 3))
    ranked = rank_moves(mission, game)
    top_value, top_move = ranked[0]
    tied = [m for v, m in ranked[1:] if v == top_value and m.joker_cost == top_move.joker_cost]
    assert tied  # several moves are equally good for the score here
    again = rank_moves(mission, game, preferred=tied[-1])
    assert again[0] == (top_value, tied[-1])
    worse = next(m for v, m in ranked if v < top_value)
    assert rank_moves(mission, game, preferred=worse)[0][0] == top_value  # never over a better move


def test_play_hint_in_a_coop_game_is_the_mission_hint():
    """`hint` at the terminal in a co-op game gives the mission-aware ranking."""
    from typer.testing import CliRunner

    from nochmal.cli import app

    res = CliRunner().invoke(app, ["play", "--mission", "star-hunt", "--difficulty", "easy", "--seat", "human:Ann",
                                   "--seat", "greedy", "--seed", "3"], input="hint\nquit\n")
    assert "Traceback" not in res.output
    game = coop_game(STAR_HUNT, "easy", 2)
    game.apply_roll(seeded_roll(3, 0, 3))
    assert game.current_player() == 0
    best = mission_hint(STAR_HUNT, game, top=1)[0][0]
    assert _crosses_open_star(game, best)  # a star is crossable on this roll
    line = next(x for x in res.output.splitlines() if "hint 1:" in x)
    assert str(best) in line


def test_mission_hint_needs_a_decision():
    from nochmal.errors import NochmalError

    with pytest.raises(NochmalError, match="no decision"):
        mission_hint(STAR_HUNT, coop_game(STAR_HUNT, "normal", 2))


def test_web_hint_in_a_coop_game_is_the_mission_hint(tmp_path):
    from fastapi.testclient import TestClient

    from nochmal.web import create_app

    with TestClient(create_app(tmp_path)) as client:
        state = client.post("/api/games", json={"kind": "play", "seats": ["human", "greedy"], "mission": "star-hunt",
                                                "difficulty": "easy", "seed": 3}).json()
        hints = client.get(f"/api/games/{state['id']}/hint").json()["hints"]
    game = coop_game(STAR_HUNT, "easy", 2)
    game.apply_roll(seeded_roll(3, 0, 3))
    assert hints[0]["move"] == str(mission_hint(STAR_HUNT, game, top=1)[0][0])
