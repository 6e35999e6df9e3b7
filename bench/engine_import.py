"""Benchmark: what importing the engine costs, as ``python -X importtime`` reports it.

Prints, best of 7 fresh interpreters taken in alternate rounds:

* ``import hermes_memory.learning`` (the package: names load their module on first use);
* ``import hermes_memory.learning.graph`` (everything a graph build imports before it
  starts reading files);
* floor: ``import dataclasses, json, pathlib, re``, standard-library parts the engine
  cannot do without, in the same rounds.

Target: ``import hermes_memory.learning`` ≤ 50 ms.

Run: ``.venv/bin/python bench/engine_import.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_MS = 50.0
STATEMENTS = {
    "floor: import dataclasses, json, pathlib, re": "import dataclasses, json, pathlib, re",
    "import hermes_memory.learning": "import hermes_memory.learning",
    "import hermes_memory.learning.graph": "import hermes_memory.learning.graph",
}


def importtime_ms(statement: str) -> float:
    """The cumulative import time of the statement's modules, in ms (what -X importtime
    reports for them at top level; interpreter start-up is not counted)."""
    modules = {name.strip() for name in statement.removeprefix("import ").split(",")}
    env = dict(os.environ, PYTHONPATH=str(ROOT / "engine"))
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", statement],
        env=env, capture_output=True, text=True, check=True,
    )
    total = 0
    for line in result.stderr.splitlines():
        if not line.startswith("import time:"):
            continue
        _self, cumulative, name = line.removeprefix("import time:").split("|")
        if name.strip() in modules and not name.startswith("  "):  # top level only
            total += int(cumulative)
    return total / 1000


def main() -> int:
    best = {label: float("inf") for label in STATEMENTS}
    for _ in range(7):
        for label, statement in STATEMENTS.items():
            best[label] = min(best[label], importtime_ms(statement))
    floor = best["floor: import dataclasses, json, pathlib, re"]
    for label, ms in best.items():
        print(f"{label:<48} {ms:7.1f} ms = {ms / floor:5.2f}× the floor")
    package = best["import hermes_memory.learning"]
    ok = package <= TARGET_MS
    print(f"target: import hermes_memory.learning ≤ {TARGET_MS:.0f} ms: {package:.1f} ms  {'PASS' if ok else 'FAIL'}")
    load = os.getloadavg()
    print(f"load average: {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} on {os.cpu_count()} cores")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
