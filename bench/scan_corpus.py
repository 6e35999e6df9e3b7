"""The threat scanner and the context fence against hostile and honest text, before and after.

Part 1, the corpus (``tests/engine/memory/scan_corpus.py``): for each family of hostile
variant, the share the scanner catches; for each rule family, the share of honest texts it
refuses. "Before" is the scanner of commit 30bbc47 (read with ``git show``), run the way the
store ran it then: entry by entry. "After" is this tree, which also scans the rendered block
as a whole. PASS when after catches every hostile variant and refuses no honest text.

Part 2, ``sanitize_context`` on 128 KiB of hostile input, against two floors measured in the
same run over the same input: one ``str.replace`` pass, and one pass of the token regex
(``finditer``), which any tokenising sanitiser must at least make. Linear means four times
the input takes about four times as long (quadratic would be sixteen): PASS when
time(512 KiB) / time(128 KiB), measured interleaved so both see the same load on a shared
machine, stays under 6, the 128 KiB sanitise stays under 1 s, and no tag or note is left.
(Below 128 KiB the text still fits the CPU caches, which flatters the smaller size.) The
quadratic original is timed on the same inputs at 32 and 64 KiB for comparison (it needs
seconds at 128 KiB).

Run from the repository root: ``.venv/bin/python bench/scan_corpus.py``.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from hermes_memory.memory import scan
from hermes_memory.memory.render import cross_entry_findings
from hermes_memory.providers import fencing

ROOT = Path(__file__).resolve().parent.parent
BEFORE_COMMIT = "30bbc47"
sys.path.insert(0, str(ROOT / "tests" / "engine" / "memory"))
import scan_corpus  # noqa: E402

LINEAR_LIMIT = 6.0  # for four times the input
SANITIZE_LIMIT_SECONDS = 1.0
SIZE = 128 * 1024


def load_before(path: str) -> ModuleType | None:
    """The module at ``path`` as of :data:`BEFORE_COMMIT`, or None without git history."""
    try:
        source = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{BEFORE_COMMIT}:{path}"],
            check=True, capture_output=True, text=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False, encoding="utf-8") as f:
        f.write(source)
    spec = importlib.util.spec_from_file_location(f"before_{Path(path).stem}", f.name)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


def findings_before(old_scan: ModuleType, item: str | list[str]) -> list[str]:
    entries = item if isinstance(item, list) else [item]
    return [i for entry in entries for i in old_scan.scan_for_threats(entry, "strict")]


def findings_after(item: str | list[str]) -> list[str]:
    entries = item if isinstance(item, list) else [item]
    found = [i for entry in entries for i in scan.scan_for_threats(entry, "strict")]
    if isinstance(item, list):
        found += [i for _, _, ids in cross_entry_findings(item) for i in ids]
    return found


def family_of(threat_id: str) -> str:
    return scan.rule_family(threat_id)


def corpus_report(old_scan: ModuleType | None) -> bool:
    print("Part 1: corpus "
          f"({len(scan_corpus.MALICIOUS)} hostile variants, {len(scan_corpus.BENIGN)} honest texts)")
    print(f"\n{'hostile family':16} {'n':>4} {'caught before':>14} {'caught after':>13}")
    totals = Counter()
    ok = True
    families = sorted({family for family, _ in scan_corpus.MALICIOUS})
    for family in families:
        items = [item for f, item in scan_corpus.MALICIOUS if f == family]
        after = sum(bool(findings_after(item)) for item in items)
        before = (
            sum(bool(findings_before(old_scan, item)) for item in items) if old_scan else None
        )
        totals.update(n=len(items), after=after, before=before or 0)
        ok &= after == len(items)
        print(f"{family:16} {len(items):4} {rate(before, len(items)):>14} "
              f"{rate(after, len(items)):>13}")
    print(f"{'all':16} {totals['n']:4} "
          f"{rate(totals['before'] if old_scan else None, totals['n']):>14} "
          f"{rate(totals['after'], totals['n']):>13}")

    print(f"\n{'rule family':16} {'honest texts refused before':>28} {'after':>8}")
    benign = scan_corpus.BENIGN
    refused_after = [{family_of(i) for i in findings_after(text)} for text in benign]
    refused_before = (
        [{family_of(i) for i in findings_before(old_scan, text)} for text in benign]
        if old_scan else None
    )
    for family in ["injection", "c2", "exfiltration", "persistence", "secret", "invisible"]:
        after = sum(family in found for found in refused_after)
        before = sum(family in found for found in refused_before) if refused_before else None
        ok &= after == 0
        print(f"{family:16} {rate(before, len(benign)):>28} {rate(after, len(benign)):>8}")
    any_after = sum(bool(found) for found in refused_after)
    any_before = sum(bool(found) for found in refused_before) if refused_before else None
    print(f"{'any':16} {rate(any_before, len(benign)):>28} {rate(any_after, len(benign)):>8}")
    refused = [text for text, found in zip(benign, refused_after, strict=True) if found]
    for text in refused:
        print("  refused after:", repr(text))
    agent = scan_corpus.AGENT_REFUSES
    still = sum(bool(scan.scan_for_threats(text)) for _, text in agent)
    print(f"\nhonest text a rule of the agent's own refuses too (kept, with advice): "
          f"{still}/{len(agent)} refused")
    print("corpus:", "PASS" if ok else "FAIL")
    return ok


def rate(count: int | None, total: int) -> str:
    if count is None:
        return "n/a"
    return f"{count}/{total} {100 * count / total:5.1f}%"


# --- Part 2 -------------------------------------------------------------------------------


def hostile_inputs(size: int) -> dict[str, str]:
    def fill(unit: str) -> str:
        return (unit * (size // len(unit) + 1))[:size]

    half = size // 20
    return {
        "forged close tags '</memory-</memory-context>context>'":
            fill("</memory-</memory-context>context>x"),
        "nested halves '</memory-' x N + 'context>' x N":
            ("</memory-" * half + "context>" * half)[:size],
        "open tags, never closed": fill("<memory-context>"),
        "blocks with content": fill("<memory-context>\nsecret\n</memory-context> kept "),
        "entity and full-width tags": fill("&lt;/memory-context&gt;\uff1cmemory-context\uff1e"),
        "nested system notes": fill(fencing.SYSTEM_NOTE[:50] + fencing.SYSTEM_NOTE),
        "honest text mentioning memory context": fill("the memory context of the agent is "),
    }


def best_seconds(action: Callable[[], object], runs: int = 5) -> float:
    """The fastest of ``runs``: the machine is shared, and noise only ever adds time."""
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        samples.append(time.perf_counter() - started)
    return min(samples)


def best_pair(
    first: Callable[[], object], second: Callable[[], object], runs: int = 5
) -> tuple[float, float]:
    """:func:`best_seconds` of two actions, run alternately so both see the same load."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(runs):
        for action, samples in ((first, times[0]), (second, times[1])):
            started = time.perf_counter()
            action()
            samples.append(time.perf_counter() - started)
    return min(times[0]), min(times[1])


