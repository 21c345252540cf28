"""Run a user's training script, unchanged, and time its steps: `python -m runner.script --out
RESULT.json --seconds S -- train.py ARGS...` (under runner.lifeline, so it dies with the
planner). Design notes: docs/reference/modules.md (runner/script.py)."""

from __future__ import annotations

import argparse
import json
import math
import os
import runpy
import signal
import statistics
import sys
import time
import traceback
import weakref
from typing import Any

RESULT_VERSION = 1
STEADY_DRIFT = 0.10  # the first and last thirds' median steps within 10%: steady
# and the medians of 20 windows of steps within a 25% standard deviation of their mean
STEADY_WINDOWS = 0.25
UNSTEADY_EXTENSION = 3.0  # an unsteady measurement goes on to at most 3x its budget
PROGRESS_SECONDS = 0.5  # the progress file is written at most this often
NOTICE_CHECK_SECONDS = 0.5  # how often a step's end looks for a spot interruption notice (a stat)
# until min_steps, the result as it stands is written this often (and at the first step)
INTERIM_SECONDS = 2.0
LIFELINE_ENTERED = "PLANNER_LIFELINE_ENTERED"  # runner/lifeline.py's ENTERED_ENV: when it began (not imported: shipped alone)
# past the budget, whether the step time has settled is decided at most this often
DECIDE_SECONDS = 0.25


OP_CLASSES = (  # (class, substrings of an aten op's name), first match wins: as planner/workload/footprint's op classes
    ("sync", ("_local_scalar_dense", "item")),
    ("copy", ("_to_copy", "copy_")),
    (
        "elementwise",
        ("_thnn_fused_",),
    ),  # an LSTM/GRU cell's gate arithmetic on a GPU (its matmuls are mm ops of their own)
    ("attention", ("attention", "sdpa")),
    ("conv", ("convolution",)),
    ("recurrent", ("lstm", "gru", "rnn_")),
    ("gemm", ("mm", "addmm", "bmm", "linear", "matmul", "baddbmm")),
)


def op_class(name: str) -> str:
    base = name.split(".")[1] if name.startswith("aten.") else name
    for cls, keys in OP_CLASSES:
        if any(key in base for key in keys):
            return cls
    return "elementwise"


def _nbytes(value: Any) -> int:
    import torch

    if isinstance(value, torch.Tensor):
        return value.numel() * value.element_size()
    if isinstance(value, (list, tuple)):
        return sum(_nbytes(v) for v in value)
    return 0


def _first_dtype(value: Any) -> str:
    import torch

    if isinstance(value, torch.Tensor):
        return str(value.dtype).replace("torch.", "")
    if isinstance(value, (list, tuple)) and value:
        return _first_dtype(value[0])
    return "other"


NO_FORMULA, FORMULA_FAILED = "no formula", "formula failed"  # why count_op counted no FLOPs


def count_op(
    trace: dict[str, Any], cls: str, func: Any, args: Any, kwargs: Any, out: Any
) -> tuple[int, str] | str:
    """One op (not a view) counted into the trace's class `cls`: its launch, the bytes it reads and writes, its FLOPs
    by PyTorch's own formula (torch.utils.flop_counter) and their dtype. (FLOPs, dtype), or why none were counted
    (NO_FORMULA, FORMULA_FAILED: a formula that does not cover these arguments). Shared by this CPU's trace and the
    stand-in GPU's (runner/standin.py)."""
    from torch.utils.flop_counter import flop_registry

    entry = trace["classes"].setdefault(cls, {"ops": 0, "flops": 0, "bytes": 0, "seconds": 0.0})
    entry["ops"] += 1
    entry["bytes"] += _nbytes(list(args)) + _nbytes(out)
    counter = flop_registry.get(func._overloadpacket)
    if counter is None:
        return NO_FORMULA
    try:
        flops = int(counter(*args, **kwargs, out_val=out))
    except Exception:  # noqa: BLE001 - an op PyTorch's formula does not cover: its FLOPs unknown
        return FORMULA_FAILED
    dtype = _first_dtype(out)
    entry["flops"] += flops
    trace["flops_by_dtype"][dtype] = trace["flops_by_dtype"].get(dtype, 0) + flops
    return flops, dtype


