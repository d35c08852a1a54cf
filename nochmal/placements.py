"""Legal placements, enumerated from per-block tables.

docs/rules.md §3: N new cells of one colour, inside one block, connected among themselves (or,
with the ``bridging`` option, through crossed cells of the same block), anchored in the
start column or next to a cell crossed earlier.

Everything that decides legality is local to a block: which of its cells are crossed and
which are anchored. Because a board numbers each block's cells as a contiguous run of bits
(nochmal.board), a block's local state is ``(mask >> offset) & full`` and the answer for that
state is a table entry, computed on first use and kept. A query is then one table lookup per
block of the colour.
"""

from __future__ import annotations

from nochmal.bitsets import connected_within
from nochmal.board import Board, Block

MAX_COUNT = 5


class _BlockTable:
    """Local placements of one block, keyed by (local crossed, local anchored) state."""

    __slots__ = ("block", "bridging", "subsets", "cache")

    def __init__(self, block: Block, bridging: bool):
        self.block = block
        self.bridging = bridging
        full = (1 << block.size) - 1
        nb = block.local_neighbours
        by_size: list[list[int]] = [[] for _ in range(MAX_COUNT + 1)]
        for sub in range(1, full + 1):
            k = sub.bit_count()
            if k <= MAX_COUNT and (bridging or connected_within(sub, sub, nb)):
                by_size[k].append(sub)
        self.subsets = by_size
        self.cache: list[dict[int, tuple[int, ...]]] = [{} for _ in range(MAX_COUNT + 1)]

    def compute(self, count: int, key: int) -> tuple[int, ...]:
        size = self.block.size
        crossed = key & ((1 << size) - 1)
        anchored = key >> size
        nb = self.block.local_neighbours
        shift = self.block.offset
        out = []
        for sub in self.subsets[count]:
            if sub & crossed or not sub & anchored:
                continue
            if self.bridging and not connected_within(sub, sub | crossed, nb):
                continue
            out.append(sub << shift)
        result = tuple(out)
        self.cache[count][key] = result
        return result


class PlacementIndex:
    """All legal placements for (crossed, anchored, colour, count) on one board.

    ``anchored`` is the mask of cells a new cross may anchor on: the start column plus every
    neighbour of a crossed cell (nochmal.sheet.Sheet keeps it up to date).
    """

    def __init__(self, board: Board, bridging: bool = False):
        self.board = board
        self.bridging = bridging
        tables = [_BlockTable(b, bridging) for b in board.blocks]
        # per (colour, count): the blocks big enough, as (offset, size, full, cache, table)
        self._plan: dict[tuple[str, int], tuple] = {}
        for colour, blocks in board.colour_blocks.items():
            for count in range(1, MAX_COUNT + 1):
                self._plan[colour, count] = tuple(
                    (b.offset, b.size, (1 << b.size) - 1, tables[b.index].cache[count], tables[b.index])
                    for b in blocks
                    if b.size >= count
                )

    def query(self, crossed: int, anchored: int, colour: str, count: int) -> list[int]:
        """Masks of every legal placement (empty list if none or count out of range)."""
        plan = self._plan.get((colour, count))
        if not plan:
            return []
        out: list[int] = []
        for off, size, full, cache, table in plan:
            key = (crossed >> off) & full | ((anchored >> off) & full) << size
            hit = cache.get(key)
            if hit is None:
                hit = table.compute(count, key)
            if hit:
                out += hit
        return out


def placement_index(board: Board, bridging: bool = False) -> PlacementIndex:
    """The shared index of a board (built once per board and bridging setting)."""
    indexes = board.placement_indexes
    index = indexes.get(bridging)
    if index is None:
        index = indexes[bridging] = PlacementIndex(board, bridging)
    return index
