"""Threat scanner for text that will be injected into a system prompt.

Compatible with upstream Hermes ``tools/threat_patterns.py`` (spec §2.8): the same ids, the
same scopes, the same result order and the same refusal messages. Where it differs, on
purpose:

* ``ssh_backdoor`` and ``ssh_access`` fire only when a write verb or a shell redirect comes
  before the path (spec §11 item 7, PR #111255), so documentation that mentions ``~/.ssh``
  or ``authorized_keys`` passes. ``${HOME}/.ssh`` counts as well as ``$HOME`` and ``~``.
* ``html_comment_injection`` and ``translate_execute`` are abridged in the spec; the rules
  here are our own bounded reading of the description.
* Every other rule matches exactly the texts upstream's regex matches, but in linear time.
  Upstream's regexes backtrack badly on some inputs: ``read_secrets`` takes about a second
  on 64 KiB of ``"cat "``, and ``send_to_url`` never finishes on a long run of spaces.
  ``tests/engine/test_scan.py`` checks each rule against upstream's regex on generated text.

Pipeline: truncate to :data:`MAX_SCAN_CHARS`; look for invisible characters in that raw text;
fold it with NFKC; lower-case it; run the rules that the scope enables. There is no special
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

#: Zero-width and bidirectional-control characters, in the spec's order (which is the order
#: findings are reported in).
INVISIBLE_CHARS = (
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
_INVISIBLE_RE = re.compile("[" + "".join(INVISIBLE_CHARS) + "]")
_STRIP_INVISIBLE = str.maketrans(dict.fromkeys(INVISIBLE_CHARS))
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
_AUTHORIZED_KEYS_PATH = r"\S{0,256}?authorized_keys"


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
    # Each word is a literal part of every possible match.
    needs: tuple[tuple[str, ...], ...]
    match: Matcher

    def could_match(self, folded: str) -> bool:
        return all(any(word in folded for word in group) for group in self.needs)


def _rule(rule_id: str, scope: str, match: Matcher, needs: str, explanation: str) -> _Rule:
    """``needs`` is a compact prefilter: groups split by ``;``, alternatives by ``|``."""
    groups = tuple(tuple(group.split("|")) for group in needs.split(";"))
    return _Rule(rule_id, scope, explanation, groups, match)


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
            rf"|{_word('mythic')}|{_word('metasploit')}|{_word('brainworm')})\b"
        ),
        "cobalt|sliver|havoc|mythic|metasploit|brainworm",
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
        _gapped(r"curl\s++", _SECRET_VAR),
        "curl;$;key|token|secret|password|credential",
        "Passes a secret-looking variable (a KEY, TOKEN, SECRET, PASSWORD or CREDENTIAL) to "
        "curl, which would send it off the machine.",
    ),
    _rule(
        "exfil_wget", "all",
        _gapped(r"wget\s++", _SECRET_VAR),
        "wget;$;key|token|secret|password|credential",
        "Passes a secret-looking variable (a KEY, TOKEN, SECRET, PASSWORD or CREDENTIAL) to "
        "wget, which would send it off the machine.",
    ),
    _rule(
        "read_secrets", "all",
        _gapped(r"cat\s++", r"\.env|credentials|\.netrc|\.pgpass|\.npmrc|\.pypirc"),
        "cat;.env|credentials|.netrc|.pgpass|.npmrc|.pypirc",
        "Prints a credentials file (.env, .netrc, .pgpass, .npmrc, .pypirc or credentials) "
        "with cat.",
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
        _after_writer(_AUTHORIZED_KEYS_PATH),
        "authorized_keys",
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
        _regex(r"(?:\$home|~)/\.hermes/\.env"),
        "/.hermes/.env",
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
        "hardcoded_secret", "strict",
        _regex(r"""(?:api[_-]?key|token|secret|password)\s*+[=:]\s*+["'][a-z0-9+/=_-]{20,}"""),
        "key|token|secret|password;=|:",
        "Contains what looks like a real API key, token, secret or password written out in "
        "full.",
    ),
)

