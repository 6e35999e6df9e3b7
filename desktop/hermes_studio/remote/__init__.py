"""Homes on other machines, opened over SSH: the home's address (:mod:`.home`), the
Workspace's backend over ``hermes-memory serve --stdio`` (:mod:`.backend`), the connection
state in the status bar (:mod:`.status`) and every known home at a glance (:mod:`.fleet`).

The remote engine does every read and write on its own disk, under its own locks; the app
only sends engine-face calls and never writes anything locally in place of the remote.
"""
