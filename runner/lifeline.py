"""`python -m runner.lifeline MODULE ARGS...`: run MODULE as `python -m MODULE ARGS...` would, in a
process that dies with the planner that started it. Design notes: docs/reference/modules.md
(runner/lifeline.py)."""

from __future__ import annotations

import os
import runpy
import signal
import sys
import threading
import time

PARENT_ENV = "PLANNER_PARENT_PID"
PR_SET_PDEATHSIG = 1
WATCHDOG_SECONDS = 0.5


def _kernel_lifeline() -> bool:
    """Ask Linux to SIGKILL this process when its parent ends. False when not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watchdog(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(WATCHDOG_SECONDS)
    os.kill(os.getpid(), signal.SIGKILL)


def die_with_parent(parent: int | None) -> None:
    """From now on, this process ends when `parent` does."""
    if not parent:
        return
    kernel = _kernel_lifeline()
    if os.getppid() != parent:  # the parent ended before the lifeline was in place
        os._exit(1)
    if not kernel:
        threading.Thread(target=_watchdog, args=(parent,), daemon=True, name="lifeline").start()


ENTERED_ENV = "PLANNER_LIFELINE_ENTERED"  # time.time() as the lifeline began: what came after is the launcher's


def main(argv: list[str]) -> None:
    # the interpreter's own start before it is any script's too
    os.environ[ENTERED_ENV] = repr(time.time())
    if not argv:
        sys.stderr.write("usage: python -m runner.lifeline MODULE [ARGS...]\n")
        sys.exit(2)
    try:
        parent = int(os.environ.get(PARENT_ENV, "0"))
    except ValueError:
        parent = 0
    die_with_parent(parent)
    module, args = argv[0], argv[1:]
    sys.argv = [sys.argv[0], *args]  # run_module puts the module's path first, as `python -m` does
    runpy.run_module(module, run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