def tokens_left(text: str) -> int:
    """Fence tags and notes still in ``text`` (in any spelling the new sanitiser knows)."""
    return sum(1 for _ in fencing._TOKEN_RE.finditer(fencing._view(text)))


def sanitize_report(old_fencing: ModuleType | None) -> bool:
    print(f"\nPart 2: sanitize_context on {SIZE // 1024} KiB of hostile input")
    fencing.sanitize_context("warm the context tables up")
    token = re.compile(fencing._TOKEN_RE.pattern)
    print(f"{'input':44} {'ms':>7} {'x replace':>10} {'x regex':>8} {'x4 size':>8} "
          f"{'left':>5} {'before: 32K/64K ms, left':>25} result")
    ok = True
    big, small = hostile_inputs(SIZE), hostile_inputs(SIZE // 2)
    quarters, quadruples = hostile_inputs(SIZE // 4), hostile_inputs(SIZE * 4)
    for name, text in big.items():
        quadruple_seconds, seconds = best_pair(
            lambda t=quadruples[name]: fencing.sanitize_context(t),
            lambda t=text: fencing.sanitize_context(t),
        )
        replace_floor = best_seconds(lambda t=text: t.replace("<memory-context>", ""))
        regex_floor = best_seconds(lambda t=text: sum(1 for _ in token.finditer(t.lower())))
        growth = quadruple_seconds / seconds if seconds else 0.0
        passed = growth < LINEAR_LIMIT and seconds < SANITIZE_LIMIT_SECONDS
        left = tokens_left(fencing.sanitize_context(text))
        passed &= left == 0
        ok &= passed
        before = "n/a"
        if old_fencing is not None:
            t32 = best_seconds(lambda t=quarters[name]: old_fencing.sanitize_context(t), 1)
            t64 = best_seconds(lambda t=small[name]: old_fencing.sanitize_context(t), 1)
            old_left = tokens_left(old_fencing.sanitize_context(small[name]))
            before = f"{t32 * 1000:.0f}/{t64 * 1000:.0f}, {old_left}"
        print(f"{name[:44]:44} {seconds * 1000:7.1f} {seconds / replace_floor:10.0f} "
              f"{seconds / regex_floor:8.1f} {growth:8.2f} {left:5} {before:>25} "
              f"{'PASS' if passed else 'FAIL'}")
    print("sanitize:", "PASS" if ok else "FAIL",
          f"(x4 size under {LINEAR_LIMIT:.0f}, each under {SANITIZE_LIMIT_SECONDS:.0f} s, no tag "
          "or note left; 'left' counts what the old one-pass sanitiser left at 64 KiB)")
    return ok


def main() -> int:
    old_scan = load_before("engine/hermes_memory/memory/scan.py")
    old_fencing = load_before("engine/hermes_memory/providers/fencing.py")
    if old_scan is None:
        print(f"(no git history for {BEFORE_COMMIT}: 'before' columns are n/a)")
    ok = corpus_report(old_scan)
    ok &= sanitize_report(old_fencing)
    print("\nPASS" if ok else "\nFAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
