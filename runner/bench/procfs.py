"""Facts about this machine and this process from /proc (Linux), with the standard library only:
the planner reads them without importing torch, the bench (SHIPPED TO THE INSTANCE) reads them
too. On other systems the answers are None."""

from __future__ import annotations

import os
import platform


def _field(path: str, key: str) -> str | None:
    """The value of the first `key: value` line of a /proc file, or None."""
    try:
        with open(path) as f:
            return next((line.split(":", 1)[1].strip() for line in f if line.startswith(key)), None)
    except OSError:
        return None


def cpu_name() -> str:
    return _field(cpuinfo_path(), "model name") or platform.processor() or platform.machine()


def memory_available() -> int | None:
    """Bytes of host memory available to a new process (MemAvailable), or None."""
    found = _field("/proc/meminfo", "MemAvailable:")
    return int(found.split()[0]) * 1024 if found else None


def peak_rss_bytes() -> int | None:
    try:
        import resource
    except ImportError:  # Windows
        return None
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak if platform.system() == "Darwin" else peak * 1024)


def process_age_seconds() -> float | None:
    """Seconds since this process was created (Linux: /proc; 10 ms resolution), else None.

    Taken when the job starts, it is the interpreter's start plus `import torch`: a one-time cost
    of every training run, measured rather than assumed."""
    try:
        with open("/proc/self/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()  # after "(comm)", which may hold spaces
        with open("/proc/uptime") as f:
            uptime = float(f.read().split()[0])
        return max(0.0, uptime - int(fields[19]) / os.sysconf("SC_CLK_TCK"))
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def cpu_times() -> tuple[int, int, int] | None:
    """(steal, idle incl. iowait, total) jiffies of all CPUs since boot, from /proc/stat."""
    try:
        with open("/proc/stat") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    steal = fields[7] if len(fields) > 7 else 0
    return steal, fields[3] + (fields[4] if len(fields) > 4 else 0), sum(fields[:8])


def own_cpu_jiffies() -> int | None:
    """CPU time this process (all its threads) has used, in jiffies (utime + stime)."""
    try:
        with open("/proc/self/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, ValueError, IndexError):
        return None


def process_stats() -> dict[int, list[str]]:
    """Every live process's /proc/PID/stat fields after its name (state, ppid, ..., utime at [11]); {} where
    there is no /proc. A process that exits meanwhile is left out."""
    out: dict[int, list[str]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return out
    for entry in entries:
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if len(fields) > 14 and fields[1].isdigit():  # up to cstime, the last one read here
                out[int(entry)] = fields
    return out


def descendants(pid: int) -> list[int]:
    """Every process below `pid` (children, theirs...): also those that left its process group (a subprocess
    started with start_new_session, a daemon). Linux; elsewhere none are found."""
    children: dict[int, list[int]] = {}
    for child, fields in process_stats().items():
        children.setdefault(int(fields[1]), []).append(child)
    found, todo = [], list(children.get(pid, []))
    while todo:
        child = todo.pop()
        found.append(child)
        todo += children.get(child, [])
    return found


def tree_cpu_jiffies() -> int | None:
    """CPU time this process and its children have used, in jiffies: its own and its reaped children's
    (utime + stime + cutime + cstime), and each live child's likewise (a training script's DataLoader
    workers: theirs is the script's work, not a competitor's)."""
    me = os.getpid()
    mine = [fields for pid, fields in process_stats().items() if pid == me or int(fields[1]) == me]
    try:
        return sum(int(v) for fields in mine for v in fields[11:15]) if mine else None
    except ValueError:
        return None


def cpuinfo_path() -> str:
    """/proc/cpuinfo, or the file PLANNER_CPUINFO names (another processor's, to plan or test as on it)."""
    return os.environ.get("PLANNER_CPUINFO") or "/proc/cpuinfo"


def cpu_flags() -> set[str] | None:
    """This machine's CPU feature flags (/proc/cpuinfo's x86 `flags` or Arm `Features` line), or None."""
    path = cpuinfo_path()
    found = _field(path, "flags") or _field(path, "Features")
    return set(found.split()) if found else None


# The CPU instructions that run a 16-bit precision natively (/proc/cpuinfo flags): without them PyTorch's CPU autocast
# converts through fp32, and a bf16 step was measured 51-75x slower than fp32 on such a CPU (issue 40).
HALF_UNITS = {
    "bf16": ({"avx512_bf16", "amx_bf16", "bf16", "svebf16"}, "AVX-512 BF16 or AMX"),
    "fp16": ({"avx512_fp16", "amx_fp16", "fphp"}, "AVX-512 FP16 or AMX-FP16"),
}


def emulated_precision(precision: str, flags: set[str] | None = None) -> dict[str, str] | None:
    """The remark a CPU without `precision`'s units gives (as the planner's `emulated_here` JSON), or None when it
    has them or cannot tell: such a CPU trains in fp32, the precision anyone would train in there, on every path
    (a spec's bench, its validate run, a rented CPU instance)."""
    needed = HALF_UNITS.get(precision)
    flags = cpu_flags() if flags is None else flags
    if needed is None or flags is None or flags & needed[0]:
        return None
    return {"kind": "emulated_here", "precision": precision, "units": needed[1]}
