"""One error taxonomy, used: library code raises the nochmal.errors class that says what went
wrong (docs/glossary.md, Errors), never a bare ValueError or a bare NochmalError.

The raises are read from the source by AST. The few that remain are listed below, each with
its reason; the list only shrinks (an entry that no longer occurs fails the test).
"""

from __future__ import annotations

import ast
from pathlib import Path

import nochmal
from nochmal import errors

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ("nochmal", "missions", "solver", "boards")  # pyproject.toml's package folders
BARE = {"ValueError", "NochmalError"}

# (file, function, error) -> why it stays
ALLOWED: dict[tuple[str, str, str], str] = {
    ("nochmal/bots/harness.py", "parse_seed_range", "ValueError"):
        "control flow: the except ValueError around it turns it into an OptionError",
    ("nochmal/puzzles.py", "parse_daily_range", "ValueError"):
        "control flow: the except ValueError around it turns it into an OptionError",
    ("nochmal/sheet.py", "letters_mask", "ValueError"):
        "a helper's contract: its callers turn the letter into a SheetError or PositionTextError",
    ("missions/coop.py", "record_mission", "NochmalError"):
        "GameRecord.replay turns it into a RecordError with the record's name in front; a "
        "RecordError raised here would lose that name",
    ("missions/coop.py", "record_game", "NochmalError"):
        "GameRecord.replay turns it into a RecordError with the record's name in front; a "
        "RecordError raised here would lose that name",
}


def bare_raises(root: Path, folders=LIBRARY) -> list[tuple[str, str, str, int]]:
    """(file, enclosing function, error name, line) of every ``raise ValueError``/``raise
    NochmalError``, called or not, under ``folders`` of ``root``."""
    out = []
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            out.extend((rel, *found) for found in _raises(ast.parse(path.read_text(encoding="utf-8"), rel)))
    return out


def _raises(tree: ast.AST, function: str = "<module>"):
    for node in ast.iter_child_nodes(tree):
        name = node.name if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(exc, ast.Name) and exc.id in BARE:
                yield name, exc.id, node.lineno
        yield from _raises(node, name)


def unlisted(found, allowed=ALLOWED) -> list[str]:
    return [f"{rel}:{line} ({function}) raises a bare {error}: raise the nochmal.errors class that says "
            f"what went wrong (docs/glossary.md)" for rel, function, error, line in found
            if (rel, function, error) not in allowed and (rel, "*", error) not in allowed]


# --- the real tree --------------------------------------------------------------------------
def test_library_code_raises_no_bare_value_error_or_nochmal_error():
    problems = unlisted(bare_raises(ROOT))
    assert not problems, "\n".join(problems)


def test_allowed_raises_still_exist():
    """A converted raise must leave ALLOWED (so the list only shrinks)."""
    found = bare_raises(ROOT)
    live = {(rel, fn, err) for rel, fn, err, _ in found} | {(rel, "*", err) for rel, _, err, _ in found}
    stale = [f"{key}: {why}" for key, why in ALLOWED.items() if key not in live]
    assert not stale, "converted, remove from ALLOWED: " + "; ".join(stale)


def test_every_error_class_is_a_nochmal_error_and_exported():
    classes = [c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, Exception)]
    assert all(issubclass(c, errors.NochmalError) for c in classes)
    core = {"NochmalError", "BoardError", "SheetError", "InvalidMoveError", "IllegalMoveError", "RecordError",
            "OptionError", "PositionTextError", "IllegalPositionError"}
    assert core <= set(nochmal.__all__)
    assert all(getattr(nochmal, name) is getattr(errors, name) for name in core)


def test_errors_that_replaced_a_value_error_are_still_one():
    """Code that caught the ValueError (the rooms' seat names, the CLI's --seat) still catches it."""
    for cls in (errors.SeatNameError, errors.WeightsError, errors.OptimaError, errors.SetupError,
                errors.InfeasibleError):
        assert issubclass(cls, ValueError) and issubclass(cls, errors.NochmalError)


def test_chance_and_terminal_are_members_of_an_enum_equal_to_their_numbers():
    from nochmal.game import CHANCE, TERMINAL, PlayerId

    assert CHANCE is PlayerId.CHANCE and TERMINAL is PlayerId.TERMINAL
    assert CHANCE == -1 and TERMINAL == -2 and CHANCE < 0 and TERMINAL < 0
    game = nochmal.Game(nochmal.load_board("classic"), players=1, mode=nochmal.Mode.SOLO)
    assert game.current_player() == CHANCE and game.current_player() is PlayerId.CHANCE


# --- the check itself, on a made-up tree ----------------------------------------------------
def _tree(tmp_path: Path, source: str) -> Path:
    (tmp_path / "nochmal").mkdir()
    (tmp_path / "nochmal" / "mod.py").write_text(source, encoding="utf-8")
    return tmp_path


def test_a_bare_raise_added_back_is_found(tmp_path):
    root = _tree(tmp_path, "from nochmal.errors import NochmalError, SeedError\n"
                           "def check(seed):\n"
                           "    if seed < 0:\n        raise ValueError('negative')\n"
                           "    if seed > 9:\n        raise NochmalError('too big')\n"
                           "    if seed == 5:\n        raise SeedError('five')\n"
                           "    raise ValueError\n")
    found = bare_raises(root, ("nochmal",))
    assert [(fn, err, line) for _, fn, err, line in found] == [
        ("check", "ValueError", 4), ("check", "NochmalError", 6), ("check", "ValueError", 9)]
    assert len(unlisted(found)) == 3
    assert unlisted(found, {("nochmal/mod.py", "check", "ValueError"): "why",
                            ("nochmal/mod.py", "*", "NochmalError"): "why"}) == []
