"""A room exported as a zip (room.json and one typed sheet file per seat) and read back in
(docs/rooms.md, export and import): every refusal a 422 naming the field, never a 500."""

from __future__ import annotations

import io
import json
import re
import zipfile
import zlib

from nochmal.i18n import N_, Message, say, say_n
from nochmal.sheet import format_typed_sheet
from nochmal.web.errors import WebError, client_json
from nochmal.web.limits import BodyCaps, too_large
from nochmal.web.rooms.model import (RoomMode, RoomSpec, SheetState, board_of, checked_name, parse_rolls,
                                     parse_room_spec, typed_sheet_state)
from nochmal.web.rooms.status import room_sheets
from nochmal.web.rooms.store import Room

EXPORT_FORMAT = "nochmal-room"
ZIP_ENCRYPTED = 0x01 | 0x40  # a zip member's flag bits: encrypted, strongly encrypted
ZIP_METHODS = {zipfile.ZIP_STORED: "none", zipfile.ZIP_DEFLATED: "deflate"}  # what export_zip writes
# what reading a damaged zip raises besides BadZipFile: zipfile.py's own checks (unsupported
# versions and flags, bad offsets, undecodable names) and the decompressor's
ZIP_DAMAGE = (zipfile.BadZipFile, zlib.error, EOFError, ValueError, RuntimeError, NotImplementedError)


def _file_name(k: int, name: str) -> str:
    """A safe member name made by the server (the client's name only as letters/digits)."""
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-")[:20] or "seat"
    return f"sheet-{k + 1}-{stem}.txt"


def export_zip(room: Room) -> bytes:
    board = board_of(room.spec)
    sheets = room_sheets(room)
    seats = []
    for k in range(room.spec.players):
        seat = room.seat(k)
        name = seat.name if seat else f"seat {k + 1}"
        seats.append({"seat": k, "name": name, "file": _file_name(k, name), "text": format_typed_sheet(sheets[k])})
    doc = {"format": EXPORT_FORMAT, "version": 1, "room": room.code, **room.spec.to_dict(),
           "rolls_used": room.rolls_used, "seats": seats}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("room.json", json.dumps(doc, indent=2) + "\n")
        for s in seats:
            zf.writestr(s["file"], s["text"])
        if room.spec.mode is RoomMode.MISSION:
            files = " ".join(s["file"] for s in seats)
            zf.writestr("README.txt", f"Check this room's progress from a terminal:\n\n    nochmal mission status "
                                      f"{room.spec.mission} -d {room.spec.difficulty} -k {room.rolls_used} {files}\n")
    return buf.getvalue()


def parse_export(raw: bytes, cap: int = BodyCaps.max_room_import) -> tuple[RoomSpec, int, list[tuple[str, SheetState]]]:
    """room.json (alone, or inside an exported zip, unpacked up to ``cap`` bytes) back to a
    room; 422 naming the field."""
    if raw[:2] == b"PK":
        raw = room_json_in_zip(raw, cap)
    doc = client_json(raw, "room.json", "room.json")
    if not isinstance(doc, dict) or doc.get("format") != EXPORT_FORMAT or doc.get("version") != 1:
        raise WebError(say("not an exported room (format must be %(format)s, version 1)", format=repr(EXPORT_FORMAT)),
                       "format", 422)
    spec_data = {k: doc[k] for k in ("mode", "board", "players", "mission", "difficulty") if doc.get(k) is not None}
    if spec_data.get("mode") == RoomMode.COMPETITIVE:
        spec_data.pop("mission", None)
        spec_data.pop("difficulty", None)
    spec = parse_room_spec(spec_data)
    rolls = parse_rolls({"rolls_used": doc.get("rolls_used")})
    seats_in = doc.get("seats")
    if not isinstance(seats_in, list) or len(seats_in) != spec.players:
        raise WebError(say_n("seats must list %(n)s seat", "seats must list %(n)s seats", spec.players), "seats", 422)
    board = board_of(spec)
    seats = []
    for k, s in enumerate(seats_in):
        if not isinstance(s, dict):
            raise WebError(say("seats.%(k)s must be an object", k=k), f"seats.{k}", 422)
        name = checked_name(s.get("name"), f"seats.{k}.name")
        seats.append((name, typed_sheet_state(s.get("text"), board, spec.mode, f"seats.{k}.text")))
    return spec, rolls, seats


def room_json_in_zip(raw: bytes, cap: int) -> bytes:
    """room.json out of an exported zip. At most ``cap`` + 1 bytes are ever unpacked,
    whatever size the zip declares (a zip bomb's header lies); a zip this app cannot have
    written (encrypted, another compression method) or a damaged one is a 422, never a 500."""
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as zf:
            info = zf.getinfo("room.json")
            _check_member(info, cap)
            with zf.open(info) as member:
                data = member.read(cap + 1)
    except KeyError:
        raise WebError(say("the zip has no room.json"), "room.json", 422) from None
    except ZIP_DAMAGE as exc:
        raise WebError(say("the body is not a zip file this app can read (%(reason)s)", reason=zip_reason(exc)),
                       "body", 422) from None
    if len(data) > cap:
        raise too_large("max_room_import", cap, "room.json")
    return data


# zipfile.py's reasons for the damage a player's file most often has (its first words), in
# the same English as msgids so that the catalogs say them; any other damage is said by kind
# (docs/web.md "Languages": no library's English inside a refusal a page shows).
ZIP_REASONS = (N_("File is not a zip file"), N_("Truncated file header"), N_("Bad magic number for file header"),
               N_("Bad CRC-32 for file"), N_("Truncated central directory"), N_("Bad magic number for central directory"))


def zip_reason(exc: Exception) -> Message:
    """Why the zip could not be read, in words the catalogs hold."""
    text = str(exc)
    for reason in ZIP_REASONS:
        if text.startswith(reason):
            return say(reason)
    if isinstance(exc, zlib.error):
        return say("room.json's packed data is damaged")
    if isinstance(exc, EOFError):
        return say("the zip ends too early")
    return say("the zip is damaged or uses a feature this app does not read")


def _check_member(info: zipfile.ZipInfo, cap: int) -> None:
    if info.flag_bits & ZIP_ENCRYPTED:
        raise WebError(say("room.json is encrypted in the zip; an exported room is not"), "room.json", 422)
    if info.compress_type not in ZIP_METHODS:
        raise WebError(say("room.json is packed with compression method %(method)s; an exported room uses %(methods)s",
                           method=info.compress_type, methods=tuple(f"{n} ({k})" for k, n in ZIP_METHODS.items())),
                       "room.json", 422)
    if info.file_size > cap:
        raise too_large("max_room_import", cap, "room.json")

