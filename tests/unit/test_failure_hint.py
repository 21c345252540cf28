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
    assert hint("other/missing.pt") == ""  # not here either, nor its folder
    # a file it writes: its folder is here and not in src/ (a review: a checkpoint's path got no hint)
    assert hint("data/missing.pt").endswith("give --workdir .")
    (cwd / "data").mkdir()
    (cwd / "data" / "n.txt").write_text("1")
    assert hint("data/n.txt") == ""  # its own folder has it: something else is wrong
    # an error that names no file: the hint may still be the fix
    assert failure_hint(
        "OSError: No such file or directory", script, Path("src/train.py"), cwd, False
    ).endswith("give --workdir .")


def test_the_tui_names_where_the_users_own_code_raised_the_error():
    """A failed script's line in the TUI names the file and line (the toast with the traceback goes). A review: a
    frozen frame ('<frozen genericpath>') or the standard library on Windows was named instead of the script."""
    from planner.report.text import raised_at

    assert (
        raised_at(
            [
                "Traceback (most recent call last):",
                '  File "/home/u/lib/python3-tools/train.py", line 9, in <module>',
                "    size = os.path.getsize(path)",
                '  File "<frozen genericpath>", line 50, in getsize',
                "FileNotFoundError: [Errno 2] No such file or directory: 'x.pt'",
            ]
        )
        == " (train.py, line 9)"
    )
    windows = [
        '  File "C:\\proj\\train.py", line 3, in <module>',
        '  File "C:\\Python312\\Lib\\json\\decoder.py", line 355, in raw_decode',
        '  File "C:\\proj\\.venv\\Lib\\site-packages\\torch\\nn\\functional.py", line 2, in linear',
    ]
    assert raised_at(windows) == " (train.py, line 3)"
    assert raised_at(["RuntimeError: boom"]) == ""


def test_an_errors_line_is_the_exceptions_not_the_tracebacks_last():
    """PyTorch's NotImplementedError goes on after its own line with a page of backend registrations: the line named
    is the exception's (a review saw 'PythonDispatcher: registered at ...' as a stand-in failure's error)."""
    from planner.report.text import error_line

    error = "\n".join(
        [
            "Traceback (most recent call last):",
            '  File "/work/reinforce.py", line 61, in main',
            "    logits=policy(torch.tensor(state, device=device))",
            '  File "/usr/lib/python3.11/site-packages/torch/x.py", line 418, in handle',
            "    return func(*args, **kwargs), 0.0",
            "NotImplementedError: Could not run 'aten::empty_strided' with arguments from the 'standin' backend.",
            "",
            "CPU: registered at RegisterCPU_2.cpp:2359 [kernel]",
            "PythonDispatcher: registered at PythonFallbackKernel.cpp:196 [backend fallback]",
        ]
    )
    assert error_line(error) == (
        "NotImplementedError: Could not run 'aten::empty_strided' with arguments from the 'standin' backend. "
        "(reinforce.py, line 61)"
    )
    # the planner's own stand-in between the script and torch is not where it raised
    from planner.report.text import _RUNNER

    ours = error.replace("/work/reinforce.py", "/work/train.py").replace(
        "/usr/lib/python3.11/site-packages/torch/x.py", f"{_RUNNER[0]}standin.py"
    )
    assert error_line(ours).endswith("(train.py, line 61)")
    assert error_line(ours, raised=False).startswith("NotImplementedError: Could not run")
    assert error_line("RuntimeError: boom") == "RuntimeError: boom"
    # no traceback: argparse's complaint (not its usage line), not the exit code the launcher adds
    argparse = "usage: train.py [-h] --data DATA\ntrain.py: error: the following arguments are required: --data"
    assert error_line(argparse + "\n(the script exited with code 2)") == (
        "train.py: error: the following arguments are required: --data"
    )
    assert error_line("loading...\nno GPUs found, giving up") == "no GPUs found, giving up"
    assert error_line("x" * 300).endswith("…") and len(error_line("x" * 300)) == 200
    assert error_line("") == ""
