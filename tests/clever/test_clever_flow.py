"""Clever 4ever's turn structure and bonus chains, worked by hand (docs/clever.md): throws,
the silver tray, passive picks, the +1 window, re-rolls, polishing, round bonuses, rounds by
player count, and "?" chains resolved in the order the player chooses."""

import pytest

from nochmal.clever import Action, CleverGame, CleverRules, Sheet, Throw
from nochmal.clever.errors import IllegalActionError, InvalidActionError
from nochmal.errors import IllegalMoveError, InvalidMoveError
from nochmal.game import CHANCE, TERMINAL


def throw(game, **faces):
    """Throw the dice the game asks for; unnamed dice show 1."""
    game.apply_roll(Throw(tuple((d, faces.get(d, 1)) for d in game.dice_to_throw())))


def act(game, text):
    game.apply_move(Action.parse(text))


def where(game):
    return {d: w for d, (_, w) in game.dice().items()}


def test_a_take_puts_every_lower_die_on_the_tray_and_equal_dice_stay():
    game = CleverGame(2)
    assert game.current_player() == CHANCE and game.dice_to_throw() == ("white", "yellow", "blue", "grey", "green", "pink")
    throw(game, white=2, yellow=4, blue=4, grey=6, green=3, pink=1)
    act(game, "take yellow 4 yellow:bottom")
    assert where(game) == {"white": "tray", "yellow": "field", "blue": "pool", "grey": "pool", "green": "tray",
                           "pink": "tray"}
    assert game.dice_to_throw() == ("blue", "grey")
    throw(game, blue=5, grey=2)
    act(game, "pass")  # the throw is lost, no die moves
    assert game.dice_to_throw() == ("blue", "grey") and where(game)["grey"] == "pool"
    throw(game, blue=3, grey=2)
    act(game, "take blue 3 blue:2")  # row 3 (the blue die), column 2 (the white die, on the tray)
    assert game.sheets[0].blue == 1 << (2 * 6 + 1)
    assert where(game)["grey"] == "tray"  # the third pick: the die still in play goes on the tray
    # three dice taken: the +1 window is skipped (no +1 unlocked), the passive seat picks
    assert game.phase == "passive" and game.current_player() == 1
    assert {m.die for m in game.legal_moves() if m.kind == "take"} == {"white", "grey", "green", "pink"}


def test_the_active_turn_ends_early_when_no_die_is_left():
    game = CleverGame(2)
    throw(game, white=1, yellow=6, blue=1, grey=1, green=1, pink=1)
    act(game, "take yellow 6 yellow:bottom")
    assert game.phase == "passive" and game.actor == 1 and game.picks == 1


def test_the_passive_player_takes_a_tray_die_or_passes_and_seats_rotate():
    game = CleverGame(3)
    assert game.rounds == 5
    throw(game, white=1, yellow=6, blue=1, grey=1, green=2, pink=1)
    act(game, "take yellow 6 yellow:top")
    assert game.current_player() == 1
    with pytest.raises(IllegalActionError, match="not available"):
        act(game, "take yellow 6 yellow:top")  # on the active player's field, not the tray
    act(game, "take green 2 green:low")
    assert game.current_player() == 2
    act(game, "pass")
    assert game.active == 1 and game.current_player() == CHANCE  # the next active turn
    assert game.sheets[1].green == ((2,), ()) and game.sheets[2] == game.sheets[2].__class__(unlocked=(1, 0, 0))


def test_solo_passive_throw_puts_the_three_lowest_on_the_tray_ties_in_die_order():
    game = CleverGame(1)
    throw(game, yellow=6)
    act(game, "take yellow 6 yellow:bottom")  # every other die is lower: the turn ends
    assert game.current_player() == CHANCE and game.throw_key() == "1.0.p"
    throw(game, white=4, yellow=2, blue=4, grey=4, green=5, pink=1)
    assert where(game) == {"white": "tray", "yellow": "tray", "blue": "field", "grey": "field", "green": "field",
                           "pink": "tray"}
    act(game, "take pink 1 pink")
    # round 2 starts with its +1 unlocked (no choice to make): the dice are thrown next
    assert game.round == 2 and game.current_player() == CHANCE and game.sheets[0].unlocked == (1, 1, 0)


