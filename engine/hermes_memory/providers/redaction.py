"""Secret redaction before anything leaves for a memory provider (spec §4.6, issue #115104).

Providers archive whatever they are handed, so every fan-out (turns, queries, session
transcripts, memory-write mirrors, delegation results, tool arguments) is scrubbed first.
:func:`redact_for_egress` masks credential-shaped text in one string. :class:`EgressRedactor`
walks nested values and adds *learned masking*: a long token that the scrub removed
anywhere is then masked everywhere, which catches a key the model repeats bare in prose
after it appeared in a tool result. Unlike upstream, which forgets learned tokens after
each hand-off, one redactor per manager remembers them (bounded) for the session, so a
key seen in turn N is still masked when it is repeated in turn N+1.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

MASK = "[redacted]"

# Vendor prefixes: each pattern starts with a literal so prose never matches.
_PREFIXED_TOKEN = re.compile(
    r"(?<![A-Za-z0-9_\-])(?:"
    r"sk-(?:ant-|proj-|or-|lf-)?[A-Za-z0-9_\-]{10,}"
    r"|sk_(?:live|test)_[A-Za-z0-9]{10,}|rk_live_[A-Za-z0-9]{10,}"
    r"|gh[pousr]_[A-Za-z0-9]{10,}|github_pat_[A-Za-z0-9_]{10,}"
    r"|glpat-[A-Za-z0-9_\-]{10,}"
    r"|xox[abprs]-[A-Za-z0-9\-]{10,}|xapp-\d+-[A-Za-z0-9\-]{10,}"
    r"|AIza[A-Za-z0-9_\-]{30,}"
    r"|(?:AKIA|ASIA)[A-Z0-9]{16}"
    r"|hf_[A-Za-z0-9]{10,}|r8_[A-Za-z0-9]{10,}|npm_[A-Za-z0-9]{10,}|pypi-[A-Za-z0-9_\-]{10,}"
    r"|gsk_[A-Za-z0-9]{10,}|xai-[A-Za-z0-9]{20,}|pplx-[A-Za-z0-9]{10,}|tvly-[A-Za-z0-9]{10,}"
    r"|SG\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}"
    r"|dop_v1_[A-Za-z0-9]{10,}"
    r")"
)
# JSON Web Tokens: three base64url segments, the first two starting with '{"'.
_JWT = re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}")
_PRIVATE_KEY_BLOCK = re.compile(
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)"
)
_AUTH_HEADER = re.compile(r"(?i)\b(authorization\s*[:=]\s*(?:bearer|basic|token)\s+)([^\s\"',]+)")
_BEARER = re.compile(r"(?i)\b(bearer\s+)([A-Za-z0-9_\-.=+/]{16,})")
# KEY=value / KEY: value where the key names a secret (API_KEY, DB_PASSWORD, authToken…).
# The secret word must end the name or be followed by a separator, so "author",
# "tokenizer" and "max_tokens" are left alone.
_SECRET_NAME = (
    r"[A-Za-z0-9_.\-]*?"
    r"(?:api[_\-]?key|secret|token|passw(?:or)?d|passwd|credentials?|private[_\-]?key|access[_\-]?key|auth)"
    r"(?:[_.\-][A-Za-z0-9_.\-]*)?"
)
_ASSIGNMENT = re.compile(
    rf"(?i)(?<![A-Za-z0-9_.\-])(\"?{_SECRET_NAME}\"?\s*[:=]\s*)([\"']?)([^\s\"',;&]{{4,}})\2"
)
_URL_PASSWORD = re.compile(r"(\b[a-z][a-z0-9+.\-]*://[^\s:/@]+:)([^\s@/]+)(@)", re.I)
_QUERY_SECRET = re.compile(
    r"(?i)([?&](?:access_token|refresh_token|id_token|token|api_key|apikey|key|secret|"
    r"client_secret|password|sig|signature|x-amz-signature)=)([^&\s#]+)"
)
# Values that name a secret rather than hold it ("$OPENAI_API_KEY", "os.getenv(...)").
_REFERENCE_VALUE = re.compile(
    r"^(?:\$\{?[A-Za-z_]|os\.(?:getenv|environ)|process\.env|<|\[redacted\])"
)


def _mask_assignment(match: re.Match[str]) -> str:
    value = match.group(3)
    if _REFERENCE_VALUE.match(value):
        return match.group(0)
    quote = match.group(2)
    return f"{match.group(1)}{quote}{MASK}{quote}"


def _scrub(text: str) -> str:
    text = _PRIVATE_KEY_BLOCK.sub(MASK, text)
    text = _PREFIXED_TOKEN.sub(MASK, text)
    text = _JWT.sub(MASK, text)
    text = _AUTH_HEADER.sub(lambda m: m.group(1) + MASK, text)
    text = _BEARER.sub(lambda m: m.group(1) + MASK, text)
    text = _URL_PASSWORD.sub(lambda m: m.group(1) + MASK + m.group(3), text)
    text = _QUERY_SECRET.sub(lambda m: m.group(1) + MASK, text)
    return _ASSIGNMENT.sub(_mask_assignment, text)


def redact_for_egress(text: str) -> str:
    """``text`` with credential-shaped substrings replaced by ``[redacted]``.

    Fails closed: if scrubbing itself breaks, nothing of the text is passed on.
    """
    if not text:
        return text
    try:
        return _scrub(text)
    except Exception:  # fail closed whatever went wrong
        return MASK


#: Tokens long enough to be worth learning once the scrub has removed them.
LEARNABLE_TOKEN_RE = re.compile(r"[A-Za-z0-9_\-./+]{16,}")


class EgressRedactor:
    """Redacts nested values for a provider hand-off and learns what it masked.

    Strings are scrubbed; dicts, lists and tuples are walked; ``data:`` URLs (inline
    media) pass through. The caller's objects are never mutated: unchanged values come
    back as the same objects and changed containers as shallow copies.
    """

    def __init__(
        self, scrub: Callable[[str], str] = redact_for_egress, *, max_learned: int = 512
    ) -> None:
        self._scrub = scrub
        self._max_learned = max_learned
        self._learned: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def learned_count(self) -> int:
        with self._lock:
            return len(self._learned)

    def redact(self, *values: Any) -> Any:
        """One value in gives one value out; several give a tuple."""
        newly_learned: set[str] = set()

        def scrub_and_learn(text: str) -> str:
            try:
                out = self._scrub(text)
            except Exception:  # a custom scrub must fail closed too
                out = MASK
            if out != text:
                newly_learned.update(
                    set(LEARNABLE_TOKEN_RE.findall(text)) - set(LEARNABLE_TOKEN_RE.findall(out))
                )
            return out

        scrubbed = [map_strings(value, scrub_and_learn) for value in values]
        pattern = self._learn(newly_learned)
        if pattern is not None:
            scrubbed = [map_strings(value, lambda t: pattern.sub(MASK, t)) for value in scrubbed]
        return scrubbed[0] if len(scrubbed) == 1 else tuple(scrubbed)

    def _learn(self, tokens: set[str]) -> re.Pattern[str] | None:
        with self._lock:
            for token in tokens:
                self._learned.pop(token, None)
                self._learned[token] = None
            while len(self._learned) > self._max_learned:
                self._learned.popitem(last=False)
            known = list(self._learned)
        if not known:
            return None
        # Longest first, so a token never leaves a longer one half-masked.
        return re.compile("|".join(re.escape(t) for t in sorted(known, key=len, reverse=True)))


def map_strings(value: Any, fix: Callable[[str], str]) -> Any:
    """``value`` with ``fix`` applied to every string inside it (dicts, lists and tuples are
    walked; ``data:`` URLs pass through); unchanged parts are the same objects, changed
    containers shallow copies, so the caller's objects are never mutated."""
    if isinstance(value, str):
        return value if not value or value.startswith("data:") else fix(value)
    if isinstance(value, dict):
        out = {key: map_strings(item, fix) for key, item in value.items()}
        return value if all(out[key] is value[key] for key in value) else out
    if isinstance(value, (list, tuple)):
        items = [map_strings(item, fix) for item in value]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        return tuple(items) if isinstance(value, tuple) else items
    return value


def redact_for_provider(*values: Any) -> Any:
    """One-shot redaction with learning limited to this hand-off (upstream's behaviour)."""
    return EgressRedactor().redact(*values)
