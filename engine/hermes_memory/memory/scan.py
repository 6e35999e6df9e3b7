"""Threat scanner for text that will be injected into a system prompt.

Compatible with upstream Hermes ``tools/threat_patterns.py`` (spec §2.8): the same ids, the
same scopes, the same result order, and refusal messages that start with upstream's exact
sentence. Where it differs, on purpose:

* ``ssh_backdoor`` and ``ssh_access`` fire only when a write verb or a shell redirect comes
  before the path (spec §11 item 7, PR #111255), so documentation that mentions ``~/.ssh``
  or ``authorized_keys`` passes. ``${HOME}/.ssh`` counts as well as ``$HOME`` and ``~``;
  ``ssh_backdoor`` also counts ``dd of=``, a downloader's ``-o``/``--output`` and a script
  opening the file for append or write.
* ``html_comment_injection`` and ``translate_execute`` are abridged in the spec; the rules
  here are our own bounded reading of the description.
* Some rules match more than upstream's (issue: forms it misses): ``exfil_curl`` and
  ``exfil_wget`` also catch uploads of credentials files and dumps or pipes of the
  environment, ``read_secrets`` private SSH keys, ``hermes_env`` the home's ``.env`` by
  absolute path, ``$HERMES_HOME`` or a profile, ``hardcoded_secret`` unquoted values with
  letters and digits, and ``known_c2_framework`` Praxis. The ``secret_*`` rules catch
  credentials by their vendors' shapes, with upstream's ids; they read the text before
  lower-casing, since case is part of the shape.
* Every other rule matches exactly the texts upstream's regex matches, but in linear time.
  Upstream's regexes backtrack badly on some inputs: ``read_secrets`` takes about a second
  on 64 KiB of ``"cat "``, and ``send_to_url`` never finishes on a long run of spaces.
  ``tests/engine/memory/test_memory_scan.py`` checks each rule against upstream's regex on
  generated text (and that the extended ones match at least what upstream's does).
* Invisible characters are found by Unicode property, not only upstream's 17
  (:data:`INVISIBLE_CHARS`), and look-alike letters of other scripts are folded inside
  mixed-script words, although the spec says upstream folds no cross-script confusables
  (:mod:`.unicode_text`).
* A refusal goes on after upstream's sentence: how the agent would show the entry, what
  matched (never a credential) and how to reword it (:func:`refusal_advice`).

Pipeline: truncate to :data:`MAX_SCAN_CHARS`; look for invisible characters in that raw
text; remove every invisible character (so none can split a word); fold with NFKC; fold
look-alike letters and take accents off Latin letters; lower-case; run the rules that the
scope enables. There is no special
case for text that starts with ``[BLOCKED:`` (spec §11 item 8).

Linear time. Python's ``re`` backtracks, so each rule bounds the work per starting position:

* Upstream's filler ``(?:\\w+\\s+){0,8}`` allows at most nine choices per use, and its runs
  are possessive here (``\\w++\\s++``) so a word is never re-split. A possessive run is
  safe wherever the next token cannot start with a character the run consumes.
* ``A[^\\n]{0,2048}B`` rules (curl, wget, cat, send, config edits, hidden div) are not one
  regex, which would rescan up to 2,048 characters after every ``A``. All ``A`` ends and
  all ``B`` starts are found in one pass each, and each ``A`` is paired with the nearest
  ``B`` after it (:func:`_gapped`).
* A cheap substring test on the folded text first checks that the literal words a rule
  needs are present at all; most text skips most rules.
* Patterns start with a literal wherever possible (:func:`_word`), so ``re`` can jump to
  candidate positions instead of trying every one.

Matching is case-insensitive like upstream's ``re.IGNORECASE``, but done by folding the text
once (:func:`_fold`) and writing every pattern in lower case: that keeps character offsets,
lets ``re`` use its fast literal search, and makes the substring prefilter sound.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import MappingProxyType

from .unicode_text import (
    fold_accents,
    fold_confusables,
    hidden_characters,
    remove_all_invisible,
    remove_hidden,
)

__all__ = [
    "INVISIBLE_CHARS",
    "MAX_SCAN_CHARS",
    "PATTERN_IDS",
    "PATTERN_SCOPES",
    "SCOPES",
    "Finding",
    "explain",
    "find_invisible",
    "first_threat_message",
    "scan_findings",
    "scan_for_threats",
    "strip_invisible",
]

#: Content is cut to this many characters before scanning.
MAX_SCAN_CHARS = 65_536

#: Scopes from narrowest to widest; each one includes the rules of those before it.
SCOPES = ("all", "context", "strict")
_SCOPE_RANK = {scope: rank for rank, scope in enumerate(SCOPES)}

#: Upstream's zero-width and bidirectional-control characters, in the spec's order (which is
#: the order findings are reported in).
_UPSTREAM_INVISIBLE_ORDER = (
    "\u200b",  # ZERO WIDTH SPACE
    "\u200c",  # ZERO WIDTH NON-JOINER
    "\u200d",  # ZERO WIDTH JOINER
    "\u2060",  # WORD JOINER
    "\u2062",  # INVISIBLE TIMES
    "\u2063",  # INVISIBLE SEPARATOR
    "\u2064",  # INVISIBLE PLUS
    "\ufeff",  # ZERO WIDTH NO-BREAK SPACE (byte order mark)
    "\u202a",  # LEFT-TO-RIGHT EMBEDDING
    "\u202b",  # RIGHT-TO-LEFT EMBEDDING
    "\u202c",  # POP DIRECTIONAL FORMATTING
    "\u202d",  # LEFT-TO-RIGHT OVERRIDE
    "\u202e",  # RIGHT-TO-LEFT OVERRIDE
    "\u2066",  # LEFT-TO-RIGHT ISOLATE
    "\u2067",  # RIGHT-TO-LEFT ISOLATE
    "\u2068",  # FIRST STRONG ISOLATE
    "\u2069",  # POP DIRECTIONAL ISOLATE
)
#: Upstream's set, a frozenset as upstream has it. These are refused everywhere, even inside
#: an emoji sequence (the agent blocks them when it renders its prompt). Every other
#: invisible character is found by Unicode property (:mod:`.unicode_text`).
INVISIBLE_CHARS = frozenset(_UPSTREAM_INVISIBLE_ORDER)
_UPSTREAM_RANK = {char: rank for rank, char in enumerate(_UPSTREAM_INVISIBLE_ORDER)}
_INVISIBLE_PREFIX = "invisible_unicode_U+"

_PATTERN_MESSAGE = (
    "Blocked: content matches threat pattern '{id}'. Content is injected into the system "
    "prompt and must not contain injection or exfiltration payloads."
)
_INVISIBLE_MESSAGE = (
    "Blocked: content contains invisible unicode character {code} (possible injection)."
)


# --- Case folding ------------------------------------------------------------------------

# Characters that re.IGNORECASE equates with an ASCII letter although str.lower() does not
# turn them into it. Only the first two survive NFKC; the other two are here so that _fold
# is right even on unnormalised text. tests/engine/test_scan.py checks this over all of
# Unicode.
_SPECIAL_FOLDS = (("\u0130", "i"), ("\u0131", "i"), ("\u017f", "s"), ("\u212a", "k"))


def _fold(text: str) -> str:
    """Lower-case ``text`` one character for one character, like ``re.IGNORECASE`` sees it.

    A lower-case pattern matched against the result matches exactly where the same pattern
    with ``re.IGNORECASE`` matches the input, at the same offsets.
    """
    for special, ascii_letter in _SPECIAL_FOLDS:
        if special in text:  # a C-speed scan; replace() only in the rare case it is needed
            text = text.replace(special, ascii_letter)
    return text.lower()


# --- Matchers ----------------------------------------------------------------------------

#: Upstream's bound on "anything on the same line" between two parts of a pattern.
_GAP = 2048

#: A matcher takes folded text and returns the span of one match, or None.
Matcher = Callable[[str], tuple[int, int] | None]


def _regex(pattern: str) -> Matcher:
    compiled = re.compile(pattern)

    def search(text: str) -> tuple[int, int] | None:
        match = compiled.search(text)
        return match.span() if match else None

    return search


def _gapped(anchor: str, tail: str, *, max_gap: int = _GAP, barrier: str = "\n") -> Matcher:
    """Match ``anchor``, then at most ``max_gap`` characters other than ``barrier``, then ``tail``.

    This is upstream's ``anchor[^\\n]{0,2048}tail`` (or ``[^>]``), computed without
    backtracking: every anchor end and every tail start is found in one pass each, then each
    anchor end is paired with the nearest tail start at or after it. If the nearest tail is
    too far or behind a barrier, every later tail is too, so one check per anchor suffices.

    ``anchor`` must be written so that its end is the only place the gap can begin (for
    ``curl\\s+`` that means ``curl\\s++``: the tail never starts with whitespace, so giving
    the gap fewer spaces cannot help). Neither side may match overlapping occurrences of
    itself at different offsets, since ``finditer`` reports non-overlapping matches.
    """
    anchor_re, tail_re = re.compile(anchor), re.compile(tail)

    def search(text: str) -> tuple[int, int] | None:
        anchors = [match.span() for match in anchor_re.finditer(text)]
        if not anchors:
            return None
        tails = [match.span() for match in tail_re.finditer(text)]
        tail_starts = [start for start, _ in tails]
        for anchor_start, gap_start in anchors:
            nearest = bisect_left(tail_starts, gap_start)
            if nearest == len(tails):
                return None  # later anchors end later still: no tail after any of them
            tail_start, tail_end = tails[nearest]
            if tail_start - gap_start <= max_gap and text.find(barrier, gap_start, tail_start) < 0:
                return anchor_start, tail_end
        return None

    return search


def _first_of(*matchers: Matcher) -> Matcher:
    """Match where any of ``matchers`` does; the earliest-starting span wins."""

    def search(text: str) -> tuple[int, int] | None:
        spans = [span for span in (matcher(text) for matcher in matchers) if span]
        return min(spans) if spans else None

    return search


def _html_comment(keyword: str, *, before: int = 512, after: int = 512) -> Matcher:
    """Match an HTML comment with ``keyword`` in its body, at most ``before`` characters
    after ``<!--`` and ending at most ``after`` characters before the comment's ``-->``.

    The body runs to the first ``-->`` after ``<!--``, so a keyword between two comments
    does not count. Opens, closes and keywords are each found in one pass.
    """
    opener, closer, keyword_re = re.compile("<!--"), re.compile("-->"), re.compile(keyword)

    def search(text: str) -> tuple[int, int] | None:
        bodies = [match.span() for match in opener.finditer(text)]
        if not bodies:
            return None
        closes = [match.start() for match in closer.finditer(text)]
        if not closes or closes[-1] < bodies[0][1]:
            return None
        words = [match.span() for match in keyword_re.finditer(text)]
        word_starts = [start for start, _ in words]
        word_ends = [end for _, end in words]  # ascending too: matches never overlap
        for comment_start, body_start in bodies:
            next_close = bisect_left(closes, body_start)
            if next_close == len(closes):
                return None  # no later comment is closed either
            body_end = closes[next_close]
            first = bisect_left(word_starts, body_start)
            # The last word that starts early enough and ends inside the body leaves the
            # shortest stretch before the close; if it is still too far, all others are.
            last = min(
                bisect_right(word_starts, body_start + before),
                bisect_right(word_ends, body_end),
            ) - 1
            if last >= first and body_end - word_ends[last] <= after:
                return comment_start, body_end + len("-->")
        return None

    return search


# --- The catalogue -----------------------------------------------------------------------


def _word(literal: str) -> str:
    """``\\b<literal>``, written so that ``re`` can still find it with a fast literal scan.

    A pattern that starts with ``\\b`` or a lookbehind makes ``re`` try every position; one
    that starts with a literal lets it jump between occurrences. The boundary before the word
    is checked from its end instead: the character before ``literal`` must not be a word
    character, which is what ``\\b`` means when ``literal`` starts with one.
    """
    assert re.fullmatch(r"\w+", literal), literal
    return rf"{literal}(?<!\w{literal})"


# Spec shorthand, in folded (lower-case) form. _FILLER is upstream's F, (?:\w+\s+){0,8},
# with possessive runs: every use is followed by a letter, so a word can only end at its
# last letter and its whitespace only at the next word. The bound of 8 words caps the work
# per start at a constant.
_FILLER = r"(?:\w++\s++){0,8}"
_SECRET_VAR = r"\$\{?\w*(?:key|token|secret|password|credential)s?\b"  # upstream's SV
_EDIT_VERB = r"(?:update|modify|edit|write|change|append|add\s++to)\s++"  # upstream's MOD


def _send_to_url(max_gap: int = _GAP) -> Matcher:
    """Upstream's ``(send|post|upload|transmit)\\s+[^\\n]{0,2048}\\s+(to|at)\\s+https?://``.

    As one regex, ``[^\\n]{0,2048}\\s+`` splits every run of spaces every possible way and
    never finishes on a long one. Its matches fall into two cases:

    * "to"/"at" straight after the verb's whitespace. The run must then hold at least two
      whitespace characters, one for each ``\\s+`` (so "send to https://" does not match,
      "send  to https://" does; an upstream quirk kept for compatibility).
    * Other text in between. The best split gives the gap everything from the end of the
      verb's whitespace to the start of the whitespace run before "to"/"at".
    """
    verb = r"(?:send|post|upload|transmit)"
    return _first_of(
        _regex(rf"{verb}\s{{2,}}+(?:to|at)\s++https?://"),
        _gapped(rf"{verb}\s++", r"(?<!\s)\s++(?:to|at)\s++https?://", max_gap=max_gap),
    )


# ssh rules (PR #111255): the path must follow a write verb within six arguments on the
# same line, or a shell redirect. Verbs are imperatives and shell commands only, so "keys
# are stored in ~/.ssh" stays clean. An argument ending in sentence punctuation or a shell
# separator (, . ; : ! ? & |) ends the verb's reach: "Install OpenSSH, then keys go in
# ~/.ssh" and "cp a b && ls ~/.ssh" are not writes. A bare ">" counts only after
# whitespace, a pipe, "&", ";" or a file-descriptor digit, so "<code>~/.ssh</code>" is not
# a redirect; ">>" always is. ${HOME}/.ssh is accepted as well as $HOME/.ssh and ~/.ssh.
_WRITE_VERBS = (
    "write overwrite append add insert echo printf tee cp scp rsync copy mv move install put ln"
)
_WRITE_VERB = (
    "(?:" + "|".join(map(_word, _WRITE_VERBS.split())) + "|" + _word("sed") + r"\s++-i)\b"
)
_VERB_ARGS = r"(?:[^\S\n]++\S++(?<![.,;:!?&|])){0,6}?[^\S\n]++"
# ">(?<![^\s|&;0-9]>)" is "(?<![^\s|&;0-9])>" with the check moved after the ">", so that the
# pattern starts with a literal (see _word).
_REDIRECT = r"(?:>>|>(?<![^\s|&;0-9]>))[^\S\n]*+"
_SSH_DIR = r"(?:~|\$home|\$\{home\})/\.ssh"


def _after_writer(path: str) -> Matcher:
    # Two regexes rather than one (?:verb...|redirect)path: re skips ahead to a possible
    # first character only when every alternative starts with a literal; here that makes
    # the scan about five times faster.
    return _first_of(_regex(rf"{_WRITE_VERB}{_VERB_ARGS}{path}"), _regex(_REDIRECT + path))


@dataclass(frozen=True)
class _Rule:
    id: str
    scope: str
    explanation: str
    # Every group must have one of its words in the folded text, or the rule cannot match.
    # Each word is a literal part of every possible match, in lower case.
    needs: tuple[tuple[str, ...], ...]
    match: Matcher
    # Credential shapes depend on case (AKIA..., eyJ...): those rules see the normalised text
    # before lower-casing, and their refusal never quotes what matched.
    case_sensitive: bool = False

    def could_match(self, folded: str) -> bool:
        return all(any(word in folded for word in group) for group in self.needs)


def _rule(
    rule_id: str,
    scope: str,
    match: Matcher,
    needs: str,
    explanation: str,
    *,
    case_sensitive: bool = False,
) -> _Rule:
    """``needs`` is a compact prefilter: groups split by ``;``, alternatives by ``|``."""
    groups = tuple(tuple(group.split("|")) for group in needs.split(";"))
    return _Rule(rule_id, scope, explanation, groups, match, case_sensitive)


# --- Extensions beyond upstream's table (issue: exfiltration forms it missed) --------------

# Files whose contents are credentials. ".env" must end the name (".env.example" is a
# template); private keys must not continue into ".pub".
_SECRET_FILE = (
    r"(?:\.env(?![\w.-])|\.env\.(?:local|prod|production)\b|credentials|\.netrc|\.pgpass"
    r"|\.npmrc|\.pypirc|id_(?:rsa|dsa|ecdsa|ed25519)(?![\w.])|\.docker/config\.json"
    r"|\.kube/config|/etc/shadow)"
)
# What curl or wget would send: a secret file as an upload (@file, -T, --upload-file,
# --post-file, --body-file), or a dump of the environment.
_UPLOADED_SECRET = (
    rf"(?:@|(?:--upload-file|-t(?<!\S-t)|--post-file|--body-file)[\s=]++[\"']?)"
    rf"[^\s\"'@]{{0,256}}?{_SECRET_FILE}"
)
_ENV_DUMP = (
    r"\$\(\s*+(?:env|printenv|set|export\s++-p|compgen\s++-v)\b|`\s*+(?:env|printenv)\s*+`"
    r"|/proc/(?:self|\d++)/environ|os\.environ"
)
# The environment piped into the uploader ("cat .env | curl" is read_secrets already).
_ENV_PIPE = (
    r"(?:" + "|".join(rf"{name}(?<!\w{name})" for name in ("env", "printenv", "set"))
    + r"|export\s++-p)\s*+\|"
)


def _exfil(tool: str) -> Matcher:
    r"""Upstream's ``tool\s+[^\n]{0,2048}SV``, plus uploads of secret files, environment
    dumps, and the environment piped into ``tool``."""
    return _first_of(
        _gapped(rf"{tool}\s++", _SECRET_VAR),
        _gapped(rf"{tool}\s++", _UPLOADED_SECRET),
        _gapped(rf"{tool}\s++", _ENV_DUMP),
        _gapped(_ENV_PIPE, rf"{tool}\b"),
    )


def _ssh_backdoor() -> Matcher:
    """A write verb or redirect before authorized_keys (PR #111255), and the other ways of
    writing a file: ``dd of=``, ``-o``/``--output`` of a downloader, a script opening it
    for append or write."""
    path = r"\S{0,256}?authorized[_ -]keys"
    return _first_of(
        _after_writer(path),
        _regex(r"(?:of=|-o(?<!\S-o)[\s=]*+|--output[\s=]++)[\"']?" + path),
        _regex(
            r"authorized_keys2?[\"']\s*+(?:,\s*+(?:mode\s*+=\s*+)?[\"'][aw+]"
            r"|\)\s*+\.(?:write_text|write_bytes|open\s*+\(\s*+[\"'][aw+]))"
        ),
    )


# ~/.hermes/.env, and the same file by absolute path, ${HOME}, a profile or $HERMES_HOME.
_HERMES_ENV = (
    r"(?:(?:\$home|\$\{home\}|~|/root|/home/[^/\s]{1,64}|/users/[^/\s]{1,64})/\.hermes"
    r"(?:/profiles/[^/\s]{1,64})?|\$\{?hermes_home\}?)/\.env"
)



def _token(prefix: str, body: str) -> str:
    """``prefix`` then ``body``, where the prefix must not continue a longer word (so
    ``task-...`` is not ``sk-...``). Starts with the literal, so ``re`` can skip to it."""
    return rf"{prefix}(?<![A-Za-z0-9_-]{prefix}){body}"


# A digit somewhere in the next 200 characters: real keys have them, prose slugs rarely do.
_HAS_DIGIT = r"(?=[A-Za-z0-9_-]{0,200}\d)"


# Declaration order is report order; it follows the spec's table.
_RULES: tuple[_Rule, ...] = (
    _rule(
        "prompt_injection", "all",
        _regex(rf"ignore\s++{_FILLER}(?:previous|all|above|prior)\s++{_FILLER}instructions"),
        "ignore;instructions;previous|all|above|prior",
        "Tells the model to ignore its earlier instructions, the classic prompt-injection "
        "opener.",
    ),
    _rule(
        "sys_prompt_override", "all",
        _regex(r"system\s++prompt\s++override"),
        "system;prompt;override",
        "Claims to override the system prompt, which stored text must never do.",
    ),
    _rule(
        "disregard_rules", "all",
        _regex(
            rf"disregard\s++{_FILLER}(?:your|all|any)\s++{_FILLER}"
            r"(?:instructions|rules|guidelines)"
        ),
        "disregard;your|all|any;instructions|rules|guidelines",
        "Asks the model to disregard its instructions, rules or guidelines.",
    ),
    _rule(
        "bypass_restrictions", "all",
        _regex(
            rf"act\s++as\s++(?:if|though)\s++{_FILLER}you\s++{_FILLER}"
            rf"(?:have\s++no|don't\s++have)\s++{_FILLER}(?:restrictions|limits|rules)"
        ),
        "act;you;have;restrictions|limits|rules",
        "Asks the model to act as if it had no restrictions, limits or rules.",
    ),
    _rule(
        # Abridged in the spec. Ours: <!-- ... a standalone word within 512 characters of the
        # opening ... the comment's own --> within 512 characters after the word.
        "html_comment_injection", "all",
        _html_comment(r"\b(?:ignore|override|system|secret|hidden)\b"),
        "<!--;-->;ignore|override|system|secret|hidden",
        "Hides an instruction word (ignore, override, system, secret, hidden) inside an HTML "
        "comment, which a person reading rendered text never sees.",
    ),
    _rule(
        "hidden_div", "all",
        _gapped(
            r"""<\s*+div\s++style\s*+=\s*+["']""", r"display\s*+:\s*+none", barrier=">"
        ),
        "div;style;display;none",
        "Uses a div styled display:none, text that is hidden from a person but read by the "
        "model.",
    ),
    _rule(
        # Abridged in the spec. Ours: "translate", then on the same line within 512
        # characters "into", one to three words, "and", then execute, run or eval.
        "translate_execute", "all",
        _gapped(
            r"translate",
            _word("into") + r"\s++(?:\w++\s++){1,3}and\s++(?:execute|run|eval)",
            max_gap=512,
        ),
        "translate;into;and;execute|run|eval",
        "Asks for text to be translated into code or commands and then run.",
    ),
    _rule(
        "deception_hide", "all",
        _regex(rf"do\s++not\s++{_FILLER}tell\s++{_FILLER}the\s++user"),
        "do;not;tell;the;user",
        "Tells the model to keep something from the user.",
    ),
    _rule(
        "role_hijack", "context",
        _regex(rf"you\s++are\s++{_FILLER}now\s++(?:a|an|the)\s+"),
        "you;are;now",
        'Tries to give the model a new identity ("you are now a ...").',
    ),
    _rule(
        "role_pretend", "context",
        _regex(rf"pretend\s++{_FILLER}(?:you\s++are|to\s++be)\s+"),
        "pretend",
        "Asks the model to pretend to be someone or something else.",
    ),
    _rule(
        "leak_system_prompt", "context",
        _regex(rf"output\s++{_FILLER}(?:system|initial)\s++prompt"),
        "output;prompt;system|initial",
        "Asks the model to output its system or initial prompt.",
    ),
    _rule(
        "remove_filters", "context",
        _regex(
            rf"(?:respond|answer|reply)\s++without\s++{_FILLER}"
            r"(?:restrictions|limitations|filters|safety)"
        ),
        "without;respond|answer|reply;restrictions|limitations|filters|safety",
        "Asks the model to answer without its restrictions, filters or safety rules.",
    ),
    _rule(
        "fake_update", "context",
        _regex(rf"you\s++have\s++been\s++{_FILLER}(?:updated|upgraded|patched)\s++to"),
        "you;have;been;updated|upgraded|patched",
        "Falsely tells the model it has been updated, upgraded or patched to behave "
        "differently.",
    ),
    _rule(
        "identity_override", "context",
        _regex(_word("name") + r"\s++yourself\s++\w+"),
        "name;yourself",
        "Tells the model to give itself a new name.",
    ),
    _rule(
        # Upstream: register\s+(as\s+)?a?\s*node. Its \s+ then \s* share a run of spaces,
        # which is quadratic on a long run; possessive runs cannot split it.
        "c2_node_registration", "context",
        _regex(r"register\s++(?:as\s++)?a?\s*+node"),
        "register;node",
        "Asks the agent to register itself as a node, the way a botnet client joins.",
    ),
    _rule(
        "c2_heartbeat", "context",
        _regex(r"(?:heartbeat|beacon|check[\s\-]?in)\s++(?:to|with)\s+"),
        "heartbeat|beacon|check;to|with",
        "Asks the agent to send heartbeats to, or check in with, a remote controller.",
    ),
    _rule(
        "c2_task_pull", "context",
        _regex(r"pull\s++(?:down\s++)?(?:new\s++)?task(?:ing|s)?\b"),
        "pull;task",
        "Asks the agent to pull down new tasks from a remote controller.",
    ),
    _rule(
        "c2_network_connect", "context",
        _regex(r"connect\s++to\s++the\s++network\b"),
        "connect;network",
        'Asks the agent to "connect to the network", command-and-control phrasing.',
    ),
    _rule(
        "forced_action", "context",
        _regex(r"you\s++must\s++(?:\w++\s++){0,3}(?:register|connect|report|beacon)\b"),
        "you;must;register|connect|report|beacon",
        "Orders the agent to register, connect, report or beacon somewhere.",
    ),
    _rule(
        "anti_forensic_oneliner", "context",
        _regex(r"only\s++use\s++one[\s\-]?liners?\b"),
        "only;use;liner",
        "Tells the agent to use only one-liners, so that no script is left behind.",
    ),
    _rule(
        "anti_forensic_disk", "context",
        _regex(
            rf"never\s++{_FILLER}(?:create|write)\s++{_FILLER}(?:script|file)\s++{_FILLER}disk"
        ),
        "never;disk;create|write;script|file",
        "Tells the agent never to write scripts or files to disk, so that no trace is left.",
    ),
    _rule(
        "env_var_unset_agent", "context",
        _regex(r"unset\s++\w*(?:claude|codex|hermes|agent|openai|anthropic)\w*"),
        "unset;claude|codex|hermes|agent|openai|anthropic",
        "Unsets an environment variable of an AI agent or provider, which can switch off "
        "its safeguards.",
    ),
    _rule(
        "known_c2_framework", "context",
        _regex(
            rf"(?:{_word('cobalt')}\s*strike|{_word('sliver')}|{_word('havoc')}"
            rf"|{_word('mythic')}|{_word('metasploit')}|{_word('brainworm')}"
            rf"|{_word('praxis')})\b"
        ),
        "cobalt|sliver|havoc|mythic|metasploit|brainworm|praxis",
        "Names a known command-and-control or exploitation framework.",
    ),
    _rule(
        "c2_explicit", "context",
        _regex(_word("c2") + r"\s++(?:server|channel|infrastructure|beacon)\b"),
        "c2",
        "Mentions a C2 (command-and-control) server, channel, infrastructure or beacon.",
    ),
    _rule(
        "c2_explicit_long", "context",
        _regex(_word("command") + r"\s++and\s++control\b"),
        "command;control",
        "Mentions command and control, the remote steering of compromised machines.",
    ),
    _rule(
        "exfil_curl", "all",
        _exfil("curl"),
        "curl;$|@|-t|upload-file|post-file|body-file|environ|`",
        "Sends a secret off the machine with curl: a secret-looking variable (a KEY, TOKEN, "
        "SECRET, PASSWORD or CREDENTIAL), an uploaded credentials file, or the environment.",
    ),
    _rule(
        "exfil_wget", "all",
        _exfil("wget"),
        "wget;$|@|-t|upload-file|post-file|body-file|environ|`",
        "Sends a secret off the machine with wget: a secret-looking variable (a KEY, TOKEN, "
        "SECRET, PASSWORD or CREDENTIAL), an uploaded credentials file, or the environment.",
    ),
    _rule(
        "read_secrets", "all",
        _gapped(
            r"cat\s++",
            r"\.env|credentials|\.netrc|\.pgpass|\.npmrc|\.pypirc"
            r"|id_(?:rsa|dsa|ecdsa|ed25519)(?![\w.])",
        ),
        "cat;.env|credentials|.netrc|.pgpass|.npmrc|.pypirc|id_",
        "Prints a credentials file (.env, .netrc, .pgpass, .npmrc, .pypirc, credentials or a "
        "private SSH key) with cat.",
    ),
    _rule(
        "send_to_url", "strict",
        _send_to_url(),
        "send|post|upload|transmit;http;://",
        "Asks for something to be sent, posted or uploaded to a web address.",
    ),
    _rule(
        "context_exfil", "strict",
        _regex(
            rf"(?:include|output|print|share)\s++{_FILLER}(?:conversation|chat\s++history"
            r"|previous\s++messages|full\s++context|entire\s++context)"
        ),
        "include|output|print|share;conversation|history|messages|context",
        "Asks the model to include or share the conversation or its full context.",
    ),
    _rule(
        # Upstream flagged any mention of authorized_keys; documentation tripped it (#26111).
        "ssh_backdoor", "strict",
        _ssh_backdoor(),
        "authorized",
        "Writes to an SSH authorized_keys file, which would let someone log in to this "
        "machine.",
    ),
    _rule(
        # Upstream flagged any mention of ~/.ssh or $HOME/.ssh; documentation tripped it.
        "ssh_access", "strict",
        _after_writer(rf"[\"'`]?{_SSH_DIR}"),
        "/.ssh",
        "Writes into the SSH directory (~/.ssh), where login keys and settings live.",
    ),
    _rule(
        "hermes_env", "strict",
        _regex(_HERMES_ENV),
        "/.env",
        "Refers to ~/.hermes/.env, the file that holds the agent's API keys.",
    ),
    _rule(
        "agent_config_mod", "strict",
        _gapped(_EDIT_VERB, r"agents\.md|claude\.md|\.cursorrules|\.clinerules"),
        "update|modify|edit|write|change|append|add;agents.md|claude.md|.cursorrules|.clinerules",
        "Asks for an agent instruction file (AGENTS.md, CLAUDE.md, .cursorrules or "
        ".clinerules) to be changed.",
    ),
    _rule(
        "hermes_config_mod", "strict",
        _gapped(_EDIT_VERB, r"\.hermes/(?:config\.yaml|soul\.md)"),
        "update|modify|edit|write|change|append|add;.hermes/;config.yaml|soul.md",
        "Asks for the agent's own configuration (.hermes/config.yaml or SOUL.md) to be "
        "changed.",
    ),
    _rule(
        # Upstream needs a quote before the value; an unquoted value counts here too when it
        # has both letters and digits, so "password: correct-horse-battery-staple" passes.
        "hardcoded_secret", "strict",
        _regex(
            r"(?:api[_-]?key|token|secret|password)\s*+[=:]\s*+"
            r"""(?:["'][a-z0-9+/=_-]{20,}"""
            r"|(?=[a-z+/=_-]{0,200}\d)(?=[0-9+/=_-]{0,200}[a-z])[a-z0-9+/=_-]{20,})"
        ),
        "key|token|secret|password;=|:",
        "Contains what looks like a real API key, token, secret or password written out in "
        "full.",
    ),
    # Credentials by their vendors' shapes, on the text before lower-casing.
    _rule(
        "secret_openai_key", "strict",
        _regex(_token("sk-", rf"(?:proj-|svcacct-|admin-)?{_HAS_DIGIT}[A-Za-z0-9_-]{{20,}}+")),
        "sk-",
        "Contains what looks like an OpenAI (or other sk-) API key.",
        case_sensitive=True,
    ),
    _rule(
        "secret_github_pat", "strict",
        _first_of(
            _regex(_token("gh[pousr]_", r"[A-Za-z0-9]{36,}+")),
            _regex(_token("github_pat_", r"[A-Za-z0-9_]{22,}+")),
        ),
        "ghp_|gho_|ghu_|ghs_|ghr_|github_pat_",
        "Contains what looks like a GitHub access token.",
        case_sensitive=True,
    ),
    _rule(
        "secret_gitlab_pat", "strict",
        _regex(_token("glpat-", r"[A-Za-z0-9_-]{20,}+")),
        "glpat-",
        "Contains what looks like a GitLab personal access token.",
        case_sensitive=True,
    ),
    _rule(
        "secret_slack_token", "strict",
        _first_of(
            _regex(_token("xox[abeoprs]-", rf"{_HAS_DIGIT}[A-Za-z0-9-]{{10,}}+")),
            _regex(_token("xapp-", r"\d-[A-Za-z0-9-]{10,}+")),
        ),
        "xox|xapp-",
        "Contains what looks like a Slack token.",
        case_sensitive=True,
    ),
    _rule(
        # AKIAIOSFODNN7EXAMPLE is the documentation's own sample key.
        "secret_aws_access_key", "strict",
        _regex(
            r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)"
            r"[A-Z0-9]{16}(?![A-Z0-9])(?<!EXAMPLE)"
        ),
        "akia|asia|abia|acca|agpa|aida|aipa|anpa|anva|aroa|apka|asca",
        "Contains what looks like an AWS access key id.",
        case_sensitive=True,
    ),
    _rule(
        "secret_google_api_key", "strict",
        _regex(_token("AIza", r"[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])")),
        "aiza",
        "Contains what looks like a Google API key.",
        case_sensitive=True,
    ),
    _rule(
        "secret_stripe_key", "strict",
        _regex(_token("(?:sk|rk)_(?:live|test)_", r"[0-9A-Za-z]{16,}+")),
        "_live_|_test_",
        "Contains what looks like a Stripe secret key.",
        case_sensitive=True,
    ),
    _rule(
        "secret_npm_token", "strict",
        _regex(_token("npm_", r"[A-Za-z0-9]{36}(?![A-Za-z0-9])")),
        "npm_",
        "Contains what looks like an npm access token.",
        case_sensitive=True,
    ),
    _rule(
        "secret_bearer_token", "strict",
        _regex(r"(?:Bearer|bearer|BEARER)\s++(?=[A-Za-z0-9._~+/-]{0,200}\d)[A-Za-z0-9._~+/-]{20,}+"),
        "bearer",
        "Contains what looks like a bearer token from an Authorization header.",
        case_sensitive=True,
    ),
    _rule(
        "secret_jwt", "strict",
        _regex(r"eyJ[A-Za-z0-9_-]{8,}+\.eyJ[A-Za-z0-9_-]{8,}+\.[A-Za-z0-9_-]{8,}"),
        "eyj",
        "Contains what looks like a JSON Web Token, which grants access until it expires.",
        case_sensitive=True,
    ),
    _rule(
        "secret_private_key", "strict",
        _regex(
            r"-----BEGIN (?:[A-Z0-9]++ ){0,3}PRIVATE KEY(?: BLOCK)?-----\s*+"
            r"(?:[A-Za-z-]++: [^\n]*+\n\s*+){0,4}[A-Za-z0-9+/=]{20}"
        ),
        "private key-----",
        "Contains a private key.",
        case_sensitive=True,
    ),
    _rule(
        # The password must be real: not a placeholder, a ${VARIABLE} or the user name again
        # (postgres:postgres@localhost is a local default, not a secret).
        "secret_database_url", "strict",
        _regex(
            r"(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver"
            r"|cockroachdb|clickhouse|couchdb)://([^\s:/@]{1,128}):"
            r"(?!(?:password|passwd|pass|pwd|secret|changeme|example|xxx+|\*+|\.\.\.|\1)@)"
            r"(?![$<{%*\[])[^\s@/]{1,256}@"
        ),
        "://;@",
        "Contains a database address with its password written out.",
    ),
)

