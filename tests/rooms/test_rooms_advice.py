"""Who should do what, as a player says it (docs/rooms.md, *Who should do what*;
nochmal/web/rooms/advice.py): names and items in words, every player something to aim for,
advice for a score target too; the split's technical words only in the ``team`` field."""

from __future__ import annotations

from nochmal.web.rooms.model import RoomSpec, SheetState, board_of
from nochmal.web.rooms.status import full_status, quick_status
from nochmal.web.rooms.store import Room, Seat

NAMES = ["Anna", "Ben", "Cleo", "Dan"]
TECHNICAL = ("cp-sat", "greedy", "lower bound", "subset", "split", "bounds")


def room(mission: str, cells: list[list[str]], rolls_used: int = 5) -> Room:
    """A mission room whose seats (Anna, Ben, ...) have crossed ``cells``."""
    spec = RoomSpec("mission", "classic", len(cells), mission, "normal")
    board = board_of(spec)
    seats = tuple(Seat(k, NAMES[k], SheetState(board.mask_of(c)), 1) for k, c in enumerate(cells))
    return Room("abcdefghjk", spec, rolls_used, 1, 0.0, 0.0, seats)


def test_nobody_is_left_idle_the_work_is_shared():
    """Colour fan, four sheets with H1-H4: the split gives Anna nothing (Cleo takes green and
    orange); the advice hands green to Anna, and the team needs no more rolls for it."""
    status = full_status(room("colour-fan", [["H1", "H2", "H3", "H4"]] * 4))
    split = status["team"]["split"]
    assert split["sheets"][0]["items"] == []  # the split alone leaves Anna idle
    texts = [a["text"] for a in status["advice"]]
    assert texts == ["Anna: colour green, about 10 rolls", "Ben: colour yellow, about 12 rolls",
                     "Cleo: colour orange, about 11 rolls", "Dan: colours blue and red, about 15 rolls"]
    assert max(a["rolls"] for a in status["advice"]) == split["rolls_upper"]
    assert not any(word in text.lower() for text in texts for word in TECHNICAL)


def test_a_player_with_nothing_to_give_up_races_for_an_item():
    """Two sheets, one colour left, on Ben's share: Anna races for it."""
    board = board_of(RoomSpec("mission", "classic", 2, "colour-fan", "normal"))
    done = [c for colour in "ygbr" for c in board.cells_of(board.colour_mask[colour])]
    status = full_status(room("colour-fan", [done, ["H4"]], rolls_used=30))
    [anna, ben] = status["advice"]
    assert status["team"]["split"]["sheets"][0]["items"] == [] or status["team"]["split"]["sheets"][1]["items"] == []
    idle, busy = (anna, ben) if anna["helps"] else (ben, anna)
    assert idle["helps"] == busy["name"] and idle["items"] == busy["items"] == ["colour orange"]
    assert idle["text"].endswith("(the first to finish it counts)")


def test_lockstep_says_columns_and_names():
    status = full_status(room("lockstep", [["H4"], []], rolls_used=1))
    assert [a["text"] for a in status["advice"]] == ["Anna: columns G, H and I, about 11 rolls",
                                                     "Ben: columns G, H and I, about 11 rolls"]
    assert status["objectives"][0]["missing"] == ["Anna: G, H, I", "Ben: G, H, I"]  # names, not sheet numbers


def test_a_score_target_gets_advice_in_points():
    status = full_status(room("team-target", [["H4"], ["H1", "H2"]], rolls_used=2))
    assert len(status["advice"]) == 2
    for aim, name in zip(status["advice"], ("Anna", "Ben")):
        assert aim["items"] and aim["points"] > 0 and aim["rolls"] <= status["rolls_left"]
        assert aim["text"].startswith(f"{name}: ") and f"about {aim['points']} points in {aim['rolls']} roll" in aim["text"]
    # Ben's H1 star is crossed already: it is not among his aims
    assert "star H1" in status["advice"][0]["items"] and "star H1" not in status["advice"][1]["items"]


def test_missing_parts_name_the_seats_whatever_the_lines_words(monkeypatch):
    """The room names a seat from the objectives' structured missing parts, not by reading the
    CLI's words ("sheet 2: ..."): lines worded otherwise (another language) still name Ben."""
    import nochmal.missions.objectives as objectives

    worded = objectives.ObjectiveStatus

    def other_words(*args):
        status = worded(*args)
        status.missing = [f"Blatt {p + 1}: {rest}" if p is not None else rest for p, _, rest in status.missing_parts]
        return status

    monkeypatch.setattr(objectives, "ObjectiveStatus", other_words)
    status = quick_status(room("lockstep", [["H1"], []]))
    assert status["objectives"][0]["missing"] == ["Anna: G, H, I", "Ben: G, H, I"]
    status = quick_status(room("lockstep", [[f"{c}{r}" for c in "GHI" for r in range(1, 8)], ["H1"]], rolls_used=20))
    assert status["objectives"][0]["missing"] == ["Ben: G, H, I"]