def trace_mode(trace: dict[str, Any], loading: Any = None) -> Any:
    """A TorchDispatchMode that records every aten op of the traced step: its class, FLOPs (PyTorch's own
    formulas, torch.utils.flop_counter) and their dtype, bytes read and written, and the time spent inside
    it. A view launches no kernel and moves nothing: it is counted apart. An op run while `loading()`
    (a DataLoader fetching a batch in the main process: its collate) is of class "data": host work
    whatever the script's device, never a GPU kernel."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class Trace(TorchDispatchMode):
        def __torch_dispatch__(
            self, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            kwargs = kwargs or {}
            start = time.perf_counter()
            out = func(*args, **kwargs)
            took = time.perf_counter() - start
            trace["op_seconds"] += took
            if getattr(func, "is_view", False):  # no kernel; its input is the whole base tensor
                trace["views"] += 1
                return out
            cls = "data" if loading is not None and loading() else op_class(str(func))
            if count_op(trace, cls, func, args, kwargs, out) == FORMULA_FAILED:
                trace["uncounted"] += 1
            trace["classes"][cls]["seconds"] += took
            return out

    return Trace()


TO_HOST = (
    "item",
    "cpu",
    "tolist",
)  # on a GPU each waits for the GPU (a sync) and copies to the host


class Moves:
    """Records what would cross PCIe if the script's device were a GPU: tensors sent to a device
    (`.to(device)`, `.cuda()`, `torch.tensor(..., device=)`) and values read back on the host (`.item()`,
    `.cpu()`, `.tolist()`: each a synchronisation there), called by the script, not by torch itself. On
    this machine they copy nothing. The methods are wrapped while the traced step runs and restored after
    it (not a TorchFunctionMode: a step boundary inside `Tensor.backward` would have to leave the mode
    from within its own handler)."""

    def __init__(self, trace: dict[str, Any]):
        import torch

        self.torch, self.trace = torch, trace
        self.saved: dict[tuple[Any, str], Any] = {}
        self.torch_dir = os.path.dirname(torch.__file__) + os.sep

    def _moves(self, name: str, args: tuple, kwargs: dict[str, Any]) -> bool:
        """Whether this call sends data to a device (`args`: a method's, self first)."""
        if name in ("tensor", "as_tensor"):
            return kwargs.get("device") is not None
        if name == "cuda":
            return True
        return name == "to" and (
            kwargs.get("device") is not None
            or any(
                isinstance(a, (str, self.torch.device))
                or (isinstance(a, int) and not isinstance(a, bool))
                for a in args[1:2]
            )
        )

    def _wrap(self, owner: Any, name: str) -> None:
        original = getattr(owner, name)
        self.saved[(owner, name)] = original
        entry = self.trace["to_host"] if name in TO_HOST else self.trace["to_device"]
        made_here = name in ("tensor", "as_tensor")

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            out = original(*args, **kwargs)
            if not sys._getframe(1).f_code.co_filename.startswith(self.torch_dir) and (
                name in TO_HOST or self._moves(name, args, kwargs)
            ):
                entry["calls"] += (
                    1  # torch's own bookkeeping (Adam reads its CPU step counters) is not the script's data
                )
                entry["bytes"] += _nbytes(out) if made_here else _nbytes(args[0] if args else None)
            return out

        setattr(owner, name, wrapper)

    def __enter__(self) -> Moves:
        for name in (*TO_HOST, "to", "cuda"):
            self._wrap(self.torch.Tensor, name)
        for name in ("tensor", "as_tensor"):
            self._wrap(self.torch, name)
        return self

    def __exit__(self, *exc: Any) -> None:
        for (owner, name), original in self.saved.items():
            setattr(owner, name, original)
        self.saved = {}


class SavedForBackward:
    """The tensors autograd saves for the backward pass while the traced step runs (torch.autograd.graph's
    saved_tensors_hooks, unchanged tensors back): their bytes, each storage once — the step's activations,
    what a GPU would hold for it on top of the weights, gradients and optimizer state. A backward pass frees
    what was saved for it: with gradient accumulation the peak is the largest micro-batch's, not their sum."""

    def __init__(self, trace: dict[str, Any]):
        import torch

        self.trace, self.seen, self.held = trace, set[int](), 0
        self.hooks = torch.autograd.graph.saved_tensors_hooks(self.pack, lambda t: t)

    def pack(self, tensor: Any) -> Any:
        storage = tensor.untyped_storage()
        if storage.data_ptr() not in self.seen:
            self.seen.add(storage.data_ptr())
            self.held += storage.nbytes()
            self.trace["saved_bytes"] = max(self.trace["saved_bytes"], self.held)
        return tensor

    def released(self) -> None:
        """A backward pass ended: what was saved for it is freed."""
        self.seen.clear()
        self.held = 0

    def __enter__(self) -> SavedForBackward:
        self.hooks.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.hooks.__exit__(*exc)


def state_bytes(optimizers: list[Any]) -> int:
    """What the optimizers hold on the script's device: their parameters, gradients and state (Adam's
    moments), each storage once."""
    import torch

    seen: dict[int, int] = {}
    for opt in optimizers:
        tensors = [
            t
            for group in opt.param_groups
            for p in group["params"]
            for t in (p, p.grad)
            if t is not None
        ]
        tensors += [
            v for state in opt.state.values() for v in state.values() if isinstance(v, torch.Tensor)
        ]
        for t in tensors:
            storage = t.untyped_storage()
            seen[storage.data_ptr()] = storage.nbytes()
    return sum(seen.values())


def _empty_trace() -> dict[str, Any]:
    return {
        "classes": {},
        "op_seconds": 0.0,
        "uncounted": 0,
        "views": 0,
        "flops_by_dtype": {},
        "saved_bytes": 0,
        "state_bytes": 0,
        "class_dtypes": {},
        "uncounted_ops": {},
        "peak_bytes": 0,
        "to_device": {"calls": 0, "bytes": 0},
        "to_host": {"calls": 0, "bytes": 0},
    }


def op_overhead_seconds(traced: bool = False) -> float:
    """What one tiny eager op costs this CPU outside its kernel (Python binding, dispatcher, autograd
    bookkeeping), `traced`: under the trace's dispatch mode (what tracing adds to each op is then known):
    the median of a few timed rounds of 200 adds on one-element tensors."""
    import torch

    a, b = torch.zeros(1), torch.zeros(1)
    rounds = []
    for _ in range(5):
        mode = trace_mode(_empty_trace()) if traced else None
        if mode is not None:
            mode.__enter__()
        start = time.perf_counter()
        for _ in range(200):
            torch.add(a, b)
        rounds.append((time.perf_counter() - start) / 200)
        if mode is not None:
            mode.__exit__(None, None, None)
    return sorted(rounds)[len(rounds) // 2]


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            return next(
                (line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), ""
            )
    except OSError:
        return ""


def end_what_it_started() -> None:
    """SIGKILL every process the script started (DataLoader workers, a simulator, a detached burner): while
    this process lives, they are found below it (runner.bench.procfs.descendants), also those that left its
    process group, which the parent's group kill would miss. SIGCHLD is blocked first: a DataLoader's handler
    for it raises "worker exited unexpectedly" in this process when its workers are ended here, which once
    turned a measurement stopped at its budget into the script's own error."""
    from runner.bench.procfs import descendants
    from runner.script_job import kill_tree

    if hasattr(signal, "pthread_sigmask") and hasattr(signal, "SIGCHLD"):
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})
    kill_tree(descendants(os.getpid()))


