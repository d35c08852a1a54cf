"""The board as networkx graphs, for the tests and benchmarks/bench_steiner.py only.

networkx is a test dependency (pyproject.toml): the library's own searches work on bit masks
(missions/measures/graphs.py ``crosses_per_cell``, missions/measures/steiner.py), and these
graphs are the independent view the tests check them against.
"""

from __future__ import annotations

from functools import lru_cache

import networkx as nx

from nochmal.board import COLUMN_LETTERS, Board


@lru_cache(maxsize=32)
def cell_graph(board: Board) -> nx.Graph:
    """Cells as nodes (named ``H4``), orthogonal adjacency as edges.

    Node attributes: bit (engine bit), row (1-based), column (letter), colour (y g b r o),
    star (bool), block (index into ``board.blocks``), start (in the start column).
    Edge attribute ``same_block``: both ends in one block.
    """
    g = nx.Graph(board=board.name)
    for i in range(board.n_cells):
        bit = board.bit_of[i]
        r, c = divmod(i, board.cols)
        g.add_node(board.cell_name(bit), bit=bit, row=r + 1, column=COLUMN_LETTERS[c],
                   colour=board.colour_at[i], star=board.is_star(bit),
                   block=board.block_of_bit[bit], start=c == board.start_column)
    for i in range(board.n_cells):
        for j in board.grid_neighbours(i):
            if i < j:
                bi, bj = board.bit_of[i], board.bit_of[j]
                g.add_edge(board.cell_name(bi), board.cell_name(bj),
                           same_block=board.block_of_bit[bi] == board.block_of_bit[bj])
    return g


@lru_cache(maxsize=32)
def block_graph(board: Board) -> nx.Graph:
    """Blocks as nodes (their index), an edge where two blocks touch orthogonally.

    Node attributes: colour, size, cells (names), stars (count), start (touches the start
    column). Edge attribute ``contacts``: how many cell pairs touch.
    """
    g = nx.Graph(board=board.name)
    for blk in board.blocks:
        g.add_node(blk.index, colour=blk.colour, size=blk.size, cells=tuple(board.cells_of(blk.mask)),
                   stars=(blk.mask & board.star_mask).bit_count(),
                   start=bool(blk.mask & board.start_mask))
    for u, v, same in cell_graph(board).edges(data="same_block"):
        if same:
            continue
        a = board.block_of_bit[board.bit(u)]
        b = board.block_of_bit[board.bit(v)]
        if g.has_edge(a, b):
            g[a][b]["contacts"] += 1
        else:
            g.add_edge(a, b, contacts=1)
    return g


def hangs_together(adj, nodes) -> bool:
    """Whether ``nodes`` of a graph given as neighbour lists (``Reduced.adj``) are one connected
    piece: networkx's view of what the Steiner searches rebuild."""
    graph = nx.Graph((u, v) for u in nodes for v in adj[u] if v in nodes)
    graph.add_nodes_from(nodes)
    return nx.is_connected(graph)


def forced_groups(adj, forced) -> dict[int, int]:
    """The nodes of ``forced`` grouped by connection through forced nodes only, each labelled by
    its group's first node in the order ``forced`` is iterated."""
    rank = {v: k for k, v in enumerate(forced)}
    graph = nx.Graph((u, v) for u in forced for v in adj[u] if v in forced)
    graph.add_nodes_from(forced)
    return {v: min(group, key=rank.__getitem__) for group in nx.connected_components(graph) for v in group}


def open_parts(board: Board, crossed: int) -> tuple[list[int], list[set[int]]]:
    """The open cells in parts, as networkx finds them: each part the open cells of one block
    that touch (a bit mask), in block order then by lowest bit; and the parts each part
    touches through an open neighbour."""
    graph = cell_graph(board)
    open_cells = [name for name, bit in graph.nodes(data="bit") if not crossed >> bit & 1]
    inner = nx.Graph()
    inner.add_nodes_from(open_cells)
    inner.add_edges_from((u, v) for u, v, same in graph.subgraph(open_cells).edges(data="same_block") if same)
    masks = [sum(1 << graph.nodes[name]["bit"] for name in piece) for piece in nx.connected_components(inner)]
    parts = sorted(masks, key=lambda mask: (board.block_of_bit[(mask & -mask).bit_length() - 1], mask & -mask))
    part_of = {name: k for k, mask in enumerate(parts) for name in open_cells if mask >> graph.nodes[name]["bit"] & 1}
    touching: list[set[int]] = [set() for _ in parts]
    for u, v in graph.subgraph(open_cells).edges:
        if part_of[u] != part_of[v]:
            touching[part_of[u]].add(part_of[v])
            touching[part_of[v]].add(part_of[u])
    return parts, touching
