"""The fix said under a script that failed (script_jobs.failure_hint), from its own error text."""

from __future__ import annotations

from pathlib import Path

from planner.service.script_jobs import failure_hint

MISSED = "FileNotFoundError: [Errno 2] No such file or directory: '{}'"


def test_workdir_is_suggested_only_when_the_file_is_there_from_here_and_not_from_the_scripts_folder(
    tmp_path, monkeypatch
):
    """A trial: `--workdir .` was suggested for an absolute path that exists nowhere, and for a relative one that
    is not here either (following it would also ship the whole folder to an instance)."""
    (tmp_path / "src").mkdir()
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "n.txt").write_text("60")
    script = tmp_path / "src" / "train.py"
    script.write_text("")
    monkeypatch.chdir(tmp_path)
    cwd = script.parent

    def hint(missed: str) -> str:
        return failure_hint(MISSED.format(missed), script, Path("src/train.py"), cwd, False)

    assert hint("data/n.txt").endswith("give --workdir .")  # here, not in src/
    assert hint("/nonexistent/x.pt") == ""  # absolute: the folder it runs in does not matter
    assert hint("data/missing.pt") == ""  # not here either
    (cwd / "data").mkdir()
    (cwd / "data" / "n.txt").write_text("1")
    assert hint("data/n.txt") == ""  # its own folder has it: something else is wrong
    # an error that names no file: the hint may still be the fix
    assert failure_hint(
        "OSError: No such file or directory", script, Path("src/train.py"), cwd, False
    ).endswith("give --workdir .")