def play_to_the_end_with_passes(game):
    while not game.is_terminal():
        if game.is_chance_node():
            throw(game, white=6, yellow=6, blue=6, grey=6, green=6, pink=6)
            continue
        moves = game.legal_moves()
        skip = [m for m in moves if m.kind in ("pass", "done", "forfeit")]
        game.apply_move(skip[0] if skip else moves[0])


@pytest.mark.parametrize("players, rounds", [(1, 6), (2, 6), (3, 5), (4, 4)])
def test_rounds_by_player_count(players, rounds):
    game = CleverGame(players)
    seen = set()
    while not game.is_terminal():
        seen.add((game.round, game.active))
        if game.is_chance_node():
            throw(game, white=6, yellow=6, blue=6, grey=6, green=6, pink=6)
        else:
            moves = game.legal_moves()
            game.apply_move(next((m for m in moves if m.kind in ("pass", "done")), moves[0]))
    assert seen == {(r, s) for r in range(1, rounds + 1) for s in range(players)}
    assert game.current_player() == TERMINAL and game.returns() == ([float(game.scores()[0])] if players == 1 else
                                                                     [1.0 if p in game.winners() else 0.0
                                                                      for p in range(players)])


def test_round_bonuses_reroll_plus_one_polish_then_the_black_question_for_every_seat():
    game = CleverGame(2, CleverRules(rounds_2=4))
    unlocked = []
    while game.round < 4:
        if game.is_chance_node():
            throw(game, white=6, yellow=6, blue=6, grey=6, green=6, pink=6)
        else:
            moves = game.legal_moves()
            if game.phase == "active" and game.picks == 0 and game.round > len(unlocked):
                unlocked.append(game.sheets[0].unlocked)
            game.apply_move(next((m for m in moves if m.kind in ("pass", "done"))))
    assert unlocked == [(1, 0, 0), (1, 1, 0), (1, 1, 1)]
    # round 4: each seat enters its black "?" before the first throw, seat 1 first
    assert game.pending == [("?any",), ("?any",)] and game.current_player() == 0
    moves = game.legal_moves()
    assert {m.place.area for m in moves} == {"yellow", "blue", "grey", "green", "pink"}
    act(game, "bonus ?any 6 yellow:bottom")
    assert game.current_player() == 1
    act(game, "bonus ?any 1 grey:1,1")
    assert game.current_player() == CHANCE and game.sheets[1].grey == 1


def test_a_bonus_chain_resolved_in_the_players_order():
    game = CleverGame(1)
    game.sheets[0] = Sheet(yellow=((), (1, 1), ()), blue=1)  # blue (row 1, column 1) crossed
    game.pending[0] = ("?yellow", "?pink")
    with pytest.raises(IllegalActionError, match='seat 1 first enters or forfeits "\\?" Yellow, "\\?" Pink'):
        act(game, "pass")
    # both pending bonuses are open, in either order
    assert {m.bonus for m in game.legal_moves()} == {"?yellow", "?pink"}
    act(game, "bonus ?yellow 3 yellow:mid")  # the middle row's third field: "?" for blue
    assert game.pending[0] == ("?pink", "?blue")
    act(game, "bonus ?blue 1 blue:2")  # a second cross in row 1: "?" for green
    assert game.pending[0] == ("?pink", "?green")
    act(game, "bonus ?green 5 green:low")  # green field 1's lower half: a re-roll
    assert game.sheets[0].unlocked == (1, 0, 0) and game.pending[0] == ("?pink",)
    act(game, "bonus ?pink 5 pink")  # a 5 in pink field 1: polish silver
    assert game.sheets[0].unlocked == (1, 0, 1) and game.pending[0] == ()
    assert game.current_player() == CHANCE
    for _ in range(4):
        game.pop()
    assert game.pending[0] == ("?yellow", "?pink") and game.sheets[0] == Sheet(yellow=((), (1, 1), ()), blue=1)


def test_the_end_of_the_reroll_track_gives_its_question_unless_switched_off():
    game = CleverGame(1)
    game.sheets[0] = Sheet(unlocked=(5, 0, 0), blue=1 << 7)
    game.pending[0] = ("?blue",)
    act(game, "bonus ?blue 1 blue:1")  # the 6th slot: nothing at the end yet
    assert game.sheets[0].unlocked == (6, 0, 0) and game.pending[0] == ()
    for rules, want in ((CleverRules(), ("?pink",)), (CleverRules(reroll_track_bonus=False), ())):
        game = CleverGame(1, rules)
        game.sheets[0] = Sheet(unlocked=(6, 0, 0), blue=1 << 7)  # diagonal (2, 2) crossed
        game.pending[0] = ("?blue",)
        act(game, "bonus ?blue 1 blue:1")  # the diagonal's second cross: a re-roll, the track's 7th
        assert game.sheets[0].unlocked == (7, 0, 0) and game.pending[0] == want


