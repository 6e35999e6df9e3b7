"""Handing a pixel-mode pyqtgraph scatter all its glyphs at once."""

from __future__ import annotations

from typing import Any

import numpy as np


def set_glyphs(
    item: Any, *, x: np.ndarray, y: np.ndarray, size: np.ndarray, symbol: np.ndarray,
    pen: np.ndarray, brush: np.ndarray, data: np.ndarray, distinct: tuple[list[tuple], np.ndarray] | None = None,
) -> None:
    """Give a pixel-mode ``pg.ScatterPlotItem`` all its glyphs at once (every style given
    per glyph; ``symbol``, ``pen`` and ``brush`` object arrays; ``distinct``: what
    :func:`distinct_styles` says of them, if known already).

    ``setData`` looks each glyph's style up in the glyph atlas in Python, about 40 µs a
    glyph (0.4 s of UI thread at 10,000 nodes); the nodes share a few hundred styles, so
    this looks up each distinct style once and hands the record array over whole.
    """
    n = len(x)
    # (np.empty initialises a record with object fields element by element: 5× slower)
    glyphs = np.repeat(np.empty(1, dtype=item.data.dtype), n)
    glyphs["x"], glyphs["y"], glyphs["size"] = x, y, size
    glyphs["symbol"], glyphs["pen"], glyphs["brush"] = symbol, pen, brush
    glyphs["data"] = data
    glyphs["visible"] = True
    glyphs["hovered"] = False
    if n:
        styles, which = distinct or distinct_styles(size=size, symbol=symbol, pen=pen, brush=brush)
        atlas = item.fragmentAtlas
        if len(atlas) > 1000 and len(atlas) > 4 * len(styles):
            atlas.clear()  # (pyqtgraph's own rule for dropping glyphs no longer used)
        rects = np.array([tuple(r) for r in atlas[styles]], dtype=glyphs["sourceRect"].dtype)
        glyphs["sourceRect"] = rects[which]
    item.data = glyphs
    item.prepareGeometryChange()
    item.informViewBoundsChanged()
    item.bounds = [None, None]
    item._updateMaxSpotSizes(data=glyphs)
    item.invalidate()
    item.sigPlotChanged.emit(item)


def distinct_styles(
    *, size: np.ndarray, symbol: np.ndarray, pen: np.ndarray, brush: np.ndarray
) -> tuple[list[tuple], np.ndarray]:
    """The distinct ``(symbol, size, pen, brush)`` styles of the glyphs and, per glyph, the
    position of its own among them."""
    n = len(size)
    sizes = np.ascontiguousarray(size, dtype=np.float64)
    # one integer per style: each column as small codes, combined (a 1-D unique is fast)
    key = np.zeros(n, dtype=np.int64)
    for column in (
        np.fromiter(map(id, symbol), np.int64, n), sizes.view(np.int64),
        np.fromiter(map(id, pen), np.int64, n), np.fromiter(map(id, brush), np.int64, n),
    ):
        values, codes = np.unique(column, return_inverse=True)
        key = key * len(values) + codes.reshape(-1)
    _, first, which = np.unique(key, return_index=True, return_inverse=True)
    styles = [(symbol[i], float(sizes[i]), pen[i], brush[i]) for i in first.tolist()]
    return styles, which.reshape(-1)


def render_some(item: Any, styles: list[tuple], limit: int) -> bool:
    """Render up to ``limit`` of the ``styles`` that ``item``'s glyph atlas lacks; True when
    it then has them all (rendering is most of a new graph's first draw: about 0.2 ms a
    style, a few hundred styles)."""
    atlas = item.fragmentAtlas
    missing = [style for style, key in zip(styles, atlas._keys(styles), strict=True) if key not in atlas._coords]
    if missing:
        atlas[missing[:limit]]
    return len(missing) <= limit
