"""This roll's advice (docs/rooms.md, this roll's advice): the dice just rolled, entered by any
seat, and for each player the move to make with them, on every phone.

The engine decides who may use which dice (nochmal.game.Game, docs/rules.md §4): the roll is
set up as a position at its start (the room's sheets, the rolls counted, the dice) and the
players decide in the engine's order, the active player first. Each player's move is the one
the bot teammates would play: a mission's tactics (missions/tactics.py ``MissionAgent``, the
heuristic bot breaking ties) or, in a competitive room, the heuristic bot. The others see the
dice the active player leaves after the advised move, as the engine gives them.

The advice is worked out once, when the dice are entered, for the sheets as they are then,
and kept in the room's log with the dice (store_dice.py): every phone, and a phone that
reconnects later or a restarted server, shows the same advice until the roll is counted.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from nochmal.i18n import TERMS, Message, say
from nochmal.dice import Roll
from nochmal.errors import NochmalError, RollError
from nochmal.game import Game
from nochmal.modes import Mode
from nochmal.move import Move
from nochmal.position import Position
from nochmal.web.errors import WebError
from nochmal.web.rooms import bodies
from nochmal.web.rooms.request import bearer, checked_body, checked_code, read_body
from nochmal.web.rooms.model import RoomMode, board_of, shipped_mission
from nochmal.web.rooms.rolls import budget_of, in_play_document
from nochmal.web.rooms.service import RoomsService
from nochmal.web.rooms.status import room_sheets, seat_label
from nochmal.web.rooms.store import Room, RoomStore
from nochmal.web.rooms.words import wire


def roll_game(room: Room, roll: Roll) -> Game:
    """The room's game at the start of the roll in play with ``roll`` on the table: the
    sheets as the phones show them (a mis-tap too: the advice is for the paper in front of the
    player), the rolls counted, a mission's budget. RollError when the dice do not fit the
    game (2 + 2 in a one-player mission), WebError 409 when the sheets make no position the
    rules reach."""
    position = Position(game_mode(room), tuple(room_sheets(room)), room.rolls_used, budget_of(room))
    try:
        game = Game.from_position(position)
    except NochmalError as exc:
        raise WebError(say("the sheets give no position to advise from: %(why)s", why=exc.message), "roll",
                       409) from None
    game.apply_roll(roll)  # RollError: the wrong number of dice for this game
    return game


def game_mode(room: Room) -> Mode:
    return Mode.COOP if room.spec.mode is RoomMode.MISSION else Mode.COMPETITIVE


def dice_per_kind(room: Room) -> int:
    """Colour dice (and number dice) the room's game rolls: the engine's figure (2 + 2 in a
    one-player mission, docs/missions.md)."""
    return Game(board_of(room.spec), room.spec.players, mode=game_mode(room)).dice_per_kind


def agent_for(room: Room):
    """The bot teammates' player: the mission's tactics over the heuristic bot, or the
    heuristic bot itself in a competitive room (the layers' own classes, docs/bots.md)."""
    from nochmal.bots.heuristic import HeuristicAgent  # the bots load numpy: imported on use

    base = HeuristicAgent()
    if room.spec.mode is RoomMode.MISSION:
        from nochmal.missions.tactics import MissionAgent

        return MissionAgent(shipped_mission(room.spec.mission), base)
    return base


def advise(room: Room, roll: Roll) -> list[dict]:
    """Per player, in the engine's order (the active player first): the dice that player may
    use, the advised move and its words. Each move is applied before the next player decides,
    as at a table of bots: the others' dice are what the active player's move leaves, and a
    teammate is not sent to the star another has just been advised to take."""
    game = roll_game(room, roll)
    agent = agent_for(room)
    active, free = game.active_player, game.free_choice
    out = []
    while game.current_player() >= 0:
        k = game.current_player()
        dice = game.available_dice()
        move = agent.choose(game.clone())
        game.apply_move(move)  # the engine's check: an advice is always a legal move
        source = dice_from(seat_label(room, active), k == active or free, dice, roll)
        words = move_words(seat_label(room, k), move)
        out.append({"seat": k, "name": seat_label(room, k), "active": k == active, "dice": dice.to_json(),
                    "dice_from": str(source), "dice_from_said": wire(source), "move": str(move),
                    "cells": list(move.cells), "text": str(words), "said": wire(words)})
    return out


def dice_from(active_name: str, all_dice: bool, dice: Roll, roll: Roll) -> Message:
    """Which dice a player picks from, in words: all of them (the active player; everyone in
    rolls 1-3), or what the active player leaves (all of them again when that is a pass)."""
    six = len(roll.colours) == 3
    if all_dice:
        return say("all six dice") if six else say("all the dice")
    if dice == roll:
        if six:
            return say("all six dice (%(name)s passes)", name=active_name)
        return say("all the dice (%(name)s passes)", name=active_name)
    return say("what %(name)s leaves: %(dice)s", name=active_name, dice=faces_words(dice))


def faces_words(dice: Roll) -> Message:
    """Dice as a player reads them off the table: "yellow, blue, joker · 3, 5, ?"."""
    colours = tuple(say(TERMS[f]) if f in TERMS else say(TERMS["joker"]) for f in dice.colours)
    return say("%(colours)s · %(numbers)s", colours=colours, numbers=", ".join(dice.numbers))


def move_words(name: str, move: Move) -> Message:
    """"Anna: blue 3 — cross H4, H5, I5", "Anna: pass"; a joker said as what it stands for."""
    if move.is_pass:
        return say("%(name)s: pass", name=name)
    values = {"name": name, "colour": say(TERMS[move.colour]), "count": move.count, "cells": tuple(move.cells)}
    if move.colour_joker and move.number_joker:
        return say("%(name)s: %(colour)s %(count)s (both jokers) — cross %(cells)s", **values)
    if move.colour_joker:
        return say("%(name)s: %(colour)s %(count)s (colour joker) — cross %(cells)s", **values)
    if move.number_joker:
        return say("%(name)s: %(colour)s %(count)s (number joker) — cross %(cells)s", **values)
    return say("%(name)s: %(colour)s %(count)s — cross %(cells)s", **values)


def advice_title(roll: int, active_name: str) -> Message:
    return say("This roll (Roll %(roll)s, %(name)s rolls)", roll=roll, name=active_name)


def kept_dice(store: RoomStore, room: Room) -> dict | None:
    """The dice last entered for the roll in play, with their advice; None when none were
    (or only for a roll since counted, store_dice.py keeps them in the room's log)."""
    last = store.last_dice(room.code)
    if last is None or last[1]["roll"] != in_play_document(room)["roll"]:
        return None
    return {"version": last[0], **last[1]}


# --- the service -------------------------------------------------------------------------------
def enter_dice(rooms, code: str, token: str | None, raw: bytes) -> dict:
    """PUT .../dice in one thread hop: the token, the body, the roll in play, the advice, the
    log, the event to the room, the answer."""
    store = rooms.store
    room = store.room(checked_code(code))
    k = store.seat_of_token(code, token)
    body = checked_body(raw, bodies.DiceBody)
    play = in_play_document(room)
    if room.won_on is not None:
        raise WebError(say("the mission was won on roll %(roll)s: no roll to advise (reopen the game first)",
                           roll=room.won_on), "roll", 409)
    if play["roll"] != body["roll"]:
        if play["roll"]:
            raise WebError(say("roll %(now)s is in play, not roll %(roll)s: these dice are for another roll",
                               now=play["roll"], roll=body["roll"]), "roll", 409)
        raise WebError(say("the last roll is counted, not roll %(roll)s: these dice are for another roll",
                           roll=body["roll"]), "roll", 409)
    try:
        roll = Roll.from_json(body["dice"])
        roll_game(room, roll)  # the dice fit the game, the sheets make a position: said here, not in the child
    except RollError as exc:
        raise WebError(say("dice: %(why)s", why=exc.message), "dice", 422) from None
    moves = rooms.worker.run(advise, room, roll)  # the engine's work off the server process (status.py)
    title = advice_title(body["roll"], play["name"])
    entry = {"title": str(title), "title_said": wire(title), "active": play["seat"], "dice": roll.to_json(),
             "seat": k, "entered_by": seat_label(room, k), "moves": moves}
    version = store.enter_dice(code, k, body["roll"], entry)
    out = {"version": version, "roll": body["roll"], **entry}
    rooms.hub.publish(code, "dice", out, version)
    return out


router = APIRouter(prefix="/api/rooms", tags=["rooms"])


@router.put("/{code}/dice", response_model=bodies.RollAdvice, openapi_extra=bodies.json_body(bodies.DiceBody),
            summary="This roll's dice, and every player's move with them (Bearer token of any seat)")
async def put_dice(code: str, request: Request, rooms: RoomsService):
    raw = await read_body(request)
    return await run_in_threadpool(enter_dice, rooms, code, bearer(request), raw)


@router.get("/{code}/dice", response_model=bodies.RollAdviceKept,
            summary="The dice entered for the roll in play and their advice (null: none yet), and how many "
                 "dice of each kind the room rolls")
async def get_dice(code: str, rooms: RoomsService):
    room = await run_in_threadpool(rooms.store.room, checked_code(code))
    return await run_in_threadpool(lambda: {"advice": kept_dice(rooms.store, room), "dice_per_kind": dice_per_kind(room)})
