"""Time the threat scanner on crafted 64 KiB inputs built to make regexes backtrack.

Each input aims at one weakness: a keyword followed by a long run of words with no closing
keyword, a keyword repeated thousands of times so every occurrence starts a fresh attempt,
long runs of whitespace between two quantifiers, 2,048-character lines, and NFKC expansion
(one character that normalises to 18). Every input starts with a line that contains each
literal word any rule needs, so the cheap keyword prefilter lets every rule run, and none of
the inputs contains a threat, so no rule stops at an early match.

For each input it prints the median time of ``scan_for_threats(text, "strict")``, a floor
measured in the same run (NFKC + lower-case + one literal regex pass over the same text,
which any scanner must at least do), their ratio, the slowest single rule (timed on its own,
without the prefilter), and PASS/FAIL against one second. Exits 1 if anything fails.

The floor is a fast C pass (ASCII text skips NFKC almost entirely), so ratios of a few
hundred mean "roughly 36 rules' worth of regex passes", not backtracking; backtracking would
show up as seconds.

Run from the repository root: ``.venv/bin/python bench/scan_adversarial.py``.
"""

from __future__ import annotations

import re
import statistics
import sys
import time
import unicodedata
from collections.abc import Callable

from hermes_memory.memory import scan

LIMIT_SECONDS = 1.0
RUNS = 5
SIZE = scan.MAX_SCAN_CHARS

# Every literal some rule's prefilter needs (read from the scanner's private rule table),
# glued with "_" so that no word boundary or space forms around them. It comes first, so
# its "-->" closes no comment, and "#" on a line of its own keeps a verb's trailing
# whitespace from reaching across it.
PREFILTER_HEAD = (
    "_".join(sorted({word for rule in scan._RULES for group in rule.needs for word in group}))
    + "\n#\n"
)


