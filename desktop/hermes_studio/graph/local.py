"""The local graph: one node and its neighbours up to a chosen number of steps (Obsidian's
"local graph"). Plain numpy over :attr:`GraphData.neighbours`; the filters apply on top."""

from __future__ import annotations

import numpy as np

from .model import GraphData

MAX_DEPTH = 5


def neighbourhood(data: GraphData, root: int, depth: int) -> np.ndarray:
    """A mask of the nodes at most ``depth`` edges away from node ``root`` (itself included)."""
    reached = np.zeros(data.size, dtype=bool)
    reached[root] = True
    frontier = np.array([root], dtype=np.int64)
    for _ in range(max(0, depth)):
        if len(frontier) == 0:
            break
        step = np.concatenate([data.neighbours[i] for i in frontier.tolist()]).astype(np.int64)
        step = np.unique(step[~reached[step]]) if len(step) else step
        reached[step] = True
        frontier = step
    return reached
