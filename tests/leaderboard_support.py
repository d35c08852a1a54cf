"""Finished puzzles for the leaderboard tests (tests/web/test_leaderboard_*.py, tests/cli): a
bot's game as a human's record, or played through the web API as the page plays it."""

from __future__ import annotations

import httpx

import nochmal as nm
from nochmal.bots import make_agent
from nochmal.dice import seeded_roll
from nochmal.game import Game


def human_record(seed: int, bot: str = "greedy", open_: bool = False) -> dict:
    """A finished puzzle of ``seed`` played by ``bot``, its seat a human's (as the page saves it)."""
    record = nm.play_solo(nm.load_board("classic"), make_agent(bot), seed=seed)
    data = record.to_json()
    data["players"] = ["human"]
    data["extra"] = {"puzzle": True, "open": open_}
    return data


def finish_puzzle(base_url: str, seed: int, bot: str = "greedy") -> str:
    """A puzzle game of the server, played to its end with ``bot``'s moves; its id."""
    game = Game(nm.load_board("classic"), 1, mode="solo")
    agent = make_agent(bot)
    with httpx.Client(base_url=base_url, timeout=60) as client:
        resp = client.post("/api/games", json={"kind": "puzzle", "seed": seed}, params={"svg": "false"})
        resp.raise_for_status()
        gid = resp.json()["id"]
        for k in range(30):
            game.apply_roll(seeded_roll(seed, k, 2))
            move = agent.choose(game)
            client.post(f"/api/games/{gid}/move", json={"move": str(move)}, params={"svg": "false"}).raise_for_status()
            game.apply_move(move)
    return gid
