"""The stand-in GPU: a script written for CUDA runs here, unchanged, on a device that has shapes
but no data. Design notes: docs/reference/modules.md (runner/standin.py)."""

from __future__ import annotations

import os
import sys
import time
import weakref
from typing import Any

STANDIN = "standin"
# The GPU the stand-in describes unless the planner names one (an A100: bf16 and TF32 tensor cores, the most
# rented training GPU in the published measurements the device model is fitted to).
DEFAULT_GPU = {
    "name": "NVIDIA A100-SXM4-80GB",
    "capability": [8, 0],
    "memory_bytes": 80 * 2**30,
    "sm_count": 108,
}

# torch.autocast("cuda")'s lists (aten/src/ATen/autocast_mode.cpp, CUDA): ops run in the autocast dtype, ops run in fp32
LOWER_PRECISION = (
    "mm",
    "addmm",
    "bmm",
    "baddbmm",
    "addbmm",
    "matmul",
    "linear",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv1d.padding",
    "conv2d.padding",
    "conv3d.padding",
    "conv_transpose1d",
    "conv_transpose2d.input",
    "conv_transpose3d.input",
    "_convolution",
    "convolution",
    "prelu",
    "addmv",
    "addr",
    "chain_matmul",
    "linalg_multi_dot",
    "lstm_cell",
    "gru_cell",
    "rnn_tanh_cell",
    "rnn_relu_cell",
    "_scaled_dot_product_flash_attention",
    "_scaled_dot_product_efficient_attention",
)
FP32 = (
    "softmax.int",
    "log_softmax.int",
    "layer_norm",
    "group_norm",
    "cross_entropy_loss",
    "nll_loss_nd",
    "mse_loss",
    "l1_loss",
    "smooth_l1_loss",
    "huber_loss",
    "binary_cross_entropy_with_logits",
    "kl_div",
    "cosine_similarity",
    "logsumexp",
    "exp",
    "log",
    "pow.Tensor_Scalar",
    "rsqrt",
    "reciprocal",
    "norm.Scalar",
    "cumsum",
    "prod",
)


