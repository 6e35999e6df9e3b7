"""The Fleet: every known home (the open one, Recent's local and remote homes, their
profiles) with both meters, pending count, last change and how it is reached; one click
opens it."""

from __future__ import annotations

import shutil

import pytest
from remote_desktop_helpers import CONNECT_MS
from remote_helpers import DEMO_HOME

from hermes_memory import api
from hermes_memory.home import HermesHome
from hermes_studio.graph.homes import RecentHomes
from hermes_studio.main_window import MainWindow
from hermes_studio.remote.fleet import FleetDialog, home_key, meter_text
from hermes_studio.remote.home import RemoteHome

pytestmark = pytest.mark.timeout(300)


def test_the_fleet_lists_local_and_remote_homes_with_their_figures(qtbot, tmp_path, address, remote_home):
    local_root = tmp_path / "laptop home"
    shutil.copytree(DEMO_HOME, local_root)
    (local_root / "profiles" / "writer" / "memories").mkdir(parents=True)
    local = HermesHome.resolve(local_root)
    remote = RemoteHome.parse(address)
    RecentHomes().add(remote)
    RecentHomes().add(RemoteHome.parse("ssh://no-such-host.invalid/srv/hermes"))

    window = MainWindow(local, settings=None)
    qtbot.addWidget(window)
    fleet = FleetDialog.show_for(window)
    keys = {home_key(local), home_key(remote), home_key(local.with_profile("writer"))}
    qtbot.waitUntil(lambda: keys <= set(fleet.summaries), timeout=CONNECT_MS)

    local_row = fleet.row_texts(fleet.row_of(home_key(local)))
    expected = api.store_status(local)["stores"]
    assert local_row[1] == "this machine"
    assert local_row[2] == meter_text(expected["memory"]) and local_row[3] == meter_text(expected["user"])
    remote_row = fleet.row_texts(fleet.row_of(home_key(remote)))
    remote_stores = api.store_status(remote_home)["stores"]
    assert remote_row[1] == "connected"
    assert remote_row[4] == str(api.pending_count(remote_home)["count"]) != "0"  # staged writes
    assert remote_row[2] == meter_text(remote_stores["memory"])
    assert remote_row[5] != "—"
    qtbot.waitUntil(lambda: ("ssh://no-such-host.invalid/srv/hermes", None) in fleet.summaries,
                    timeout=CONNECT_MS)
    unreachable = fleet.row_of(("ssh://no-such-host.invalid/srv/hermes", None))
    assert fleet.row_texts(unreachable)[1] == "lost"
    assert "unknown host" in fleet.table.item(unreachable, 1).toolTip()

    opened = []
    window.open_home = lambda home, demo=False: opened.append(home)
    fleet.table.cellWidget(fleet.row_of(home_key(remote)), 6).click()
    assert opened == [remote]
    window.close()


def test_the_fleet_is_in_the_action_registry(qtbot, tmp_path):
    shutil.copytree(DEMO_HOME, tmp_path / "home")
    window = MainWindow(HermesHome.resolve(tmp_path / "home"))
    qtbot.addWidget(window)
    action = window.commands.actions["file.fleet"]
    assert "file.open_remote" in window.commands.actions
    action.trigger()
    fleets = [w for w in window.findChildren(FleetDialog)]
    assert len(fleets) == 1 and fleets[0].isVisible()
    fleets[0].close()
    window.close()
