"""The CLI builds its parser once per process: repeated in-process ``main()`` calls
must answer exactly as the first one, and as a freshly built parser does."""

from __future__ import annotations

import contextlib
import io

import pytest

from hermes_memory import cli


def fresh_run(argv, capsys):
    """What a parser built just now answers (the behaviour before it was kept)."""
    parser = cli.build_parser()
    try:
        parser.parse_args(argv)
        code = 0
    except SystemExit as exit_:
        code = int(exit_.code or 0)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def main_run(argv, capsys, home):
    out, err = io.StringIO(), io.StringIO()
    code = cli.main(["--home", str(home.path), *argv], stdout=out, stderr=err)
    captured = capsys.readouterr()  # help, usage and --version print through sys.std*
    return code, captured.out + out.getvalue(), captured.err + err.getvalue()


ANSWERS = [
    ["--help"],
    ["history", "--help"],
    ["history", "log", "--help"],
    ["--version"],
    ["history", "log", "--limit", "0"],
    ["history", "log", "sideways"],
    ["no-such-command"],
    [],
    ["history"],
]


@pytest.mark.parametrize("argv", ANSWERS, ids=lambda argv: " ".join(argv) or "(nothing)")
def test_repeated_calls_answer_as_a_fresh_parser(argv, capsys, home, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    expected = fresh_run(["--home", str(home.path), *argv], capsys)
    first = main_run(argv, capsys, home)
    second = main_run(argv, capsys, home)
    assert first == second == expected
    assert expected[0] in (0, 2) and (expected[1] or expected[2])


def test_a_kept_parser_leaves_no_state_between_commands(tmp_path, capsys):
    homes = []
    for name in ("one", "two"):
        path = tmp_path / name
        (path / "memories").mkdir(parents=True)
        homes.append(path)
    assert cli.main(["--home", str(homes[0]), "add", "memory", "Only in one"]) == 0
    capsys.readouterr()
    for path, expected in ((homes[0], ["Only in one"]), (homes[1], [])):
        assert cli.main(["--home", str(path), "show", "memory"]) == 0
        listed = capsys.readouterr().out
        assert ("Only in one" in listed) == bool(expected)
    # an option given once does not stick to the next call
    assert cli.main(["--home", str(homes[0]), "history", "log", "--limit", "1"]) == 0
    limited = capsys.readouterr().out
    assert cli.main(["--home", str(homes[0]), "history", "log"]) == 0
    assert len(capsys.readouterr().out.splitlines()) >= len(limited.splitlines())


def test_help_follows_the_terminal_width_of_each_call(capsys, home, monkeypatch):
    widths = []
    for columns in ("60", "160"):
        monkeypatch.setenv("COLUMNS", columns)
        code, out, _ = main_run(["history", "log", "--help"], capsys, home)
        assert code == 0
        widths.append(max(len(line) for line in out.splitlines()))
    assert widths[0] <= 60 < widths[1]


def test_the_parser_follows_the_command_modules(monkeypatch, capsys, home):
    monkeypatch.setattr(cli, "COMMAND_MODULES", ("hermes_memory.history.commands",))
    code, _, err = main_run(["status"], capsys, home)
    assert code == 2 and "invalid choice" in err
    monkeypatch.undo()
    with contextlib.redirect_stdout(io.StringIO()):
        assert cli.main(["--home", str(home.path), "status"]) == 0