def test_blue_row_and_diagonal_bonuses_only_at_the_second_cross():
    game = CleverGame(1)
    game.pending[0] = ("?blue", "?blue", "?blue")
    act(game, "bonus ?blue 1 blue:1")
    assert game.pending[0] == ("?blue", "?blue")
    act(game, "bonus ?blue 2 blue:2")  # the diagonal's second cross: re-roll; row 2 has one
    assert game.sheets[0].unlocked[0] == 2
    act(game, "bonus ?blue 1 blue:4")  # row 1's second cross: "?" for green
    assert game.pending[0] == ("?green",)


def test_grey_segments_start_framed_then_touch_and_a_complete_shade_gives_a_fox():
    game = CleverGame(1)
    game.pending[0] = ("?grey",)
    starts = {m.place.text() for m in game.legal_moves()}
    assert starts == {"grey:1,1", "grey:2,1"}
    act(game, "bonus ?grey 1 grey:1,1")  # the single dark cell: polish silver
    assert game.sheets[0].unlocked == (1, 0, 1)
    facts = game.facts
    dark = [s.index for s in facts.segments if s.shade == "D"]
    game.sheets[0] = Sheet(grey=sum(1 << i for i in dark if i != 15) | 1 << 8)  # all dark but (4,2)-(4,3)
    game.pending[0] = ("?grey",)
    act(game, "bonus ?grey 2 grey:4,2")
    assert game.sheets[0].foxes == 1


def test_pink_a_three_writes_one_more_three_and_bonuses_need_five_or_six():
    game = CleverGame(1)
    game.pending[0] = ("?pink", "?pink", "?pink")
    act(game, "bonus ?pink 3 pink")
    assert game.sheets[0].pink == (3, 3)
    act(game, "bonus ?pink 4 pink")  # field 3's "?" for green needs a 5 or 6
    assert game.pending[0] == ("?pink",)
    act(game, "bonus ?pink 5 pink")  # field 4: +1
    assert game.sheets[0].unlocked == (1, 1, 0)
    game.sheets[0] = Sheet(pink=(1,) * 11)
    game.pending[0] = ("?pink",)
    act(game, "bonus ?pink 3 pink")
    assert game.sheets[0].pink == (1,) * 11 + (3,)
    game = CleverGame(1, CleverRules(pink_three_chains=True))
    game.pending[0] = ("?pink",)
    act(game, "bonus ?pink 3 pink")
    assert game.sheets[0].pink == (3,) * 12


def test_polish_silver_changes_only_tray_dice_and_costs_one_per_step():
    game = CleverGame(2)
    game.sheets[1] = Sheet(unlocked=(1, 0, 2))
    throw(game, white=1, yellow=6, blue=4, grey=1, green=1, pink=3)
    act(game, "take yellow 6 yellow:top")  # everything else goes on the tray
    assert game.current_player() == 1
    pinks = {m.number for m in game.legal_moves() if m.die == "pink"}
    assert pinks == {1, 2, 3, 4, 5}  # 3 polished by up to 2, never past 1 or 6
    blues = {(m.number, m.place.spot + 1) for m in game.legal_moves() if m.die == "blue"}
    assert (4, 1) in blues and (5, 2) in blues and (6, 1) in blues and (6, 2) not in blues  # blue and white polished
    game.sheets[1] = Sheet(unlocked=(1, 1, 2))  # with a +1, the window after the pick shows the dice
    act(game, "take pink 5 pink")
    assert game.sheets[1].used == (0, 0, 2) and game.sheets[1].unlocked == (1, 1, 3)  # field 1's bonus: polish
    assert game.phase == "extra" and game.dice()["pink"] == (3, "tray")  # the die keeps its number
    # the active player's own throw is not on the tray: no polishing
    game2 = CleverGame(1)
    game2.sheets[0] = Sheet(unlocked=(1, 0, 3))
    throw(game2, pink=3)
    assert {m.number for m in game2.legal_moves() if m.die == "pink" and m.place} == {3}
    game3 = CleverGame(1, CleverRules(polish_scope="any"))
    game3.sheets[0] = Sheet(unlocked=(1, 0, 3))
    throw(game3, pink=3)
    assert {m.number for m in game3.legal_moves() if m.die == "pink" and m.place} == {1, 2, 3, 4, 5, 6}