#: Every pattern id, in declaration (report) order.
PATTERN_IDS: tuple[str, ...] = tuple(rule.id for rule in _RULES)
#: The scope each pattern id is tagged with.
PATTERN_SCOPES = MappingProxyType({rule.id: rule.scope for rule in _RULES})
_EXPLANATIONS = {rule.id: rule.explanation for rule in _RULES}

#: What kind of threat each pattern is, for reports and for the advice in a refusal.
RULE_FAMILIES = MappingProxyType(
    {
        rule.id: (
            "secret" if rule.id.startswith("secret_") or rule.id == "hardcoded_secret"
            else "exfiltration" if rule.id in {
                "exfil_curl", "exfil_wget", "read_secrets", "send_to_url", "context_exfil",
                "hermes_env",
            }
            else "persistence" if rule.id in {
                "ssh_backdoor", "ssh_access", "agent_config_mod", "hermes_config_mod",
            }
            else "c2" if rule.id.startswith(("c2_", "anti_forensic", "known_c2"))
            or rule.id in {"forced_action", "env_var_unset_agent"}
            else "injection"
        )
        for rule in _RULES
    }
)

# How to keep the fact without tripping the rule, per family.
_ADVICE = {
    "injection": "If the entry is about such a phrase rather than an instruction, describe it "
    "instead of quoting it (e.g. \"a prompt-injection test string\").",
    "c2": "The check matches the whole word or phrase whatever it means here; reword it "
    "without that wording (e.g. \"a thin slice of lime\" for \"a sliver of lime\").",
    "exfiltration": "Describe the step instead of writing out the command or path (e.g. "
    "\"upload the report with curl\"), and leave secrets and their files out.",
    "persistence": "Describe the change instead of writing out the command (e.g. \"the deploy "
    "key is installed on the server\").",
    "secret": "Never store the credential itself: keep it in a password manager or an "
    "environment variable and note only where it lives (e.g. \"the OpenAI key is in "
    "1Password\").",
}