def fill(unit: str, size: int = SIZE) -> str:
    """The prefilter head, then ``unit`` repeated up to ``size`` characters."""
    room = size - len(PREFILTER_HEAD)
    return PREFILTER_HEAD + (unit * (room // len(unit) + 1))[:room]


def then(prefix: str, unit: str) -> str:
    """The prefilter head, ``prefix`` once, then ``unit`` repeated up to the size."""
    return PREFILTER_HEAD + prefix + fill(unit, SIZE - len(prefix))[len(PREFILTER_HEAD) :]


def fullwidth(text: str) -> str:
    """ASCII letters as their full-width forms, which NFKC folds back."""
    return "".join(chr(ord(c) + 0xFEE0) if c.isascii() and c.isalpha() else c for c in text)


def words_line(width: int = 2048) -> str:
    return ("lorem ipsum dolor " * (width // 18 + 1))[: width - 1] + "\n"


INPUTS: dict[str, str] = {
    "ignore + 13k words, no 'instructions'": then("ignore ", "word "),
    "'ignore all ' repeated": fill("ignore all "),
    "'ignore previous' + spaces": fill("ignore previous     "),
    "'disregard any your all ' repeated": fill("disregard any your all "),
    "'act as if you ' repeated": fill("act as if you "),
    "'act as if you have no you ' repeated": fill("act as if you have no you have no "),
    "'do not tell the ' repeated": fill("do not tell the tell the "),
    "'never create write file script ' repeated": fill("never create write file script "),
    "'you are you must you have been ' repeated": fill("you are you must you have been "),
    "'include output print share ' repeated": fill("include output print share "),
    "'curl ' repeated": fill("curl "),
    "'curl $x ' repeated": fill("curl $x_key_not "),
    "curl + 2,040-char lines": fill("curl " + "a" * 2040 + "\n"),
    "'cat ' repeated": fill("cat "),
    "'wget ' + 2,048-char word lines": fill("wget " + words_line()),
    "'send' + 65k spaces": then("send", " "),
    "'send ' repeated": fill("send "),
    "'send x to ' repeated": fill("send x to "),
    "'send' + lines of spaces": fill("send" + " " * 2100 + "\n"),
    "'write ' repeated": fill("write "),
    "'add  to ' repeated": fill("add  to "),
    "'<!-- ignore ' without '-->'": fill("<!-- ignore "),
    "'<!--' then 64k of words": then("<!--", "system hidden words "),
    "comments with the word 600 chars from each end": fill(
        "<!-- " + "x " * 300 + "ignore " + "y " * 300 + "--> "
    ),
    "'<div style=\"' repeated": fill('<div style="'),
    "'<div style=\"display' no ':none'": fill('<div style="display display '),
    "'translate x into ' repeated": fill("translate x into a b c and "),
    "'register' + 65k spaces": then("register", " "),
    "'unset ' + one 65k word": then("unset ", "a"),
    "'curl $' + one 65k word": then("curl $", "a"),
    "'add echo tee ' verbs (ssh)": fill("add echo tee cp mv "),
    "'> ' redirects (ssh)": fill("> >> "),
    "ssh paths seven arguments after 'add'": fill("add a b c d e f g ~/.ssh/x authorized_keys "),
    "'api_key = ' repeated": fill("api_key = token: "),
    "2,048-char lines of words": fill(words_line()),
    "full-width 'ignore all ' repeated": fill(fullwidth("ignore all ")),
    "NFKC x18 expansion (U+FDFA)": "\ufdfa" * SIZE,
    "NFKC x18 expansion + keywords": fill("\ufdfa" * 40 + "ignore all send curl cat "),
    "every trigger word, cycled": fill(
        "ignore all act as if you do not tell pretend output respond without you have been "
        "register pull you must never create unset curl wget cat send include add to write "
        "<!-- <div style=' translate into echo > "
    ),
}


def median_seconds(action: Callable[[], object], runs: int = RUNS) -> float:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def floor_pass(text: str) -> None:
    """The least any scanner has to do: normalise, fold case, and read the text once."""
    folded = unicodedata.normalize("NFKC", text[: scan.MAX_SCAN_CHARS]).lower()
    re.search(r"zzzzqqq", folded)


def slowest_rule(text: str) -> tuple[str, float]:
    folded = scan._fold(unicodedata.normalize("NFKC", text[: scan.MAX_SCAN_CHARS]))
    timings = [(median_seconds(lambda r=rule: r.match(folded), 3), rule.id) for rule in scan._RULES]
    seconds, rule_id = max(timings)
    return rule_id, seconds


def main() -> int:
    failures = 0
    worst = ("", 0.0, 0.0)
    worst_ratio = ("", 0.0, 0.0)
    print(f"{'input':46} {'scan ms':>9} {'floor ms':>9} {'ratio':>7}  {'slowest rule':<32} result")
    for name, text in INPUTS.items():
        scan_seconds = median_seconds(lambda t=text: scan.scan_for_threats(t, "strict"))
        floor_seconds = median_seconds(lambda t=text: floor_pass(t))
        rule_id, rule_seconds = slowest_rule(text)
        ratio = scan_seconds / floor_seconds if floor_seconds else float("inf")
        ok = scan_seconds < LIMIT_SECONDS
        failures += not ok
        if scan_seconds > worst[1]:
            worst = (name, scan_seconds, ratio)
        if ratio > worst_ratio[2]:
            worst_ratio = (name, scan_seconds, ratio)
        print(
            f"{name[:46]:46} {scan_seconds * 1000:9.1f} {floor_seconds * 1000:9.2f} "
            f"{ratio:7.1f}  {rule_id + f' {rule_seconds * 1000:.1f}ms':<32} "
            f"{'PASS' if ok else 'FAIL'}"
        )
    print()
    for label, (name, seconds, ratio) in (("slowest", worst), ("highest ratio", worst_ratio)):
        print(f"{label}: {name}: {seconds * 1000:.1f} ms ({ratio:.1f}x floor)")
    print(f"limit: {LIMIT_SECONDS:.0f} s per input")
    print("FAIL" if failures else "PASS", f"({failures} of {len(INPUTS)} inputs over the limit)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