def test_plus_one_uses_more_dice_lying_out_each_die_once():
    game = CleverGame(1)
    game.sheets[0] = Sheet(unlocked=(1, 2, 0))
    throw(game, white=1, yellow=6, blue=2, grey=2, green=2, pink=2)
    act(game, "take yellow 6 yellow:bottom")
    assert game.phase == "extra" and game.current_player() == 0
    assert {m.die for m in game.legal_moves() if m.kind == "extra"} == set(game.dice())  # yellow again, too
    act(game, "extra yellow 6 yellow:bottom")
    with pytest.raises(IllegalActionError, match="used with \\+1"):
        act(game, "extra yellow 6 yellow:bottom")
    act(game, "extra green 2 green:low")  # the last +1: the window closes itself
    assert game.phase == "passive" and game.current_player() == CHANCE


def test_reroll_throws_the_dice_still_in_play_again():
    game = CleverGame(1)
    throw(game, white=1, yellow=6, blue=2, grey=2, green=2, pink=2)
    act(game, "reroll")  # round 1's re-roll
    assert game.dice_to_throw() == ("white", "yellow", "blue", "grey", "green", "pink") and game.throw_key() == "1.0.1"
    throw(game, white=5)
    assert game.sheets[0].left("reroll") == 0 and Action.parse("reroll") not in game.legal_moves()
    with pytest.raises(IllegalActionError, match="no re-roll"):
        act(game, "reroll")


def test_bad_notation_and_illegal_actions_are_distinct_errors():
    game = CleverGame(1)
    throw(game, white=3, yellow=2)
    for text in ("", "jump", "take purple 3 pink", "take yellow 7 yellow:top", "take yellow 3 yellow:side",
                 "bonus ?red 3 pink", "reroll now", "take blue 3 blue:9", "take grey 3 grey:9,9"):
        with pytest.raises(InvalidActionError):
            Action.parse(text)
    assert issubclass(InvalidActionError, InvalidMoveError) and issubclass(IllegalActionError, IllegalMoveError)
    for text in ("take yellow 3 yellow:top", "done", "bonus ?pink 3 pink", "extra white 3 pink", "take white 3 blue:3"):
        with pytest.raises(IllegalActionError):
            act(game, text)
    assert game.undo_depth == 1


def test_a_forfeit_only_when_a_question_has_no_place_unless_switched():
    game = CleverGame(1)
    game.sheets[0] = Sheet(pink=(1,) * 12)
    game.pending[0] = ("?pink", "?yellow")
    assert Action.parse("forfeit ?pink") in game.legal_moves()
    assert Action.parse("forfeit ?yellow") not in game.legal_moves()
    act(game, "forfeit ?pink")
    game = CleverGame(1, CleverRules(bonus_forfeit="always"))
    game.pending[0] = ("?yellow",)
    act(game, "forfeit ?yellow")
    assert game.pending[0] == ()


def test_push_pop_and_clone_are_independent():
    game = CleverGame(2)
    first = Throw.parse("white=3 yellow=4 blue=2 grey=6 green=1 pink=5")
    game.push(first)
    other = game.clone()
    game.push(Action.parse("take grey 6 grey:1,1"))
    assert other.where != game.where and other.current_player() == 0
    assert game.pop() == Action.parse("take grey 6 grey:1,1") and game.pop() == first
    assert game.current_player() == CHANCE and game.history == []


def test_both_games_share_the_state_api():
    from nochmal.board import load_board
    from nochmal.clever.state_api import GameState
    from nochmal.game import Game

    assert isinstance(CleverGame(2), GameState) and isinstance(Game(load_board("classic")), GameState)
    game = CleverGame(1)
    outcomes = game.chance_outcomes()
    assert len(outcomes) == 6 ** 6 and abs(sum(p for _, p in outcomes) - 1) < 1e-9
    with pytest.raises(Exception, match="not to be thrown"):
        game.apply_roll(outcomes[0][0]) or game.chance_outcomes()


