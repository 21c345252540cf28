"""What the bench knows about the machine it runs on: its processor, memory, own process, and how
busy the machine is while it measures. Design notes: docs/reference/modules.md
(runner/bench/machine.py)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from runner.bench.procfs import (  # noqa: F401 - re-exported for run.py
    cpu_name,
    cpu_times,
    memory_available,
    own_cpu_jiffies,
    peak_rss_bytes,
    process_age_seconds,
    tree_cpu_jiffies,
)

# other processes used half a CPU or more while the bench measured: they competed
BUSY_OTHER_CPUS = 0.5
BUSY_STEAL_PERCENT = 5.0  # the hypervisor took this share of the CPUs while the bench measured


def available_memory(device: torch.device) -> int | None:
    if device.type == "cuda":
        free, _total = torch.cuda.mem_get_info(device)
        return int(free)
    return memory_available()


@dataclass
class Busyness:
    """How busy the machine was while the bench measured: the CPU time other processes used (all
    CPUs' busy time from /proc/stat, less this process's own), and what the hypervisor stole. The
    load average is recorded too, but not judged: right after a previous bench it still counts that
    bench, which is no competitor."""

    # 1-minute load average when the bench started (for the record)
    load_average: float | None = None
    cpus: int = 1
    steal_percent: float | None = None
    # CPUs' worth of time other processes used while the bench measured
    other_cpus: float | None = None
    _start: tuple | None = None
    _own: Any = None  # what counts as this measurement's own CPU time (default: this process's)
    what: str = "the bench"

    @classmethod
    def begin(
        cls, own: Callable[[], int | None] = own_cpu_jiffies, what: str = "the bench"
    ) -> Busyness:
        """From now on; `own` counts the measured work's CPU time (a script's: its process and its children)."""
        try:
            load = os.getloadavg()[0]
        except (OSError, AttributeError):
            load = None
        return cls(load, os.cpu_count() or 1, None, None, (cpu_times(), own()), own, what)

    def end(self) -> None:
        own = self._own or own_cpu_jiffies
        (before, own_before), now, own_now = self._start or (None, None), cpu_times(), own()
        if not before or not now or now[2] <= before[2]:
            return
        total = now[2] - before[2]
        self.steal_percent = 100.0 * (now[0] - before[0]) / total
        if own_before is not None and own_now is not None:
            busy = total - (now[1] - before[1]) - (now[0] - before[0])
            self.other_cpus = max(0.0, busy - (own_now - own_before)) / total * self.cpus

    def warnings(self) -> list[dict[str, Any]]:
        """The busy machine as facts (planner.core.remarks.BusyWhileMeasured: the planner words them)."""
        out: list[dict[str, Any]] = []
        if self.other_cpus is not None and self.other_cpus > BUSY_OTHER_CPUS:
            free = max(self.cpus - self.other_cpus, 0.0)
            threads = torch.get_num_threads()
            out.append(
                {
                    "kind": "busy_while_measured",
                    "what": self.what,
                    "other_cpus": self.other_cpus,
                    "cpus": self.cpus,
                    "threads": threads,
                    "free": free,
                    "crowded": threads > free + 0.25,
                }
            )
        if self.steal_percent is not None and self.steal_percent > BUSY_STEAL_PERCENT:
            out.append(
                {
                    "kind": "busy_while_measured",
                    "what": self.what,
                    "steal_percent": self.steal_percent,
                }
            )
        return out


THREAD_ENV = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")  # the user chose the threads: theirs stand
FREE_SAMPLE_SECONDS = 0.2  # how long the CPUs are watched before the script starts


def fit_threads() -> dict[str, Any] | None:
    """Torch's threads set to the CPUs free as a measurement starts, a script's or the bench's (unless the user set them): a step taken with more
    threads than free CPUs waits on the busy ones (up to 20x slower on a 2-CPU machine with one busy, and as unsteady),
    and every CPU row is scaled from it. {"threads", "free_cpus", "cpus"}; None when the user's environment sets them
    or /proc/stat cannot tell. The script may still set its own (torch.set_num_threads): the result records the
    threads its steps ran with."""
    if any(os.environ.get(name) for name in THREAD_ENV):
        return None
    watch = Busyness.begin()  # the other processes' CPU time while this one sleeps
    time.sleep(FREE_SAMPLE_SECONDS)
    watch.end()
    if watch.other_cpus is None:
        return None
    free = max(watch.cpus - watch.other_cpus, 0.0)
    threads = max(1, min(torch.get_num_threads(), int(free + 0.25)))
    torch.set_num_threads(threads)
    return {"threads": threads, "free_cpus": round(free, 2), "cpus": watch.cpus}