class StandIn:
    """The stand-in device and what it saw. `trace`: the launcher's trace of the step under way (None between
    traced steps): every op on the stand-in is counted into it."""

    def __init__(self, gpu: dict[str, Any] | None = None):
        self.gpu = {**DEFAULT_GPU, **(gpu or {})}
        self.trace: dict[str, Any] | None = None
        self.used = False  # a tensor was put on the stand-in
        self.allocated = 0
        self.peak = 0
        self.storages: dict[int, list[int]] = {}  # storage -> [bytes, live tensors]
        self.torch_cpu = 0.0  # this thread's CPU seconds inside PyTorch calls on the stand-in and the modes' own work
        self.calls = 0  # torch calls the modes handled (each paid call_overhead on the way in)
        # of them, calls on host tensors alone (each paid host_call_overhead instead)
        self.host_calls = 0
        # CPU seconds of one host call's way into the modes, measured at install
        self.host_call_overhead = 0.0
        # CPU seconds of one call's way into the modes, measured at install
        self.call_overhead = 0.0
        self.depth = 0  # > 0 inside a call the modes time
        # stand-in tensors freed outside a timed call (each paid death_overhead there)
        self.deaths = 0
        self.death_overhead = 0.0  # CPU seconds of one fake tensor's teardown, measured at install
        self.syncs = 0  # values read back, synchronize(), Event.synchronize() (all of the run)
        self.read_sites: dict[str, int] = {}  # file:line of the script's reads -> count
        self.compiled = 0  # torch.compile calls (traced eager)
        # questions whose answer differs between GPUs: capability, bf16, memory
        self.asked: set[str] = set()
        self.autocast: set[str] = set()  # the autocast dtypes the script entered on cuda
        self.script_dir = ""
        self.autocast_libraries: tuple[
            Any, ...
        ] = ()  # the autocast kernels' registrations, alive while it runs

    # --------------------------------------------------------------------------------------------- memory
    def _hold(self, tensor: Any) -> None:
        try:
            storage = tensor.untyped_storage()
            key, nbytes = storage._cdata, storage.nbytes()
        except Exception:  # noqa: BLE001 - a tensor without a storage (sparse, nested): not counted
            return
        entry = self.storages.get(key)
        if entry is None:
            entry = self.storages[key] = [nbytes, 0]
            self.allocated += nbytes
            self.peak = max(self.peak, self.allocated)
            if self.trace is not None:
                self.trace["peak_bytes"] = max(self.trace.get("peak_bytes", 0), self.allocated)
        entry[1] += 1
        weakref.finalize(tensor, self._release, key)

    def forget(self, key: int) -> None:
        """A storage no tensor of the script's holds any more (a parameter given new data): not counted from now."""
        entry = self.storages.pop(key, None)
        if entry is not None:
            self.allocated -= entry[0]

    def _release(self, key: int) -> None:
        if not self.depth:  # a stand-in tensor freed by the script's own code: its Python teardown is the stand-in's
            self.deaths += 1
        entry = self.storages.get(key)
        if entry is None:
            return
        entry[1] -= 1
        if entry[1] <= 0:
            self.allocated -= entry[0]
            del self.storages[key]

    # ---------------------------------------------------------------------------------------- read back
    def read_back(self, nbytes: int) -> None:
        """A value read back to the host (a synchronisation on a GPU), and the script's line that read it."""
        self.syncs += 1
        frame = sys._getframe(1)
        while frame is not None and not frame.f_code.co_filename.startswith(self.script_dir):
            frame = frame.f_back  # type: ignore[assignment]
        if frame is not None:
            site = f"{os.path.basename(frame.f_code.co_filename)}:{frame.f_lineno}"
            self.read_sites[site] = self.read_sites.get(site, 0) + 1
        if self.trace is not None:
            self.trace["to_host"]["calls"] += 1
            self.trace["to_host"]["bytes"] += nbytes

    def not_script(self) -> float:
        """This thread's CPU seconds so far that were the stand-in's or PyTorch's on it, not the script's own."""
        return (
            self.torch_cpu
            + (self.calls - self.host_calls) * self.call_overhead
            + self.host_calls * self.host_call_overhead
            + self.deaths * self.death_overhead
        )

    def summary(self) -> dict[str, Any]:
        """What the plan says of the stand-in run."""
        import torch

        return {
            "gpu": self.gpu,
            "used": self.used,
            "compiled": self.compiled,
            "syncs": self.syncs,
            "read_sites": dict(sorted(self.read_sites.items(), key=lambda kv: -kv[1])[:5]),
            "asked": sorted(self.asked),
            "autocast": sorted(self.autocast),
            "matmul_tf32": torch.get_float32_matmul_precision() != "highest"
            or bool(torch.backends.cuda.matmul.allow_tf32),
            "cudnn_tf32": bool(torch.backends.cudnn.allow_tf32),
            "peak_bytes": self.peak,
            "call_overhead_us": round(self.call_overhead * 1e6, 2),
            "death_overhead_us": round(self.death_overhead * 1e6, 2),
            "host_call_overhead_us": round(self.host_call_overhead * 1e6, 2),
        }


def _zeros_like_value(dtype: Any) -> Any:
    """The stand-in value of one element read back: zero of its kind."""
    import torch

    if dtype == torch.bool:
        return False
    return 0.0 if dtype.is_floating_point or dtype.is_complex else 0


