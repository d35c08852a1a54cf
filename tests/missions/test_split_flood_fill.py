"""nochmal.bitsets.component_of (the flood fill the split's listings, separators and moved
paths run thousands of times a room status) against a plain breadth-first search over cell
numbers, on the classic board's and a block's local neighbour tables."""

from __future__ import annotations

import random
from collections import deque

from nochmal.bitsets import component_of
from nochmal.board import load_board

BOARD = load_board("classic")


def plain_component(start: int, within: int, neighbours) -> int:
    cells = [b for b in range(len(neighbours)) if start >> b & 1]
    seen = set(cells)
    queue = deque(cells)
    while queue:
        b = queue.popleft()
        for c in range(len(neighbours)):
            if neighbours[b] >> c & 1 and within >> c & 1 and c not in seen:
                seen.add(c)
                queue.append(c)
    return sum(1 << b for b in seen)


def test_component_of_equals_a_breadth_first_search():
    rng = random.Random(9100)
    tables = [BOARD.neighbour_mask] + [block.local_neighbours for block in BOARD.blocks[:3]]
    for _ in range(400):
        neighbours = rng.choice(tables)
        size = len(neighbours)
        within = sum(1 << b for b in range(size) if rng.random() < rng.choice([0.2, 0.5, 0.8]))
        start = sum(1 << b for b in rng.sample(range(size), rng.randint(0, min(3, size))))  # (some outside within)
        assert component_of(start, within, neighbours) == plain_component(start, within, neighbours)