def thirds_drift(durations: list[float]) -> float:
    """How far the median of the last third of these step durations is from the first third's (medians: an
    evaluation pass between epochs is one slow step, not a drift); 0 with fewer than 9. The launcher measures
    on while it is above STEADY_DRIFT; the result carries it (`drift`), so a plan says so by the same figure."""
    third = len(durations) // 3
    if third < 3:
        return 0.0
    first, last = sorted(durations[:third])[third // 2], sorted(durations[-third:])[third // 2]
    return abs(last / first - 1) if first > 0 else 0.0


def windows_spread(durations: list[float]) -> float:
    """How far the medians of 20 windows of these step durations (at least 5 steps each) move: their standard
    deviation over their mean (medians: an evaluation pass is one slow step, not a move); 0 with fewer than 5
    windows. A machine's burst moves a few windows; an RL agent's episodes, which lengthen and shorten as it
    learns, move them all (0.31-0.43 on examples/scripts/reinforce.py; a convnet's, 0.01-0.21 on a noisy 2-vCPU
    VM): their mean needs more of them. The launcher measures on while it is above STEADY_WINDOWS."""
    size = max(5, len(durations) // 20)
    windows = [
        sorted(durations[i : i + size])[size // 2]
        for i in range(0, len(durations) - size + 1, size)
    ]
    if len(windows) < 5:
        return 0.0
    return statistics.stdev(windows) / statistics.fmean(windows)


def settle_figures(ends: list[float]) -> tuple[float, float]:
    """(thirds_drift, windows_spread) of the steps past a 10% warm-up: the step time has settled when neither is
    above its bound (STEADY_DRIFT, STEADY_WINDOWS). Both go in the result, so a plan says why it had not."""
    steps = [b - a for a, b in zip(ends, ends[1:])]
    steady = steps[max(2, len(steps) // 10) :]
    return thirds_drift(steady), windows_spread(steady)


class Timeline:
    """What the hooks saw, in seconds since the spawn."""

    def __init__(
        self,
        spawn: float,
        seconds: float,
        min_steps: int,
        max_steps: int,
        out: str,
        until_epoch: bool = False,
        latest: float = float("inf"),
        standin: Any = None,
    ):
        self.spawn, self.seconds, self.min_steps, self.max_steps, self.out = (
            spawn,
            seconds,
            min_steps,
            max_steps,
            out,
        )
        self.until_epoch, self.latest = (
            until_epoch,
            latest,
        )  # past the budget, wait for an epoch's end until `latest`
        self.steady = True  # the step time had settled when the measurement stopped
        # settle_figures when it was last decided, past the budget
        self.figures: tuple[float, float] | None = None
        self.steps: list[float] = []  # the end of each step
        self.epochs: list[
            dict[str, Any]
        ] = []  # {"start", "end", "batches"} of each DataLoader iterated to its end
        self.optimizers: dict[
            int, Any
        ] = {}  # id -> a weakref to each optimizer seen (its state bytes are read at the trace)
        self.in_step: list[int] = []  # optimizers that stepped in the iteration under way
        # a closure step under way: the backward passes before it began
        self.closure_from: int | None = None
        self.closure_passes: list[
            int
        ] = []  # the backward passes of each closure step (LBFGS: up to its max_iter)
        self.last_event: float | None = None
        self.backward_ends: list[float] = []
        self.imports_done: float | None = None
        self.standin = standin  # runner.standin.StandIn: the script's GPU is the stand-in (nothing is timed but the host)
        self.host_marks: list[
            float
        ] = []  # on the stand-in: the script's own CPU seconds (outside torch) at each step's end
        # steps before the one traced: past the warm-up (on the stand-in, past the first step's lazy state, and past
        # the step after it, where a script's evaluation or checkpoint "at iteration 0" falls: a trial's eval after
        # its first optimizer step was traced as every step's, 2,194 kernels where a later step has 808)
        self.trace_after = 3 if standin is not None else max(5, min_steps // 2)
        # the op-overhead rounds are taken as the trace begins
        self.trace: dict[str, Any] = _empty_trace()
        self.tracing: list[Any] = []  # the modes while the traced step runs
        self.saved: SavedForBackward | None = None  # of them, the one counting what autograd saves
        self.loading = 0  # > 0 while a DataLoader fetches a batch in this process
        self.loaders_started = 0  # DataLoader iterations begun (an epoch, an evaluation pass)
        self.under_way: list[
            dict[str, Any]
        ] = []  # {"start", "batches", "length"} of each DataLoader being iterated
        self.traced_step: int | None = None  # the index of the traced step (slower: not timed)
        self.reported = -math.inf  # when the progress file was last written
        self.notice_checked = -math.inf
        # when the result as it stands was last written (a launcher stopped at the cap keeps it)
        self.interim = -math.inf
        # fit_threads(): the threads set to the CPUs free at the start
        self.threads_fitted: dict[str, Any] | None = None
        self.launcher_seconds = 0.0  # the launcher's own start-up taken off the run's clock (all but torch's import; main)
        self.start_up: dict[
            str, Any
        ] = {}  # seconds since the spawn: the lifeline entered, torch imported, the script began
        self.decided = -math.inf  # when, past the budget, it was last decided whether to stop
        # runner.bench.machine.Busyness from the first step on: who else used the CPUs
        self.busy: Any = None
        self.gpu_asked = False  # the script asked PyTorch whether a GPU is there (it would use one where there is)

    def now(self) -> float:
        import torch

        if cuda_available() and torch.cuda.is_initialized():
            torch.cuda.synchronize()
        return time.time() - self.spawn

    def optimizer_starting(self, optimizer: Any, args: tuple, kwargs: dict[str, Any]) -> None:
        """A step begins: the optimizer is known from now on (its closure's backward passes are not steps)."""
        self.optimizers.setdefault(id(optimizer), weakref.ref(optimizer))
        # args: (optimizer, closure?)
        if callable(kwargs.get("closure")) or (len(args) > 1 and callable(args[1])):
            self.closure_from = len(self.backward_ends)

    def optimizer_stepped(self, optimizer: Any) -> None:
        t = self.now()
        key = id(optimizer)
        self.optimizers.setdefault(key, weakref.ref(optimizer))
        if self.closure_from is not None:
            self.closure_passes.append(len(self.backward_ends) - self.closure_from)
            self.closure_from = None
        # a new iteration: the last one ended at its last step
        if key in self.in_step and self.last_event is not None:
            self.steps.append(self.last_event)
            self.in_step = []
            self.check(t)
        self.in_step.append(key)
        self.last_event = t
        self.interim_write(t)  # with this step's end, known only at the next one's otherwise

    def interim_write(self, t: float) -> None:
        """Slow steps (a large model on a small CPU): until min_steps, the result as it stands is written at the first
        step and every INTERIM_SECONDS, so that a launcher the planner stops at its cap leaves its steps in the result
        ("cap"); the final write replaces it."""
        n = self.step_count()
        if n and n < self.min_steps and t - self.interim >= INTERIM_SECONDS:
            self.interim = t
            self.write("cap")

    def backward_done(self) -> None:
        self.backward_ends.append(self.now())
        if self.saved is not None:
            self.saved.released()
        if not self.optimizers:
            self.check(self.backward_ends[-1])
            self.interim_write(self.backward_ends[-1])

    def boundary(self) -> str:
        return "optimizer" if self.optimizers else "backward" if self.backward_ends else "none"

    def step_ends(self) -> list[float]:
        if self.optimizers:
            return self.steps + (
                [self.last_event] if self.in_step and self.last_event is not None else []
            )
        return list(self.backward_ends)

    def boundary_reached(self, t: float) -> None:
        """At a step's end: start tracing the next step once past the warm-up, end the trace after it."""
        n = self.step_count()
        if self.standin is not None:
            self.host_marks.append(time.thread_time() - self.standin.not_script())
            if self.standin.trace is not None:
                self.standin.trace = None
                self.trace["wall"] = t - self.trace["start"]
                self.traced_step = n
            elif self.traced_step is None and n >= self.trace_after:
                self.trace["start"] = t
                self.trace["peak_bytes"] = self.standin.allocated
                self.standin.trace = self.trace
            return
        if self.tracing:
            for mode in reversed(self.tracing):
                mode.__exit__(None, None, None)
            self.tracing, self.saved = [], None
            self.trace["wall"] = t - self.trace["start"]
            self.trace["state_bytes"] = state_bytes(
                [o for ref in self.optimizers.values() if (o := ref()) is not None]
            )
            self.traced_step = n
        elif self.traced_step is None and n >= self.trace_after and "start" not in self.trace:
            # what one op costs this CPU, plain and traced, measured now, not before the script: the traced rounds
            # import torch.utils.flop_counter and with it torch._dynamo (~2 s), which a script that compiles imports
            # itself. Taken at the traced step's start, it falls in the traced step, which is not timed
            self.trace.update(
                op_overhead_seconds=op_overhead_seconds(),
                traced_op_overhead_seconds=op_overhead_seconds(traced=True),
            )
            self.trace["start"] = self.now()
            self.saved = SavedForBackward(self.trace)
            self.tracing = [
                Moves(self.trace),
                self.saved,
                trace_mode(self.trace, lambda: self.loading > 0),
            ]
            for mode in self.tracing:
                mode.__enter__()

    def step_count(self) -> int:
        """len(step_ends()), without copying the steps (it runs at every step: a step may take microseconds)."""
        if self.optimizers:
            return len(self.steps) + (1 if self.in_step and self.last_event is not None else 0)
        return len(self.backward_ends)

    def first_end(self) -> float:
        """step_ends()[0] (at least one step), without copying the steps."""
        if self.optimizers:
            return self.steps[0] if self.steps else float(self.last_event or 0.0)
        return self.backward_ends[0]

    def check(self, t: float) -> None:
        """Stop once the budget is spent (at least min_steps) and the step time has settled (at most 3x the
        budget), or at max_steps. Past the budget, whether to stop is decided at most every DECIDE_SECONDS:
        deciding reads every step, and doing it at every step slowed a 0.15 ms step threefold, which then
        looked unsettled."""
        self.boundary_reached(t)
        n = self.step_count()
        if not n:
            return
        # the steps are measured from here: so is what else ran on the machine
        if self.busy is None:
            from runner.bench.machine import Busyness, tree_cpu_jiffies

            self.busy = Busyness.begin(own=tree_cpu_jiffies, what="the script was")
        first = self.first_end()
        # a spot interruption notice (runner/bootstrap.sh)
        if t - self.notice_checked >= NOTICE_CHECK_SECONDS:
            self.notice_checked = t
            from runner.bench.harness import interruption

            if interruption() is not None:
                self.finish("interrupted")
        if n >= self.max_steps:
            self.finish("max_steps")
        elif n >= self.min_steps and t - first >= self.seconds:
            if t - self.decided < DECIDE_SECONDS:
                return
            self.decided = t
            ends = self.step_ends()
            if self.until_epoch and not self.epoch_seen(ends):
                if t < self.latest and self.epoch_may_end(t):
                    self.report(t, "past the budget, until an epoch ends")
                    return  # --epochs needs a whole training epoch and the step after it (the time between epochs)
                if not any(e["length"] for e in self.under_way):
                    # no epoch to count --epochs by, now or later: the answer is an error, at once
                    self.finish("budget")
            self.figures = settle_figures(ends)
            self.steady = self.figures[0] <= STEADY_DRIFT and self.figures[1] <= STEADY_WINDOWS
            if (
                not self.steady
                and t - first < UNSTEADY_EXTENSION * self.seconds
                and t < self.latest
            ):
                self.report(
                    t,
                    "past the budget, until the step time settles",
                    cap=min(UNSTEADY_EXTENSION * self.seconds, self.latest - first),
                )
                return  # the step time still moves (a warm-up, a neighbour's burst, an agent's episodes): measure on
            self.finish("budget")
        else:
            self.report(t, "measuring")

    def report(self, t: float, phase: str, cap: float | None = None) -> None:
        """The progress file (`out`.progress, replaced whole, at most twice a second): the planner shows it
        as the measurement's progress line, here and on an instance alike (`cap`: the most seconds of steps
        the phase may go on to). Its step is the mean of the last 2 s of steps (of the last 20 when fewer):
        a median of the last few flipped between an agent's long and short episodes."""
        if t - self.reported < PROGRESS_SECONDS:
            return
        self.reported = t
        ends = self.step_ends()
        k = next((i for i in range(len(ends) - 1, -1, -1) if ends[i] < t - 2.0), 0)
        k = min(k, max(len(ends) - 21, 0))
        step = (ends[-1] - ends[k]) / (len(ends) - 1 - k) if len(ends) - 1 > k else None
        event = {
            "event": "script",
            "phase": phase,
            "steps": len(ends),
            "seconds": t,
            "measured_seconds": t - ends[0],
            "budget_seconds": self.seconds,
            "step_seconds": step,
            "cap_seconds": cap,
        }
        try:
            with open(self.out + ".progress.tmp", "w") as f:
                json.dump(event, f)
            os.replace(self.out + ".progress.tmp", self.out + ".progress")
        except OSError:
            pass  # progress is for people: a full disk must not stop the measurement

    def epoch_may_end(self, t: float) -> bool:
        """Whether waiting on can show a whole epoch: a DataLoader is being iterated and, at the pace of its
        batches so far, ends before `latest` (or its length is unknown). With none begun, or one that ends
        later, the measurement stops at its budget: waiting to the cap would only delay the same answer."""
        return any(
            not e["length"]
            or not e["batches"]
            or e["start"] + (t - e["start"]) * e["length"] / e["batches"] < self.latest
            for e in self.under_way
        )

    def epoch_seen(self, ends: list[float]) -> bool:
        """A DataLoader iterated to its end with steps in it, and a step after it."""
        return any(
            any(e["start"] < t <= e["end"] for t in ends) and ends[-1] > e["end"]
            for e in self.epochs
        )

    def finish(self, why: str, message: str = "", status: str = "ok") -> None:
        """Write the result, end what the script started, exit: nothing raised meanwhile (a signal handler of the
        script's) can overturn the result written."""
        written = False
        try:
            self.write(why, message, status)
            written = True
            sys.stdout.flush()
            sys.stderr.flush()
            end_what_it_started()
        finally:
            os._exit(0 if status == "ok" and written else 1)

    def write(self, why: str, message: str = "", status: str = "ok") -> None:
        import torch

        busy: list[dict[str, Any]] = []
        if self.busy is not None:
            self.busy.end()
            busy = self.busy.warnings()
        data = {
            "version": RESULT_VERSION,
            "status": status,
            "stopped_because": why,
            "message": message,
            "boundary": self.boundary(),
            "optimizers": len(self.optimizers),
            "steps": self.step_ends(),
            "closure_steps": len(self.closure_passes),
            "closure_passes": statistics.median(self.closure_passes)
            if self.closure_passes
            else None,
            "steady": self.steady,
            "drift": self.figures[0] if self.figures else None,
            "windows_spread": self.figures[1] if self.figures else None,
            "epochs": self.epochs,
            "imports_done": self.imports_done,
            "wall": time.time() - self.spawn,
            "loaders_started": self.loaders_started,
            "under_way": self.under_way,
            "busy_warnings": busy,
            "other_cpus": self.busy.other_cpus if self.busy is not None else None,
            "cuda_used": bool(cuda_available() and torch.cuda.is_initialized()),
            "gpu_asked": self.gpu_asked,
            "device_name": torch.cuda.get_device_name(0)
            if cuda_available() and torch.cuda.is_initialized()
            else _cpu_name(),
            "torch_version": torch.__version__,
            "threads": torch.get_num_threads(),
            "threads_fitted": self.threads_fitted,
            "launcher_seconds": self.launcher_seconds,
            "start_up": self.start_up,
            "trace": self.trace if self.traced_step is not None else None,
        }
        if data[
            "cuda_used"
        ]:  # a real GPU: the peak its caching allocator handed out, as the stand-in's peak_bytes
            data["cuda_peak_bytes"] = int(torch.cuda.max_memory_allocated())
        # the stand-in GPU: what it was, what it saw, the host's CPU per step
        if self.standin is not None:
            data.update(
                cuda_used=self.standin.used,
                device_name=self.standin.gpu["name"],
                standin=self.standin.summary(),
                host_cpu=[b - a for a, b in zip(self.host_marks, self.host_marks[1:])],
            )
        tmp = self.out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(data, f)
        os.replace(tmp, self.out)


_CUDA_AVAILABLE: list[
    Any
] = []  # torch.cuda.is_available as PyTorch has it (the launcher's own checks are not the script's)


def cuda_available() -> bool:
    import torch

    return bool((_CUDA_AVAILABLE[0] if _CUDA_AVAILABLE else torch.cuda.is_available)())


def watch_gpu_questions(timeline: Timeline) -> None:
    """Whether the script asks for a GPU: torch.cuda.is_available / device_count and torch.accelerator's
    questions, as `device = "cuda" if torch.cuda.is_available() else "cpu"`, Lightning and accelerate ask them.
    Here, without a GPU, the answer is no and it trains on the CPU; a script that never asks never uses a GPU
    on an instance either (its device comes from its own code or arguments, the same there)."""
    import torch

    def asking(real: Any) -> Any:
        def asked(*args: Any, **kwargs: Any) -> Any:
            timeline.gpu_asked = True
            return real(*args, **kwargs)

        return asked

    _CUDA_AVAILABLE.append(torch.cuda.is_available)
    torch.cuda.is_available = asking(torch.cuda.is_available)  # type: ignore[method-assign]
    torch.cuda.device_count = asking(torch.cuda.device_count)  # type: ignore[method-assign]
    accelerator = getattr(torch, "accelerator", None)
    for name in ("is_available", "current_accelerator", "device_count"):
        if accelerator is not None and hasattr(accelerator, name):
            setattr(accelerator, name, asking(getattr(accelerator, name)))


def install(timeline: Timeline, watch: bool = True) -> None:
    """The hooks: optimizer steps, backward passes, DataLoader epochs, questions for a GPU (`watch`; the stand-in
    GPU answers them itself)."""
    import torch
    from torch.optim.optimizer import (
        register_optimizer_step_post_hook,
        register_optimizer_step_pre_hook,
    )
    from torch.utils.data import DataLoader

    if watch:
        watch_gpu_questions(timeline)
    register_optimizer_step_pre_hook(
        lambda optimizer, args, kwargs: timeline.optimizer_starting(optimizer, args, kwargs)
    )
    register_optimizer_step_post_hook(
        lambda optimizer, args, kwargs: timeline.optimizer_stepped(optimizer)
    )
    backward = torch.autograd.backward

    def timed_backward(*args: Any, **kwargs: Any) -> Any:
        result = backward(*args, **kwargs)
        timeline.backward_done()
        return result

    torch.autograd.backward = timed_backward
    iterate = DataLoader.__iter__

    def timed_iter(self: Any) -> Any:
        start = timeline.now()
        batches_of = iterate(self)
        try:
            length = len(self)
        except Exception:  # an iterable dataset without __len__
            length = 0
        timeline.loaders_started += 1
        under_way = {"start": start, "batches": 0, "length": length}
        timeline.under_way.append(under_way)
        try:
            while True:
                # its collate's ops (num_workers=0) are the host's, not the device's
                timeline.loading += 1
                try:
                    batch = next(batches_of)
                except StopIteration:
                    break
                finally:
                    timeline.loading -= 1
                under_way["batches"] += 1
                yield batch
            timeline.epochs.append(
                {"start": start, "end": timeline.now(), "batches": under_way["batches"]}
            )
        finally:  # also when the script breaks out of the loop (the generator is closed)
            timeline.under_way[:] = [e for e in timeline.under_way if e is not under_way]

    DataLoader.__iter__ = timed_iter  # type: ignore[method-assign]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="runner.script")
    parser.add_argument("--out", required=True)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--min-steps", type=int, default=20)
    parser.add_argument("--max-steps", type=int, default=100_000)
    parser.add_argument(
        "--until-epoch",
        action="store_true",
        help="past the budget, wait for a training epoch's end",
    )
    parser.add_argument(
        "--latest",
        type=float,
        default=float("inf"),
        help="seconds since the spawn: stop waiting then",
    )
    parser.add_argument(
        "--whole",
        action="store_true",
        help="run the script whole, nothing hooked: as `python train.py`",
    )
    parser.add_argument(
        "--standin",
        help="trace it on the stand-in GPU (runner/standin.py) described by this JSON ({} or "
        "the GPU's name, capability, memory_bytes, sm_count)",
    )
    parser.add_argument("script")
    parser.add_argument("args", nargs=argparse.REMAINDER)
    a = parser.parse_args(argv)
    if a.whole:  # the user's run as they run it: the parent times spawn to exit
        script = os.path.abspath(a.script)
        sys.argv = [script, *(a.args[1:] if a.args[:1] == ["--"] else a.args)]
        sys.path.insert(0, os.path.dirname(script))
        try:
            runpy.run_path(script, run_name="__main__")
        except SystemExit:
            raise  # its own exit code, as `python train.py` would end
        except BaseException as exc:  # noqa: BLE001 - its traceback as `python train.py` prints it: its own frames
            sys.stderr.write(own_traceback(exc))
            return 1
        finally:
            end_what_it_started()
        return 0
    spawn = float(os.environ.get("PLANNER_SPAWN_TIME") or time.time())
    standin = None
    if a.standin is not None:
        from runner.standin import StandIn
        from runner.standin import install as install_standin

        standin = StandIn(json.loads(a.standin) or None)
        standin.script_dir = os.path.dirname(os.path.abspath(a.script))
    entered = float(os.environ.pop(LIFELINE_ENTERED, "") or 0.0)
    importing = time.time()
    import torch  # noqa: F401 - the script's own import, timed apart: it stays in the script's setup

    torch_seconds = time.time() - importing
    timeline = Timeline(
        spawn, a.seconds, a.min_steps, a.max_steps, a.out, a.until_epoch, a.latest, standin
    )
    if standin is None:
        from runner.bench.machine import fit_threads

        watching = time.time()
        timeline.threads_fitted = fit_threads()
        timeline.launcher_seconds = time.time() - watching
    if standin is not None:
        install_standin(
            standin, sys.modules[__name__], on_question=lambda: setattr(timeline, "gpu_asked", True)
        )
        # the launcher's own clock needs no synchronisation: nothing runs
        _CUDA_AVAILABLE.append(lambda: False)
    install(timeline, watch=standin is None)
    # the launcher's own start-up is taken off the run's clock (the run's clock starts that much later), but not its
    # import of torch: taking all of its start-up off made convnet.py's whole run 4-7% short in validate (torch is the
    # script's import too)
    before_script = time.time()
    timeline.start_up = {
        "entered": entered - spawn if entered else None,
        "torch_import": torch_seconds,
        "before_script": before_script - spawn,
    }
    if entered:  # everything the launcher did but import torch (the script's own): its hooks, its calibrations
        # (the trace's op-overhead rounds import torch.utils.flop_counter, and with it torch._dynamo: ~2 s here), the
        # CPUs watched. The interpreter's start before it is the script's own too, as `python train.py` starts
        timeline.launcher_seconds = max(
            before_script - entered - torch_seconds, timeline.launcher_seconds
        )
    timeline.spawn += timeline.launcher_seconds
    timeline.latest -= timeline.launcher_seconds  # the planner's cap does not move
    timeline.imports_done = time.time() - timeline.spawn
    script = os.path.abspath(a.script)
    sys.argv = [
        script,
        *(a.args[1:] if a.args[:1] == ["--"] else a.args),
    ]  # as `python train.py ARGS` sees them
    sys.path.insert(0, os.path.dirname(script))
    try:
        runpy.run_path(script, run_name="__main__")
    except (
        SystemExit
    ) as exc:  # a failure after steps too: the whole run would fail there, not finish
        if exc.code not in (None, 0):
            from runner.script_job import EXITED_WITH

            timeline.finish("error", f"{EXITED_WITH} {exc.code!r}", "error")
    except BaseException as exc:  # noqa: BLE001 - the script's own error, shown as its own
        timeline.finish("error", own_traceback(exc), "error")
    timeline.finish("finished")
    return 0


def own_traceback(exc: BaseException) -> str:
    """The script's traceback with its own frames only, not the launcher's, the lifeline's or runpy's."""
    shown = traceback.TracebackException.from_exception(exc)
    ours = {
        os.path.abspath(__file__),
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "lifeline.py"),
    }
    shown.stack = traceback.StackSummary.from_list(
        [
            f
            for f in shown.stack
            if os.path.abspath(f.filename) not in ours and "runpy" not in f.filename
        ]
    )
    return "".join(shown.format())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