def install(standin: StandIn, ops: Any, on_question: Any = None) -> None:
    """Make this process see the stand-in as its CUDA GPU (see the module docstring). `ops`: the launcher's op
    bookkeeping (runner.script: op_class, count_op, _nbytes), so that a stand-in op is counted as a traced one;
    `on_question` is called when the script asks whether a GPU is there."""
    import torch
    from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode
    from torch.overrides import TorchFunctionMode
    from torch.utils._python_dispatch import TorchDispatchMode
    from torch.utils._python_dispatch import _disable_current_modes as no_dispatch_modes
    from torch.utils._pytree import tree_leaves
    from torch.utils.backend_registration import _setup_privateuseone_for_python_backend

    op_class, count_op, _nbytes = ops.op_class, ops.count_op, ops._nbytes

    _setup_privateuseone_for_python_backend(STANDIN, backend_module=_backend_module(standin))
    device = torch.device(STANDIN, 0)

    class Fake(FakeTensorMode):
        # no device is initialised, no constant is propagated across a device move
        avoid_device_init = True

    fake = Fake(allow_non_fake_inputs=True)
    aten = torch.ops.aten
    scalar_read, to_copy, copy_ = (
        aten._local_scalar_dense.default,
        aten._to_copy.default,
        aten.copy_.default,
    )
    compute = ("gemm", "conv", "attention", "recurrent")

    def on_standin(value: Any) -> bool:
        return isinstance(value, FakeTensor) or (
            isinstance(value, torch.device) and value.type == STANDIN
        )

    def record(func: Any, args: Any, kwargs: Any, out: Any, name: str) -> None:
        trace = standin.trace
        if trace is None or func.namespace == "prim":
            return
        if getattr(func, "is_view", False):
            trace["views"] += 1
            return
        cls = op_class(name)
        counted = count_op(trace, cls, func, args, kwargs, out)
        # no FLOPs: said of a compute op (an elementwise op is timed by its bytes anyway)
        if isinstance(counted, str):
            if cls in compute or counted == ops.FORMULA_FAILED:
                trace["uncounted_ops"][name] = trace["uncounted_ops"].get(name, 0) + 1
            return
        flops, dtype = counted
        by_class = trace["class_dtypes"].setdefault(cls, {})
        by_class[dtype] = by_class.get(dtype, 0) + flops

    class Router(TorchDispatchMode):
        """Ops that touch the stand-in run on FakeTensors (and are traced); every other op runs for real."""

        def __torch_dispatch__(
            self, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            if standin.depth:  # under a torch call the Devices mode times already
                return self.route(func, args, kwargs or {})
            # reached with torch functions disabled (optimizers, clip_grad_norm_ and autograd internals do so):
            # timed here, or the fake tensors' work would count as the script's (it did: 2x its host time)
            start = time.thread_time()
            standin.depth += 1
            try:
                return self.route(func, args, kwargs or {})
            finally:
                standin.depth -= 1
                standin.torch_cpu += time.thread_time() - start

        def route(self, func: Any, args: Any, kwargs: Any) -> Any:
            flat = tree_leaves((args, kwargs))
            if not any(on_standin(a) for a in flat):
                return func(*args, **kwargs)
            name = str(func)
            if func is scalar_read:
                standin.read_back(args[0].element_size())
                return _zeros_like_value(args[0].dtype)
            if (
                func is to_copy
                and isinstance(args[0], FakeTensor)
                and kwargs.get("device") is not None
                and torch.device(kwargs["device"]).type == "cpu"
            ):  # read back to the host: zeros
                standin.read_back(_nbytes(args[0]))
                return torch.zeros(args[0].shape, dtype=kwargs.get("dtype") or args[0].dtype)
            if func is copy_ and not isinstance(args[0], FakeTensor):  # into a host tensor: zeros
                standin.read_back(_nbytes(args[1]))
                with torch.utils._python_dispatch._disable_current_modes():
                    return args[0].zero_()
            moved = [
                a
                for a in flat
                if isinstance(a, torch.Tensor) and not isinstance(a, FakeTensor) and a.numel() > 1
            ]
            if moved and standin.trace is not None and func in (to_copy, copy_):
                standin.trace["to_device"]["calls"] += 1
                standin.trace["to_device"]["bytes"] += _nbytes(moved)
            standin.used = True
            try:
                with fake:
                    out = func(*args, **kwargs)
            except Exception as exc:  # noqa: BLE001 - a data-dependent shape: the stand-in's zeros decide it
                if type(exc).__name__ not in (
                    "DynamicOutputShapeException",
                    "DataDependentOutputException",
                ):
                    raise
                out = _zeros_shape(func, args, kwargs, fake, device)
            record(func, args, kwargs, out, name)
            if not getattr(func, "is_view", False):
                for t in tree_leaves(out):
                    if isinstance(t, FakeTensor) and not any(t is a for a in flat):
                        standin._hold(t)
            return out

    def to_standin(value: Any) -> Any:
        if isinstance(value, str) and value.split(":")[0] == "cuda":
            return device
        if isinstance(value, torch.device) and value.type == "cuda":
            return device
        return value

    flash, efficient = (
        aten._scaled_dot_product_flash_attention.default,
        aten._scaled_dot_product_efficient_attention.default,
    )
    sdpa = torch.nn.functional.scaled_dot_product_attention

    def attention(
        q: Any,
        k: Any,
        v: Any,
        attn_mask: Any = None,
        dropout_p: float = 0.0,
        is_causal: bool = False,
        scale: Any = None,
        enable_gqa: bool = False,
    ) -> Any:
        """As a GPU runs it: the fused kernel (flash for fp16/bf16 without a mask, memory-efficient otherwise)."""
        if enable_gqa and k.shape[-3] != q.shape[-3]:
            k = k.repeat_interleave(q.shape[-3] // k.shape[-3], dim=-3)
            v = v.repeat_interleave(q.shape[-3] // v.shape[-3], dim=-3)
        half = q.dtype in (torch.float16, torch.bfloat16) and not torch.is_autocast_enabled(STANDIN)
        if attn_mask is None and (
            half
            or torch.get_autocast_dtype(STANDIN) in (torch.float16, torch.bfloat16)
            and torch.is_autocast_enabled(STANDIN)
        ):
            return flash(q, k, v, dropout_p, is_causal, False, scale=scale)[0]
        if attn_mask is not None and attn_mask.dtype == torch.bool:
            attn_mask = torch.zeros(attn_mask.shape, dtype=q.dtype, device=device)
        bias = (
            attn_mask.expand(q.shape[0], q.shape[-3], q.shape[-2], k.shape[-2])
            if attn_mask is not None
            else None
        )
        return efficient(q, k, v, bias, True, dropout_p, is_causal, scale=scale)[0]

    # factories from data (lists, arrays, scalars), which PyTorch builds with the Python dispatch keys excluded
    DATA_FACTORIES = (torch.tensor, torch.as_tensor, torch.asarray)

    class Devices(TorchFunctionMode):
        """`cuda` means the stand-in; reading a stand-in tensor gives zeros; the CPU time of calls on it is counted."""

        def __torch_function__(
            self, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            if standin.depth:  # a call made by the stand-in's own work (the fake tensors' Python): timed by its caller
                return self.handle(func, args, kwargs or {})[0]
            # all of this call is PyTorch's (and the stand-in's) but a CPU op's own work
            start = time.thread_time()
            standin.calls += 1
            standin.depth += 1
            try:
                out, own = self.handle(func, args, kwargs or {}, top=True)
            finally:
                standin.depth -= 1
            standin.torch_cpu += time.thread_time() - start - own
            return out

        def handle(self, func: Any, args: Any, kwargs: Any, top: bool = False) -> tuple[Any, float]:
            """The call's result, and the CPU seconds of it that are the script's own (an op on CPU tensors)."""
            if func is torch.Tensor.cuda:
                func, args = torch.Tensor.to, (args[0], device, *args[1:2])
                kwargs.pop("device", None)
            if func is torch.device:
                # torch.device("cuda") stays a cuda device, as the GPU run's: `device.type == "cuda"` picks its GPU
                # branch (autocast, a GPU-only path; a trial's AMP was traced in fp32); its tensors go to the stand-in
                return func(*args, **kwargs), 0.0
            args = tuple(to_standin(a) for a in args)
            if "device" in kwargs:
                kwargs["device"] = to_standin(kwargs["device"])
            # no page-locked memory without a GPU: an ordinary host tensor
            if kwargs.get("pin_memory"):
                kwargs["pin_memory"] = False
            first = args[0] if args else None
            if isinstance(first, FakeTensor):
                if func is torch.Tensor.numpy and on_standin(first.device):
                    # as a GPU tensor refuses it (a trial's GPU-only bug went unseen: it read zeros)
                    raise TypeError(
                        "can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
                        "to host memory first."
                    )
                if func in (torch.Tensor.tolist, torch.Tensor.numpy):
                    standin.read_back(_nbytes(first))
                    zeros = torch.zeros(first.shape, dtype=first.dtype)
                    return (zeros.tolist() if func is torch.Tensor.tolist else zeros.numpy()), 0.0
                if func is torch.Tensor.__format__ and first.dim() == 0:
                    return first.item().__format__(args[1]), 0.0
                if func in (torch.Tensor.__repr__, torch.Tensor.__str__):
                    standin.read_back(_nbytes(first))
                    return (
                        repr(torch.zeros(first.shape, dtype=first.dtype)).replace(
                            ")", ", device='cuda:0')", 1
                        )
                        if first.dim()
                        else f"tensor({_zeros_like_value(first.dtype)}, device='cuda:0')"
                    ), 0.0
                if func is sdpa:
                    return attention(*args, **kwargs), 0.0
            # no page-locked memory without a GPU: the tensor as it is
            if func is torch.Tensor.pin_memory:
                return first, 0.0
            if func in DATA_FACTORIES and on_standin(kwargs.get("device")):
                # torch.tensor(data, device="cuda") builds past the dispatch modes (PyTorch excludes them while it
                # reads the data), so the fake mode never sees it: built on the host, then copied as a GPU run would
                on = kwargs.pop("device")
                grad = bool(kwargs.pop("requires_grad", False))
                host, own = self.host(func, args, kwargs)
                out = host.to(on)
                return (out.requires_grad_() if grad else out), own
            if not any(on_standin(a) for a in tree_leaves((args, kwargs))):
                if top:  # the script's call, not one the stand-in's own work made: its way in was a host call's
                    standin.host_calls += 1
                return self.host(func, args, kwargs)
            return func(*args, **kwargs), 0.0

        @staticmethod
        def host(func: Any, args: Any, kwargs: Any) -> tuple[Any, float]:
            """A call on host tensors alone: run past the dispatch mode, as on a GPU machine (through it, each op
            cost ~30 us more, 15x a data loader's own Python), and all its CPU time is the script's."""
            with no_dispatch_modes():
                begin = time.thread_time()
                out = func(*args, **kwargs)
                return out, time.thread_time() - begin

    _autocast_kernels(standin)
    _patch_cuda(standin, on_question)
    _patch_modules(FakeTensor, standin)
    _patch_save(FakeTensor, standin)
    _patch_pinning()
    _patch_distributions(standin)
    Devices().__enter__()
    Router().__enter__()
    _time_grouping(standin)
    standin.call_overhead, standin.death_overhead, standin.host_call_overhead = _overheads(
        standin, device
    )


def _time_grouping(standin: StandIn) -> None:
    """torch._C._group_tensors_by_device_and_dtype (every foreach optimizer and clip_grad_norm_ calls it) is no torch
    function: it asks each fake tensor its device from C++, ~10 us a tensor on the stand-in against well under one
    on a GPU, and none of it the script's. Timed as the stand-in's, like a call on it."""
    import torch

    group = torch._C._group_tensors_by_device_and_dtype

    def timed(*args: Any, **kwargs: Any) -> Any:
        if standin.depth:
            return group(*args, **kwargs)
        start = time.thread_time()
        standin.depth += 1
        try:
            return group(*args, **kwargs)
        finally:
            standin.depth -= 1
            standin.torch_cpu += time.thread_time() - start

    torch._C._group_tensors_by_device_and_dtype = timed


def _overheads(standin: StandIn, device: Any) -> tuple[float, float, float]:
    """The CPU seconds, outside the modes' own timing, of one torch call's way into the stand-in's modes and back
    (PyTorch's torch-function handling), of one stand-in tensor's teardown when the script drops it, and of one call
    on host tensors' way in: the medians over rounds of a call that does nothing else, of one that makes a tensor
    dropped at once, and of a small host op through the modes less the same op with none."""
    import torch

    used, allocated, peak = standin.used, standin.allocated, standin.peak
    probe = torch.empty(1, device=device)

    def residue(work: Any) -> float:
        rounds = []
        for _ in range(11):
            start, inside = time.thread_time(), standin.torch_cpu
            for _ in range(200):
                work()
            rounds.append(max(time.thread_time() - start - (standin.torch_cpu - inside), 0.0) / 200)
        return sorted(rounds)[len(rounds) // 2]

    call = residue(probe.dim)
    death = max(residue(lambda: torch.empty(1, device=device)) - call, 0.0)
    # a call on host tensors (a data loader's): through the modes less the same call with none, round by round
    host = torch.ones(4)
    rounds = []
    for _ in range(11):
        start, inside = time.thread_time(), standin.torch_cpu
        for _ in range(200):
            host.add(1)
        through = time.thread_time() - start - (standin.torch_cpu - inside)
        with torch.utils._python_dispatch._disable_current_modes(), torch._C.DisableTorchFunction():
            start = time.thread_time()
            for _ in range(200):
                host.add(1)
            alone = time.thread_time() - start
        rounds.append(max(through - alone, 0.0) / 200)
    host_call = sorted(rounds)[len(rounds) // 2]
    del probe
    standin.calls = standin.deaths = standin.host_calls = 0
    standin.used, standin.allocated, standin.peak = used, allocated, peak
    return call, death, host_call


def _zeros_shape(func: Any, args: Any, kwargs: Any, fake: Any, device: Any) -> Any:
    """A data-dependent op's output where every value is zero: nonzero/argwhere find nothing, masked_select selects
    nothing, unique has one value."""
    import torch

    name = func._overloadpacket.__name__
    with fake:
        if name in ("nonzero", "argwhere"):
            return torch.empty((0, args[0].dim()), dtype=torch.long, device=device)
        if name == "masked_select":
            return torch.empty((0,), dtype=args[0].dtype, device=device)
        if name.startswith("_unique") or name.startswith("unique"):
            return torch.empty((1,), dtype=args[0].dtype, device=device)
    raise RuntimeError(
        f"{func}: its output's shape depends on the tensor's values, which the stand-in GPU does not hold"
    )


def _backend_module(standin: StandIn) -> Any:
    import torch

    class Backend:
        @staticmethod
        def is_available() -> bool:
            return True

        @staticmethod
        def is_initialized() -> bool:
            return True

        @staticmethod
        def current_device() -> int:
            return 0

        @staticmethod
        def device_count() -> int:
            return 1

        @staticmethod
        def _is_in_bad_fork() -> bool:
            return False

        @staticmethod
        def manual_seed_all(seed: int) -> None:
            pass

        @staticmethod
        def get_amp_supported_dtype() -> list[Any]:
            return [torch.float16, torch.bfloat16]

    return Backend()


def _autocast_kernels(standin: StandIn) -> None:
    """torch.autocast("cuda")'s casts for the stand-in's ops (Python kernels on the AutocastPrivateUse1 key, as
    autocast_mode.cpp registers C++ ones for CUDA): above autograd, so the backward runs in the same dtypes."""
    import torch
    from torch.utils._pytree import tree_map

    lib = torch.library.Library("aten", "IMPL")
    # every other op passes through, as autocast_mode.cpp has it for CUDA
    every = torch.library.Library("_", "IMPL")
    every.fallback(torch.library.fallthrough_kernel, "AutocastPrivateUse1")
    standin.autocast_libraries = (lib, every)
    key = torch._C.DispatchKeySet(getattr(torch._C.DispatchKey, "AutocastPrivateUse1"))  # noqa: B009 - not in the stubs

    def kernel(op: Any, lower: bool) -> Any:
        def cast(value: Any) -> Any:
            if (
                isinstance(value, torch.Tensor)
                and value.is_floating_point()
                and value.dtype != torch.float64
            ):
                return value.to(torch.get_autocast_dtype(STANDIN) if lower else torch.float32)
            return value

        def run(*args: Any, **kwargs: Any) -> Any:
            args, kwargs = tree_map(cast, (args, kwargs))
            with torch._C._ExcludeDispatchKeyGuard(key):
                return op(*args, **kwargs)

        return run

    for names, lower in ((LOWER_PRECISION, True), (FP32, False)):
        for name in names:
            packet, _, overload = name.partition(".")
            op = getattr(getattr(torch.ops.aten, packet, None), overload or "default", None)
            if op is not None:
                try:
                    lib.impl(name, kernel(op, lower), "AutocastPrivateUse1")
                except RuntimeError:  # an op this PyTorch has no such overload of
                    pass


class _Event:
    """torch.cuda.Event on the stand-in: recording is free, waiting on one is a synchronisation, elapsed_time 0."""

    def __init__(self, standin: StandIn, *args: Any, **kwargs: Any):
        self.standin = standin

    def record(self, stream: Any = None) -> None:
        pass

    def wait(self, stream: Any = None) -> None:
        pass

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        self.standin.syncs += 1

    def elapsed_time(self, end: Any) -> float:
        self.standin.syncs += 1
        return 0.0


class _Stream:
    def __init__(self, *args: Any, **kwargs: Any):
        pass

    def __enter__(self) -> _Stream:
        return self

    def __exit__(self, *exc: Any) -> None:
        pass

    def synchronize(self) -> None:
        pass

    def wait_stream(self, other: Any) -> None:
        pass

    def wait_event(self, event: Any) -> None:
        pass

    def record_event(self, event: Any = None) -> Any:
        return event

    def query(self) -> bool:
        return True


def _patch_cuda(standin: StandIn, on_question: Any) -> None:
    """torch.cuda (and torch.accelerator, torch.amp) describing the stand-in GPU."""
    import types

    import torch

    gpu = standin.gpu
    major, minor = gpu["capability"]
    cuda = torch.cuda

    def asked(what: str | None, value: Any) -> Any:
        def answer(*args: Any, **kwargs: Any) -> Any:
            if what:
                standin.asked.add(what)
            if on_question is not None and what is None:
                on_question()
            return value() if callable(value) else value

        return answer

    properties = types.SimpleNamespace(
        name=gpu["name"],
        major=major,
        minor=minor,
        total_memory=gpu["memory_bytes"],
        multi_processor_count=gpu["sm_count"],
        is_integrated=False,
        is_multi_gpu_board=False,
        L2_cache_size=40 * 2**20,
        warp_size=32,
        max_threads_per_multi_processor=2048,
        gcnArchName="",
        uuid="standin",
    )

    def synchronize(*args: Any, **kwargs: Any) -> None:
        standin.syncs += 1

    def reset_peak(*args: Any, **kwargs: Any) -> None:
        standin.peak = standin.allocated

    def stats(*args: Any, **kwargs: Any) -> dict[str, int]:
        return {
            "allocated_bytes.all.current": standin.allocated,
            "allocated_bytes.all.peak": standin.peak,
            "reserved_bytes.all.current": standin.allocated,
            "reserved_bytes.all.peak": standin.peak,
        }

    patches: dict[str, Any] = {
        "is_available": asked(None, True),
        "device_count": asked(None, 1),
        "is_initialized": lambda: True,
        "_lazy_init": lambda: None,
        "init": lambda: None,
        "current_device": lambda: 0,
        "set_device": lambda *a: None,
        "get_device_name": asked("name", gpu["name"]),
        "get_device_capability": asked("capability", (major, minor)),
        "get_device_properties": asked("properties", properties),
        "is_bf16_supported": asked("bf16", major >= 8),
        "synchronize": synchronize,
        "Event": lambda *a, **k: _Event(standin, *a, **k),
        "Stream": _Stream,
        "current_stream": lambda *a, **k: _Stream(),
        "default_stream": lambda *a, **k: _Stream(),
        "stream": lambda *a, **k: _Stream(),
        "memory_allocated": lambda *a, **k: standin.allocated,
        "max_memory_allocated": lambda *a, **k: standin.peak,
        "memory_reserved": lambda *a, **k: standin.allocated,
        "max_memory_reserved": lambda *a, **k: standin.peak,
        "reset_peak_memory_stats": reset_peak,
        "reset_max_memory_allocated": reset_peak,
        "empty_cache": lambda: None,
        "memory_stats": stats,
        "mem_get_info": asked(
            "memory", lambda: (gpu["memory_bytes"] - standin.allocated, gpu["memory_bytes"])
        ),
        "manual_seed": lambda *a: None,
        "manual_seed_all": lambda *a: None,
        "seed": lambda: None,
        "seed_all": lambda: None,
        "get_rng_state": lambda *a: torch.zeros(16, dtype=torch.uint8),
        "set_rng_state": lambda *a: None,
        "get_arch_list": lambda: [f"sm_{major}{minor}"],
    }
    for name, value in patches.items():
        setattr(cuda, name, value)
    accelerator = getattr(torch, "accelerator", None)
    if accelerator is not None:
        for name, value in {
            "is_available": asked(None, True),
            "device_count": asked(None, 1),
            "current_accelerator": asked(None, torch.device("cuda")),
            "current_device_index": lambda: 0,
            "set_device_index": lambda *a: None,
            "synchronize": synchronize,
        }.items():
            setattr(accelerator, name, value)

    autocast = torch.amp.autocast_mode.autocast
    init = autocast.__init__

    def autocast_init(self: Any, device_type: str, *args: Any, **kwargs: Any) -> None:
        if device_type == "cuda":
            device_type = STANDIN
            dtype = kwargs.get("dtype", args[0] if args else None) or torch.float16
            if kwargs.get("enabled", args[1] if len(args) > 1 else True):
                standin.autocast.add(str(dtype).replace("torch.", ""))
        init(self, device_type, *args, **kwargs)

    autocast.__init__ = autocast_init  # type: ignore[method-assign]

    def compile(model: Any = None, *args: Any, **kwargs: Any) -> Any:
        standin.compiled += 1
        return model if model is not None else (lambda fn: fn)

    torch.compile = compile  # type: ignore[assignment]


def _patch_modules(fake_tensor: Any, standin: StandIn) -> None:
    """Module.to(memory_format=...), and .to(torch.bfloat16) / .half() of a model already on the GPU, swap a
    FakeTensor parameter with torch.utils.swap_tensors, which fails on the weak references FakeTensorMode (and the
    stand-in's memory count) keep; assigning `.data`, as for any tensor, works: the parameter keeps its identity (an
    optimizer made before holds it), and the storage it held is no longer counted."""
    import torch
    import torch.nn.modules.module as module

    traceable = module.is_traceable_wrapper_subclass
    module.is_traceable_wrapper_subclass = lambda t: (
        False if isinstance(t, fake_tensor) else traceable(t)
    )  # type: ignore[assignment]
    swap = torch.utils.swap_tensors

    def swap_or_set(t1: Any, t2: Any) -> None:
        if not isinstance(t1, fake_tensor):
            return swap(t1, t2)
        try:
            return swap(t1, t2)
        except RuntimeError:
            old = t1.untyped_storage()._cdata
            with torch.no_grad():
                t1.data = t2
            standin.forget(old)

    torch.utils.swap_tensors = swap_or_set


def _patch_save(fake_tensor: Any, standin: StandIn) -> None:
    """torch.save of what is on the stand-in (a checkpoint's state_dict): each of its tensors read back as from a GPU
    (counted) and written as zeros of its shape and dtype, since a FakeTensor does not pickle (a trial: a checkpoint
    every eval failed the stand-in's run, and the plan's GPU rows fell back to the CPU run's trace)."""
    import torch
    from torch.utils._python_dispatch import _disable_current_modes
    from torch.utils._pytree import tree_map

    save = torch.save

    def host(value: Any) -> Any:
        if not isinstance(value, fake_tensor):
            return value
        standin.read_back(value.numel() * value.element_size())
        with _disable_current_modes():
            return torch.zeros(value.shape, dtype=value.dtype, device="cpu")

    def save_on_host(obj: Any, f: Any, *args: Any, **kwargs: Any) -> Any:
        return save(tree_map(host, obj), f, *args, **kwargs)

    torch.save = save_on_host


def _patch_distributions(standin: Any) -> None:
    """torch.distributions checks its arguments (`constraint.check(value).all()`, read back: a sync on a GPU); on the
    stand-in the value reads as zeros, so the check fails where the GPU run's passes (an RL agent's Categorical
    raised ValueError). The check is counted as the read-back it is, and skipped."""
    import torch
    from torch.distributions import Distribution

    init, empty = Distribution.__init__, torch.Size()

    def checked(
        self: Any,
        batch_shape: Any = empty,
        event_shape: Any = empty,
        validate_args: bool | None = None,
    ) -> None:
        if type(self)._validate_args if validate_args is None else validate_args:
            standin.read_back(1)
        init(self, batch_shape, event_shape, validate_args=False)

    Distribution.__init__ = checked  # type: ignore[method-assign]


def _patch_pinning() -> None:
    """A DataLoader's pin_memory=True pins its batches for the accelerator in a thread of its own (where the stand-in's
    modes do not reach): PrivateUse1 has no pinned-memory allocator, so its batches stay as they are."""
    import torch.utils.data._utils.pin_memory as pinning

    pinning.pin_memory = lambda data, device=None: data  # type: ignore[assignment]
