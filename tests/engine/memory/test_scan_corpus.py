"""The scanner against its corpus: every hostile variant is caught, no honest text is.

``bench/scan_corpus.py`` prints the same figures per family, before and after.
"""

from __future__ import annotations

import pytest

from hermes_memory.memory.render import cross_entry_findings
from hermes_memory.memory.scan import first_threat_message, scan_for_threats
from scan_corpus import AGENT_REFUSES, BENIGN, MALICIOUS

FAMILIES = {"injection", "confusable", "diacritics", "invisible", "tag_smuggling", "exfiltration",
            "persistence", "secret", "c2", "split"}


def caught(item: str | list[str]) -> bool:
    if isinstance(item, list):
        return any(scan_for_threats(e) for e in item) or bool(cross_entry_findings(item))
    return bool(scan_for_threats(item))


def test_corpus_is_large_enough_and_covers_every_family():
    assert len(MALICIOUS) >= 150 and len(BENIGN) >= 150
    assert {family for family, _ in MALICIOUS} == FAMILIES


@pytest.mark.parametrize(("family", "item"), MALICIOUS, ids=lambda v: repr(v)[:40])
def test_every_hostile_variant_is_caught(family, item):
    assert caught(item), (family, item)


@pytest.mark.parametrize("text", BENIGN, ids=lambda v: v[:40])
def test_no_honest_text_is_refused(text):
    assert scan_for_threats(text) == [], text


@pytest.mark.parametrize(("threat_id", "text"), AGENT_REFUSES, ids=lambda v: repr(v)[:40])
def test_refusals_the_agent_applies_too_say_so_and_how_to_reword(threat_id, text):
    assert threat_id in scan_for_threats(text)
    message = first_threat_message(text)
    assert "[BLOCKED:" in message and threat_id in message
    assert "e.g." in message or "write them separately" in message
