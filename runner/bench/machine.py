"""What the bench knows about the machine it runs on: its processor, memory, own process, and how
busy the machine is while it measures.

SHIPPED TO THE INSTANCE: imports only torch and the standard library (Linux facts from /proc; on
other systems the answers are None and the bench goes on).

A measurement is only as good as the machine is quiet. `Busyness` samples the load average before
the bench starts stepping and the CPU time the hypervisor stole (/proc/stat "steal") while it
measures; `busy_warnings` turns them into the warnings the plan shows.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch

from runner.bench.procfs import cpu_name, cpu_times, memory_available, peak_rss_bytes, process_age_seconds  # noqa: F401

BUSY_LOAD_PER_CPU = 0.5  # another half a CPU of load per CPU before the bench started: others compete
BUSY_STEAL_PERCENT = 5.0  # the hypervisor took this share of the CPUs while the bench measured


def available_memory(device: torch.device) -> int | None:
    if device.type == "cuda":
        free, _total = torch.cuda.mem_get_info(device)
        return int(free)
    return memory_available()


@dataclass
class Busyness:
    """How busy the machine was: load average before measuring, steal while measuring."""

    load_average: float | None = None  # 1-minute load average when the bench started
    cpus: int = 1
    steal_percent: float | None = None
    _start: tuple[int, int] | None = None

    @classmethod
    def begin(cls) -> "Busyness":
        try:
            load = os.getloadavg()[0]
        except (OSError, AttributeError):
            load = None
        return cls(load, os.cpu_count() or 1, None, cpu_times())

    def end(self) -> None:
        now = cpu_times()
        if self._start and now and now[1] > self._start[1]:
            self.steal_percent = 100.0 * (now[0] - self._start[0]) / (now[1] - self._start[1])

    def warnings(self) -> list[str]:
        out = []
        if self.load_average is not None and self.load_average > BUSY_LOAD_PER_CPU * self.cpus:
            out.append(f"the machine was busy when the bench started (load average {self.load_average:.1f} on "
                       f"{self.cpus} CPUs): other processes competed for the cores, so the step time is likely "
                       "slower and noisier than on a quiet machine")
        if self.steal_percent is not None and self.steal_percent > BUSY_STEAL_PERCENT:
            out.append(f"the hypervisor took {self.steal_percent:.0f}% of the CPUs while the bench measured "
                       "(steal time): a shared host's neighbours slowed this measurement")
        return out