# --- Public API --------------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    """One threat found in a piece of text.

    ``start``/``end`` locate the first occurrence. For ``kind == "invisible"`` they are
    offsets into the original text. For ``kind == "pattern"`` matching runs on the
    normalised text (invisible characters removed, NFKC, look-alike letters folded one for
    one), so they are offsets into ``normalised(text)`` (after truncation to
    :data:`MAX_SCAN_CHARS`); ``span_in_original`` is True when normalisation changed
    nothing, so the offsets are valid for the original text too.
    """

    id: str
    scope: str
    kind: str  # "invisible" or "pattern"
    start: int
    end: int
    explanation: str
    span_in_original: bool = True

    @property
    def span(self) -> tuple[int, int]:
        return self.start, self.end


def _invisible_id(char: str) -> str:
    return f"{_INVISIBLE_PREFIX}{ord(char):04X}"


def _invisible_explanation(char: str) -> str:
    name = unicodedata.name(char, "an unnamed character").lower()
    return (
        f"The invisible character U+{ord(char):04X} ({name}) can hide or reorder text for a "
        "person while the model still reads it."
    )


def explain(threat_id: str) -> str | None:
    """The plain-English explanation for a pattern or invisible-character id, else None."""
    if threat_id in _EXPLANATIONS:
        return _EXPLANATIONS[threat_id]
    if threat_id.startswith(_INVISIBLE_PREFIX):
        try:
            char = chr(int(threat_id.removeprefix(_INVISIBLE_PREFIX), 16))
        except (ValueError, OverflowError):
            return None
        if hidden_characters(char, INVISIBLE_CHARS):
            return _invisible_explanation(char)
    return None


def rule_family(threat_id: str) -> str:
    """The family of a finding id: injection, c2, exfiltration, persistence, secret or
    invisible."""
    return RULE_FAMILIES.get(threat_id, "invisible")


def _active_rules(scope: str) -> list[_Rule]:
    if scope not in _SCOPE_RANK:
        raise ValueError(f"Unknown scan scope {scope!r}; expected one of {', '.join(SCOPES)}")
    rank = _SCOPE_RANK[scope]
    return [rule for rule in _RULES if _SCOPE_RANK[rule.scope] <= rank]


def _hidden(text: str) -> list[tuple[int, str]]:
    return hidden_characters(text, INVISIBLE_CHARS)


def normalise(text: str) -> str:
    """What the rules read (before lower-casing): ``text`` as a reader sees it, without
    invisible characters, NFKC-folded, with look-alike letters folded to ASCII and accents
    taken off Latin letters."""
    nfkc = unicodedata.normalize("NFKC", remove_all_invisible(text))
    return fold_accents(fold_confusables(nfkc))


def _iter_findings(content: str, scope: str) -> Iterator[Finding]:
    rules = _active_rules(scope)  # raises on a bad scope even for empty content
    raw = content[:MAX_SCAN_CHARS]
    first_seen: dict[str, int] = {}
    for index, char in _hidden(raw):
        first_seen.setdefault(char, index)
    # Upstream's characters in its order, then the others by code point.
    for char in sorted(first_seen, key=lambda c: (_UPSTREAM_RANK.get(c, len(_UPSTREAM_RANK)), c)):
        index = first_seen[char]
        yield Finding(
            _invisible_id(char), "all", "invisible", index, index + 1,
            _invisible_explanation(char),
        )
    # Confusable folding lower-cases what it folds, so case-sensitive rules read the NFKC
    # text before it.
    nfkc = unicodedata.normalize("NFKC", remove_all_invisible(raw))
    normalized = fold_accents(fold_confusables(nfkc))
    folded = _fold(normalized)
    unchanged = normalized == raw
    for rule in rules:
        if not rule.could_match(folded):
            continue
        span = rule.match(nfkc if rule.case_sensitive else folded)
        if span is not None:
            yield Finding(rule.id, rule.scope, "pattern", *span, rule.explanation, unchanged)


def scan_findings(content: str, scope: str = "strict") -> list[Finding]:
    """Every threat in ``content`` for ``scope``: invisible characters first (upstream's
    :data:`INVISIBLE_CHARS` in the spec's order, then any other by code point), then patterns
    in declaration order. One finding per id, so ``[f.id for f in scan_findings(c, s)] ==
    scan_for_threats(c, s)``.

    Raises ValueError for a scope outside :data:`SCOPES`.
    """
    return list(_iter_findings(content, scope))


def scan_for_threats(content: str, scope: str = "strict") -> list[str]:
    """The ids of every threat in ``content``, in the order of :func:`scan_findings`."""
    return [finding.id for finding in _iter_findings(content, scope)]


def refusal_advice(finding: Finding, content: str) -> str:
    """What a refusal adds to upstream's sentence: that the agent would show the entry only
    as ``[BLOCKED: …]``, what matched (never a credential), and how to reword it."""
    blocked = (
        f" Entries are checked again when the system prompt is built, and this one would "
        f"appear there only as [BLOCKED: … threat pattern(s): {finding.id} …]."
    )
    if finding.kind == "invisible":
        char = chr(int(finding.id.removeprefix(_INVISIBLE_PREFIX), 16))
        name = unicodedata.name(char, "an unnamed character")
        joiner = (
            " Emoji joined with it (like a family emoji) are refused too: write them "
            "separately or name them in words."
            if char in INVISIBLE_CHARS else ""
        )
        hidden = "".join(
            chr(ord(c) - 0xE0000) for c in content[:MAX_SCAN_CHARS] if 0xE0020 <= ord(c) <= 0xE007E
        )
        smuggled = f' Tag characters here spell out hidden text: "{hidden[:80]}".' if hidden else ""
        return (
            f"{blocked} U+{ord(char):04X} is {name}, which a reader cannot see.{smuggled} "
            f"Remove it (the app's \"strip invisible characters\" does) and save again.{joiner}"
        )
    family = rule_family(finding.id)
    quoted = ""
    if family != "secret":
        text = normalise(content[:MAX_SCAN_CHARS])[finding.start : finding.end]
        text = " ".join(text.split())
        if len(text) > 60:
            text = text[:57] + "..."
        quoted = f' It matched "{text}".'
    return f"{blocked}{quoted} {_ADVICE[family]}"


def first_threat_message(content: str, scope: str = "strict") -> str | None:
    """The refusal for the first threat in ``content``, or None if it is clean.

    It starts with upstream's exact sentence (clients match on it) and goes on with
    :func:`refusal_advice`.
    """
    first = next(_iter_findings(content, scope), None)
    if first is None:
        return None
    if first.kind == "invisible":
        message = _INVISIBLE_MESSAGE.format(code=first.id.removeprefix("invisible_unicode_"))
    else:
        message = _PATTERN_MESSAGE.format(id=first.id)
    return message + refusal_advice(first, content)


def find_invisible(content: str) -> list[tuple[int, str]]:
    """``(index, char)`` for every invisible character the scan refuses, in the whole of
    ``content`` (honest emoji sequences excepted).

    Unlike the scan this is not truncated: it is meant for showing an editor where they are.
    """
    return _hidden(content)


def strip_invisible(content: str) -> str:
    """``content`` without the characters :func:`find_invisible` reports."""
    return remove_hidden(content, INVISIBLE_CHARS)
