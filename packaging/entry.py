"""Frozen entry point of both commands (PyInstaller runs this file as a script).

The bundle holds one executable, ``hermes-studio``; ``hermes-memory`` beside it is a link
to it (a second executable on Windows), and the name it is started by picks the command.
One executable instead of two keeps a single copy of the bundled Python code.
"""

import sys
from pathlib import Path

if Path(sys.argv[0]).name.lower().startswith("hermes-memory"):
    from hermes_memory.cli import main
else:
    from hermes_studio.launch import main

sys.exit(main())