def test_the_active_player_passes_a_throw_only_when_nothing_fits_if_switched():
    game = CleverGame(1, CleverRules(active_pass="when-unusable"))
    throw(game, white=3, yellow=2)
    assert Action.parse("pass") not in game.legal_moves()
    game = CleverGame(1, CleverRules(active_pass="when-unusable"))
    game.sheets[0] = Sheet(yellow=((1, 2, 3, 4, 5), (1,) * 5, (1,) * 5), blue=(1 << 36) - 1, grey=(1 << 17) - 1,
                           green=((1,) * 11, (1,) * 11), pink=(1,) * 12)
    throw(game)
    assert [m.text() for m in game.legal_moves()] == ["pass"]


def test_a_passive_player_with_no_usable_tray_die_takes_one_of_the_active_players():
    full = Sheet(yellow=((1, 2, 3, 4, 5), (1,) * 5, (1,) * 5), grey=(1 << 17) - 1,
                 green=((1,) * 11, (1,) * 11), pink=(1,) * 12)
    for rules, want in ((CleverRules(), ["take blue 2 blue:1", "pass"]), (CleverRules(passive_fallback=False), ["pass"])):
        game = CleverGame(2, rules)
        game.sheets[1] = Sheet(full.yellow, ((1 << 36) - 1) & ~(1 << 6), full.grey, full.green, full.pink)
        throw(game, white=1, yellow=1, blue=2, grey=1, green=1, pink=1)
        act(game, "take blue 2 blue:1")  # every other die is lower: all on the tray
        assert game.current_player() == 1
        assert [m.text() for m in game.legal_moves()] == want  # blue row 2, column 1 (the white die)


def test_popping_every_step_gives_back_the_fresh_game():
    import clever_oracle

    game = clever_oracle.random_game(3, 4, 5, enter_bias=0.7)
    fresh = CleverGame(3)
    while game.undo_depth:
        game.pop()
    state = ("sheets", "pending", "round", "active", "stage", "phase", "actor", "values", "where", "picks",
             "throws", "to_throw", "queue", "extra_used", "history")
    assert all(getattr(game, k) == getattr(fresh, k) for k in state)


def test_a_plus_one_won_through_a_pending_question_opens_the_window_it_came_in():
    game = CleverGame(2)
    game.sheets[1] = Sheet(yellow=((), (1, 1), ()), blue=1 << (3 * 6))  # blue row 4 has one cross
    throw(game, white=1, yellow=2, blue=1, grey=1, green=1, pink=6)
    act(game, "take pink 6 pink")  # the rest goes on the tray
    act(game, "take yellow 2 yellow:mid")  # seat 2: the middle row's third field, "?" for blue
    assert game.current_player() == 1 and game.pending[1] == ("?blue",)
    act(game, "bonus ?blue 4 blue:2")  # row 4's second cross: +1
    assert game.sheets[1].left("plus-one") == 1 and game.phase == "extra" and game.current_player() == 1
    act(game, "extra green 1 green:low")
    assert game.active == 1 and game.current_player() == CHANCE


def test_every_fox_counts_once_however_many_there_are():
    game = CleverGame(1)
    game.sheets[0] = Sheet(yellow=((1, 2, 3, 4), (), ()), foxes=2)
    game.pending[0] = ("?yellow",)
    act(game, "bonus ?yellow 6 yellow:top")  # the top row's last field: a fox
    assert game.sheets[0].foxes == 3


def test_no_fallback_to_the_fields_in_solo():
    game = CleverGame(1)
    game.sheets[0] = Sheet(yellow=((1, 2, 3, 4, 5), (1,) * 5, (1,) * 5), blue=(1 << 36) - 1, grey=(1 << 17) - 1,
                           green=((1,) * 11, (1,) * 11), pink=(1,) * 10)
    throw(game, pink=6)
    act(game, "take pink 6 pink")  # every other die is lower: the active turn ends
    throw(game, white=6, yellow=1, blue=1, grey=1, green=5, pink=6)  # tray: yellow, blue, grey
    assert [m.text() for m in game.legal_moves()] == ["pass"]  # white and pink would fit pink


def test_digits_that_are_not_ascii_are_bad_notation():
    for text in ("take yellow ² yellow:top", "take blue 3 blue:³", "bonus ?grey 2 grey:¹,1"):
        with pytest.raises(InvalidActionError):
            Action.parse(text)
    with pytest.raises(InvalidActionError):
        Throw.parse("white=" + "9" * 5000)
