"""Hypothesis properties: restore then diff is empty; revert of an untouched session
removes exactly what it added."""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path

from history_helpers import entries, events
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sessions_helpers import Corpus, memory_call

from hermes_memory.history.capture import capture
from hermes_memory.history.service import diff, restore
from hermes_memory.history.undo import revert
from hermes_memory.home import HermesHome
from hermes_memory.memory.store import MemoryStore
from hermes_memory.sessions import create_early_db

texts = st.text(alphabet="abcdefgh ijk", min_size=3, max_size=30).map(str.strip).filter(
    lambda t: len(t) >= 3
)
ops = st.lists(
    st.one_of(
        st.tuples(st.just("add"), texts),
        st.tuples(st.just("remove"), st.integers(0, 9)),
        st.tuples(st.just("replace"), st.integers(0, 9), texts),
    ),
    min_size=1, max_size=12,
)  # fmt: skip


@contextlib.contextmanager
def _fresh_home() -> Iterator[HermesHome]:
    with tempfile.TemporaryDirectory(prefix="history-prop-") as root:
        (Path(root) / "memories").mkdir()
        yield HermesHome.resolve(root)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops, st.data())
def test_restore_then_diff_is_empty(steps, data):
    with _fresh_home() as home:
        store = MemoryStore(home)
        for step in steps:
            current = store.read_entries("memory")
            if step[0] == "add":
                store.add("memory", step[1])
            elif current:
                chosen = current[step[1] % len(current)]
                if step[0] == "remove":
                    store.remove("memory", chosen)
                else:
                    store.replace("memory", chosen, step[2])
        recorded = events(home)
        if not recorded:
            return
        version = data.draw(st.sampled_from(recorded))["id"]
        result = restore(home, version)
        assert result["ok"], result
        assert diff(home, version, "now")["empty"]
        if result.get("version"):
            assert diff(home, version, result["version"])["empty"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(texts, max_size=5, unique=True), st.lists(texts, min_size=1, max_size=5, unique=True))
def test_revert_of_an_untouched_session_removes_exactly_what_it_added(before, taught):
    with _fresh_home() as home:
        store = MemoryStore(home)
        for text in before:
            store.add("memory", text)
        start = list(entries(home))
        # the agent's session: its calls in state.db, its writes in the file
        corpus = Corpus(create_early_db(home.state_db))
        corpus.clock = events(home)[-1]["ts"] if before else corpus.clock
        corpus.session("s-prop", "cli")
        for number, text in enumerate(taught):
            corpus.say("s-prop", "assistant", None,
                       tool_calls=memory_call(f"c{number}", action="add", target="memory", content=text))
            corpus.say("s-prop", "tool", json.dumps({"success": True}), tool_name="memory",
                       tool_call_id=f"c{number}")  # fmt: skip
        corpus.close()
        written = start + [t for t in taught if t not in start]
        home.memory_file.write_text("\n§\n".join(written), encoding="utf-8")
        capture(home)
        result = revert(home, "s-prop")
        assert result["ok"], result
        assert entries(home) == start
