"""A home full of hostile files still opens (issue 10): the window shows the graph of
what it can read and says what is wrong, and nothing on disk changes."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from hermes_memory.home import HermesHome
from hermes_studio.main_window import MainWindow


def bomb_lines(levels: int = 12) -> list[str]:
    lines = ['l0: &l0 ["x","x","x","x","x","x","x","x","x"]']
    lines += [f"l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, levels)]
    return lines


def skill(root: Path, rel: str, name: str, extra: list[str] = ()) -> None:
    folder = root / rel
    folder.mkdir(parents=True)
    text = "\n".join(["---", f"name: {name}", "description: Does things", *extra, "---", "# Body", ""])
    (folder / "SKILL.md").write_text(text)


@pytest.fixture
def hostile_home(tmp_path) -> HermesHome:
    home = HermesHome.resolve(tmp_path / "hostile-home")
    home.memories_dir.mkdir(parents=True)
    home.memory_file.write_text("Project uses pnpm\n§\nDeploys go through the staging box first")
    home.user_file.write_text("Prefers British English")
    skills = home.skills_dir
    skill(skills, "devops/docker-logs", "docker-logs", ["related_skills: [bomb-tags]"])
    skill(skills, "bomb-tags", "bomb-tags", [*bomb_lines(), "metadata:", "  hermes:", "    tags: *l11"])
    skill(skills, ".worktrees/wip/docker-logs", "docker-logs-wip")
    home.skills_usage_file.write_text(
        '{"docker-logs": {"created_by": "agent", "use_count": 1e400, "last_used_at": NaN},'
        ' "bomb-tags": {"created_by": "agent", "use_count": 2}}'
    )
    home.config_file.write_text(
        "memory:\n  memory_char_limit: .inf\n  user_char_limit: " + "9" * 5000 + "\n"
        "skills:\n  base_dir: /\n  external_dirs: [" + "[" * 20 + "]" * 20 + "]\n"
    )
    return home


def files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.endswith(".lock")
        and not p.relative_to(root).parts[0] == ".memory-studio"  # the app's own history of the home
    }


def test_a_home_with_hostile_files_opens_shows_the_graph_and_says_what_is_wrong(qtbot, hostile_home):
    before_threads = set(threading.enumerate())
    before = files(hostile_home.path)
    window = MainWindow(hostile_home)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.graph.ready, timeout=30000)
    panel = window.graph
    assert panel.error is None and panel.data is not None
    shown = set(panel.data.ids)
    assert {"docker-logs", "bomb-tags"} <= shown
    assert "docker-logs-wip" not in shown  # a development copy, not a skill
    assert sum(node_id.startswith("memory:") for node_id in shown) == 3
    # the warnings bar names each problem
    assert panel.warnings_frame.isVisible()
    detail = panel.warnings_detail.text()
    assert "billion laughs" in detail
    assert "memory.memory_char_limit is inf" in detail
    assert "memory.user_char_limit is a 5,000-digit number" in detail
    assert "bomb-tags/SKILL.md" in detail
    assert "skills.base_dir: / is the root of the filesystem" in detail
    assert "unusable value" in detail and "use_count of 'docker-logs'" in detail
    # the memory tab and the status bar work with the default budgets
    qtbot.waitUntil(lambda: "2,200" in window.meters.meters["memory"].text(), timeout=10000)
    qtbot.waitUntil(lambda: "1,375" in window.meters.meters["user"].text(), timeout=10000)
    window.close()
    qtbot.waitUntil(lambda: not [t for t in threading.enumerate() if t not in before_threads and t.is_alive()], timeout=10000)
    assert files(hostile_home.path) == before
