"""A long feed makes its cards only on screen, one a turn, as far as it is scrolled."""

from __future__ import annotations

from PySide6.QtCore import QTimer

from hermes_studio.changes.card import ChangeCard
from hermes_studio.changes.panel import MAX_SHOWN, _Feed


def change(number: int) -> dict:
    """A memory change as the engine's ``changes_since`` lists one."""
    return {"id": f"v{number}", "ts": 1_760_000_000 + number, "kind": "memory", "verb": "added",
            "origin": "agent", "origin_label": "the agent", "nodes": [], "undoable": True,
            "diff": {"added": [f"Fact number {number}: the deploy runs on Fridays."]}}  # fmt: skip


def made_ids(feed: _Feed) -> list[str]:
    return [card.change["id"] for card in feed.cards]


def test_a_long_feed_makes_cards_only_on_screen_and_as_it_is_scrolled(qtbot):
    feed = _Feed("Since you last looked", ChangeCard)
    qtbot.addWidget(feed)
    feed.resize(500, 600)
    feed.put([change(n) for n in range(MAX_SHOWN)], top=False)
    qtbot.wait(100)
    assert feed.cards == []  # hidden: nothing is laid out yet

    per_turn: list[int] = []  # cards made between two turns of the event loop
    counted = [0]

    def turn() -> None:
        per_turn.append(len(feed.cards) - counted[0])
        counted[0] = len(feed.cards)

    ticker = QTimer()
    ticker.timeout.connect(turn)
    ticker.start(0)
    feed.show()
    qtbot.waitUntil(feed.filled, timeout=10000)
    ticker.stop()
    first = len(feed.cards)
    assert 0 < first < MAX_SHOWN  # a screenful and a little more, not all
    assert first > 4 and max(per_turn) <= 2  # made across turns, not at once (two timers may coincide)
    assert made_ids(feed) == [f"v{n}" for n in range(first)]  # in order, from the top

    bar = feed.scroll.verticalScrollBar()
    bar.setValue(bar.maximum())
    qtbot.waitUntil(lambda: len(feed.cards) > first and feed.filled(), timeout=10000)
    assert made_ids(feed) == [f"v{n}" for n in range(len(feed.cards))]


def test_changes_put_on_top_come_first_and_the_feed_keeps_its_limit(qtbot):
    feed = _Feed("Live", ChangeCard)
    qtbot.addWidget(feed)
    feed.resize(500, 600)
    feed.show()
    feed.put([change(n) for n in range(MAX_SHOWN)], top=False)
    qtbot.waitUntil(feed.filled, timeout=10000)
    feed.put([change(1001), change(1000)], top=True)  # newest first
    qtbot.waitUntil(lambda: made_ids(feed)[:3] == ["v1001", "v1000", "v0"], timeout=10000)
    assert len(feed.items) == MAX_SHOWN
    assert [item["id"] for item in feed.items[:3]] == ["v1001", "v1000", "v0"]
    assert feed.items[-1]["id"] == f"v{MAX_SHOWN - 3}"  # the oldest two left the feed