#: Every pattern id, in declaration (report) order.
PATTERN_IDS: tuple[str, ...] = tuple(rule.id for rule in _RULES)
#: The scope each pattern id is tagged with.
PATTERN_SCOPES = MappingProxyType({rule.id: rule.scope for rule in _RULES})
_EXPLANATIONS = {rule.id: rule.explanation for rule in _RULES}


# --- Public API --------------------------------------------------------------------------


@dataclass(frozen=True)
class Finding:
    """One threat found in a piece of text.

    ``start``/``end`` locate the first occurrence. For ``kind == "invisible"`` they are
    offsets into the original text. For ``kind == "pattern"`` matching runs on the
    NFKC-normalised text, so they are offsets into ``unicodedata.normalize("NFKC", text)``
    (after truncation to :data:`MAX_SCAN_CHARS`); ``span_in_original`` is True when
    normalisation changed nothing, so the offsets are valid for the original text too.
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
        for char in INVISIBLE_CHARS:
            if _invisible_id(char) == threat_id:
                return _invisible_explanation(char)
    return None


def _active_rules(scope: str) -> list[_Rule]:
    if scope not in _SCOPE_RANK:
        raise ValueError(f"Unknown scan scope {scope!r}; expected one of {', '.join(SCOPES)}")
    rank = _SCOPE_RANK[scope]
    return [rule for rule in _RULES if _SCOPE_RANK[rule.scope] <= rank]


def _iter_findings(content: str, scope: str) -> Iterator[Finding]:
    rules = _active_rules(scope)  # raises on a bad scope even for empty content
    raw = content[:MAX_SCAN_CHARS]
    for char in INVISIBLE_CHARS:
        index = raw.find(char)
        if index >= 0:
            yield Finding(
                _invisible_id(char), "all", "invisible", index, index + 1,
                _invisible_explanation(char),
            )
    normalized = unicodedata.normalize("NFKC", raw)
    folded = _fold(normalized)
    unchanged = normalized == raw
    for rule in rules:
        if not rule.could_match(folded):
            continue
        span = rule.match(folded)
        if span is not None:
            yield Finding(rule.id, rule.scope, "pattern", *span, rule.explanation, unchanged)


def scan_findings(content: str, scope: str = "strict") -> list[Finding]:
    """Every threat in ``content`` for ``scope``: invisible characters first (in
    :data:`INVISIBLE_CHARS` order), then patterns in declaration order. One finding per id,
    so ``[f.id for f in scan_findings(c, s)] == scan_for_threats(c, s)``.

    Raises ValueError for a scope outside :data:`SCOPES`.
    """
    return list(_iter_findings(content, scope))


def scan_for_threats(content: str, scope: str = "strict") -> list[str]:
    """The ids of every threat in ``content``, in the order of :func:`scan_findings`."""
    return [finding.id for finding in _iter_findings(content, scope)]


def first_threat_message(content: str, scope: str = "strict") -> str | None:
    """Upstream's refusal text for the first threat in ``content``, or None if it is clean."""
    first = next(_iter_findings(content, scope), None)
    if first is None:
        return None
    if first.kind == "invisible":
        return _INVISIBLE_MESSAGE.format(code=first.id.removeprefix("invisible_unicode_"))
    return _PATTERN_MESSAGE.format(id=first.id)


def find_invisible(content: str) -> list[tuple[int, str]]:
    """``(index, char)`` for every invisible character in the whole of ``content``.

    Unlike the scan this is not truncated: it is meant for showing an editor where they are.
    """
    return [(match.start(), match.group()) for match in _INVISIBLE_RE.finditer(content)]


def strip_invisible(content: str) -> str:
    """``content`` with every character of :data:`INVISIBLE_CHARS` removed."""
    return content.translate(_STRIP_INVISIBLE)
