"""Holographic reduced representations over phase vectors (spec §10, "HRR algebra").

A concept is a vector of angles in [0, 2π). Binding adds phases, unbinding subtracts
them, and bundling takes the circular mean, so a fact's vector superposes its content
and its entities each bound to a role. Atoms come from SHA-256, which makes every
vector identical across processes, machines and Python versions; the stored blobs are
therefore interchangeable with the upstream provider's.

NumPy is optional. Without it (or after ``set_numpy_enabled(False)``, which tests use to
run both paths) no vectors are computed and retrieval falls back to keywords.
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
from collections import OrderedDict
from typing import Any

try:
    import numpy as _numpy
except ImportError:  # pragma: no cover - NumPy is a dependency of the engine, but optional here
    _numpy = None

logger = logging.getLogger(__name__)

TWO_PI = 2.0 * math.pi
ROLE_CONTENT = "__hrr_role_content__"
ROLE_ENTITY = "__hrr_role_entity__"
EMPTY_TEXT_ATOM = "__hrr_empty__"
ATOM_CACHE_MAX = 4096
BLOB_PREFIX = b"HRR1"  # prefixed little-endian float32; un-prefixed blobs are legacy float64
_TOKEN_PUNCTUATION = ".,!?;:\"'()[]{}"

_force_disabled = False
_atom_cache: OrderedDict[tuple[str, int], Any] = OrderedDict()
_atom_cache_lock = threading.Lock()


def numpy_available() -> bool:
    """Whether vectors are computed: NumPy is importable and not switched off."""
    return _numpy is not None and not _force_disabled


def set_numpy_enabled(enabled: bool) -> None:
    """Switch the vector path off (``False``) or back to auto-detection (``True``).

    Stores and retrievers read the switch when they are created.
    """
    global _force_disabled
    _force_disabled = not enabled


def _np() -> Any:
    if not numpy_available():
        raise RuntimeError("NumPy is required for holographic vector operations")
    return _numpy


def encode_atom(word: str, dim: int = 1024) -> Any:
    """The deterministic phase vector of one symbol (LRU-cached)."""
    np = _np()
    key = (word, dim)
    with _atom_cache_lock:
        cached = _atom_cache.get(key)
        if cached is not None:
            _atom_cache.move_to_end(key)
            return cached.copy()
    # Each SHA-256 block of f"{word}:{i}" gives 16 little-endian uint16 values.
    blocks = math.ceil(dim / 16)
    raw = b"".join(hashlib.sha256(f"{word}:{i}".encode()).digest() for i in range(blocks))
    vector = np.frombuffer(raw, dtype="<u2")[:dim].astype(np.float64) * (TWO_PI / 65536.0)
    with _atom_cache_lock:
        _atom_cache[key] = vector
        _atom_cache.move_to_end(key)
        while len(_atom_cache) > ATOM_CACHE_MAX:
            _atom_cache.popitem(last=False)
    return vector.copy()


def bind(a: Any, b: Any) -> Any:
    return (a + b) % TWO_PI


def unbind(memory: Any, key: Any) -> Any:
    return (memory - key) % TWO_PI


def bundle(*vectors: Any) -> Any:
    """Superposition: the angle of the sum of the unit phasors."""
    return bundle_rows(_np().stack(vectors))


def bundle_rows(matrix: Any) -> Any:
    """:func:`bundle` of every row of a 2-D array.

    ``atan2(Σ sin, Σ cos)`` is the angle of ``Σ exp(iθ)`` without complex arithmetic;
    float32 input (as stored) keeps the sines and cosines vectorised, and the sums are
    accumulated in float64.
    """
    np = _np()
    total_sin = np.sin(matrix).sum(axis=0, dtype=np.float64)
    total_cos = np.cos(matrix).sum(axis=0, dtype=np.float64)
    return np.arctan2(total_sin, total_cos) % TWO_PI


def similarity(a: Any, b: Any) -> float:
    """Mean cosine of the phase differences: 1 identical, about 0 unrelated."""
    np = _np()
    return float(np.mean(np.cos(a - b)))


def text_tokens(text: str) -> list[str]:
    return [t for t in (word.strip(_TOKEN_PUNCTUATION) for word in text.lower().split()) if t]


def encode_text(text: str, dim: int = 1024) -> Any:
    """Bag of words: the bundle of the token atoms."""
    tokens = text_tokens(text)
    if not tokens:
        return encode_atom(EMPTY_TEXT_ATOM, dim)
    return bundle(*(encode_atom(token, dim) for token in tokens))


def entity_key(entity: str, dim: int = 1024) -> Any:
    """An entity bound to the entity role: what a fact holds for each of its entities."""
    return bind(encode_atom(entity.lower(), dim), encode_atom(ROLE_ENTITY, dim))


def encode_fact(content: str, entities: list[str], dim: int = 1024) -> Any:
    """``bundle(bind(text, ROLE_CONTENT), bind(entity, ROLE_ENTITY)...)``."""
    content_part = bind(encode_text(content, dim), encode_atom(ROLE_CONTENT, dim))
    return bundle(content_part, *(entity_key(entity, dim) for entity in entities))


def phases_to_bytes(phases: Any) -> bytes:
    np = _np()
    dim = int(phases.shape[0])
    # At dim 1 a prefixed float32 blob is as long as a legacy float64 one; write the
    # legacy form there so reading stays unambiguous.
    if len(BLOB_PREFIX) + 4 * dim == 8 * dim:
        return np.asarray(phases, dtype="<f8").tobytes()
    return BLOB_PREFIX + np.asarray(phases, dtype="<f4").tobytes()


def bytes_to_phases(data: bytes, dim: int | None = None) -> Any:
    """Read a prefixed float32 or a legacy float64 blob; ``ValueError`` if it is neither."""
    np = _np()
    prefixed_size = None if dim is None else len(BLOB_PREFIX) + 4 * dim
    legacy_size = None if dim is None else 8 * dim
    ambiguous = dim is not None and prefixed_size == legacy_size  # dim 1: always legacy
    if data.startswith(BLOB_PREFIX) and not ambiguous:
        payload = data[len(BLOB_PREFIX) :]
        if len(data) == prefixed_size or (dim is None and len(payload) % 4 == 0):
            return np.frombuffer(payload, dtype="<f4").astype(np.float64)
    if len(data) == legacy_size or (dim is None and len(data) % 8 == 0):
        return np.frombuffer(data, dtype="<f8").copy()
    raise ValueError(f"HRR vector blob of {len(data)} bytes does not fit dim={dim}")


def stored_phase_matrix(blobs: list[bytes], dim: int) -> Any:
    """Stored vectors as one float32 matrix (rows in ``blobs`` order), for bulk work."""
    np = _np()
    matrix = np.empty((len(blobs), dim), dtype=np.float32)
    for row, blob in enumerate(blobs):
        if blob.startswith(BLOB_PREFIX) and len(blob) == len(BLOB_PREFIX) + 4 * dim and dim != 1:
            matrix[row] = np.frombuffer(blob, dtype="<f4", offset=len(BLOB_PREFIX))
        else:
            matrix[row] = bytes_to_phases(blob, dim)
    return matrix


def snr_estimate(dim: int, items: int, *, warn: bool = True) -> float:
    """Signal-to-noise of a bundle of ``items`` vectors; below 2 retrieval degrades."""
    snr = math.sqrt(dim / items) if items > 0 else math.inf
    if warn and snr < 2.0:
        logger.warning(
            "HRR memory bank near capacity: SNR=%.2f (dim=%d, items=%d); consider a larger hrr_dim.",
            snr,
            dim,
            items,
        )
    return snr
