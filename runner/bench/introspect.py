"""Describe any nn.Module the way planner/workload/footprint.py describes the built-in kinds: per
module and op class, the FLOPs, elements moved and kernels of one training step (forward, loss
and backward). Design notes: docs/reference/modules.md (runner/bench/introspect.py)."""

from __future__ import annotations

from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils.flop_counter import flop_registry
from torch.utils.module_tracker import ModuleTracker

from runner.bench.workloads import build_model, input_shape, loss_function

# Operators that launch no kernel: views, metadata and allocations.
NO_KERNEL = {
    "view",
    "_unsafe_view",
    "_reshape_alias",
    "reshape",
    "t",
    "transpose",
    "permute",
    "expand",
    "unsqueeze",
    "squeeze",
    "select",
    "slice",
    "as_strided",
    "alias",
    "detach",
    "split",
    "split_with_sizes",
    "unbind",
    "chunk",
    "narrow",
    "lift_fresh",
    "empty",
    "empty_like",
    "empty_strided",
    "new_empty",
    "new_empty_strided",
    "_to_copy_meta",
    "sym_size",
    "sym_stride",
    "sym_numel",
    "is_same_size",
    "_local_scalar_dense",
    "clone_meta",
    "unflatten",
    "flatten",
    "view_as",
    "expand_as",
    "numpy_T",
    "_has_compatible_shallow_copy_type",
    "set_",
    "resize_",
}
CONV = {
    "convolution",
    "_convolution",
    "convolution_backward",
    "cudnn_convolution",
    "mkldnn_convolution",
    "_slow_conv2d_forward",
    "_slow_conv2d_backward",
    "convolution_overrideable",
    "thnn_conv2d",
}
GEMM = {"mm", "addmm", "linear", "matmul", "_addmm_activation", "addmv", "mv", "dot"}
ATTENTION = {"bmm", "baddbmm"}  # batched products of activations (attention scores and context)
NORM = {
    "native_batch_norm",
    "native_batch_norm_backward",
    "_native_batch_norm_legit",
    "_native_batch_norm_legit_functional",
    "_native_batch_norm_legit_no_training",
    "batch_norm_backward",
    "cudnn_batch_norm",
    "cudnn_batch_norm_backward",
    "native_layer_norm",
    "native_layer_norm_backward",
    "native_group_norm",
    "native_group_norm_backward",
    "_fused_rms_norm",
    "_fused_rms_norm_backward",
}
EMBEDDING = {
    "embedding",
    "embedding_dense_backward",
    "embedding_backward",
    "_embedding_bag",
    "_embedding_bag_backward",
    "index_select",
    "gather",
}
POOL = {
    "max_pool2d_with_indices",
    "max_pool2d_with_indices_backward",
    "avg_pool2d",
    "avg_pool2d_backward",
    "_adaptive_avg_pool2d",
    "_adaptive_avg_pool2d_backward",
    "adaptive_max_pool2d",
    "adaptive_max_pool2d_backward",
    "max_pool1d",
    "avg_pool1d",
    "max_pool3d_with_indices",
    "avg_pool3d",
}
LOSS = {
    "nll_loss_forward",
    "nll_loss_backward",
    "nll_loss2d_forward",
    "nll_loss2d_backward",
    "_log_softmax",
    "_log_softmax_backward_data",
    "mse_loss",
    "mse_loss_backward",
    "binary_cross_entropy",
    "binary_cross_entropy_backward",
    "binary_cross_entropy_with_logits",
    "smooth_l1_loss",
    "l1_loss",
}
RECURRENT_MODULES = (torch.nn.RNNBase, torch.nn.RNNCellBase)


OP_SETS = (
    ("conv", CONV),
    ("gemm", GEMM),
    ("attention", ATTENTION),
    ("norm", NORM),
    ("embedding", EMBEDDING),
    ("pool", POOL),
    ("loss", LOSS),
)


def op_class(aten_name: str, in_recurrent: bool) -> str:
    if in_recurrent:
        return "recurrent"
    # fused attention kernels, whatever their name
    if "scaled_dot_product" in aten_name or "attention" in aten_name:
        return "attention"
    return next((cls for cls, names in OP_SETS if aten_name in names), "elementwise")


def _elems(value: Any) -> int:
    if isinstance(value, torch.Tensor):
        return value.numel()
    if isinstance(value, (list, tuple)):
        return sum(_elems(v) for v in value)
    return 0


class _Recorder(TorchDispatchMode):
    """One record per kernel: (module path, phase, op class, flops, elements in + out, elements out)."""

    def __init__(self, tracker: ModuleTracker, recurrent: set[str], root: str):
        super().__init__()
        self.tracker, self.recurrent, self.root = tracker, recurrent, root
        self.section = "forward"
        self.records: list[tuple[str, str, str, float, int, int]] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001 - torch's protocol
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        name = func._overloadpacket.__name__
        if name in NO_KERNEL or name.startswith(("empty", "_to_copy")) and _elems(out) == 0:
            return out
        packet = func._overloadpacket
        flops = 0.0
        if packet in flop_registry:
            try:
                flops = float(flop_registry[packet](*args, **kwargs, out_val=out))
            except Exception:  # a formula that does not accept this overload's arguments
                flops = 0.0
        parents = [p for p in self.tracker.parents if p != "Global"]
        module = max(parents, key=lambda p: p.count(".")) if parents else self.root
        module = module.partition(".")[2] if "." in module else ""  # drop the root's class name
        phase = "backward" if self.tracker.is_bw else "forward"
        recurrent = any(module == r or module.startswith(r + ".") for r in self.recurrent)
        cls = op_class(name, recurrent)
        if not module and self.section == "loss" or (not module and cls == "loss"):
            module = "(loss)"
        moved = _elems(list(args)) + _elems(list(kwargs.values())) + _elems(out)
        self.records.append((module, phase, cls, flops, moved, _elems(out)))
        return out


def _loss(out: torch.Tensor, task: str) -> torch.Tensor:
    """The bench's loss for `task` (workloads.loss_function) against zero targets."""
    target = (
        torch.zeros_like(out)
        if task == "regression"
        else torch.zeros(out.shape[:-1], dtype=torch.long, device=out.device)
    )
    return loss_function(task)(out, target)


def _trace(
    model_spec: dict[str, Any], task: str, batch: int, device: str
) -> tuple[list[tuple], torch.nn.Module]:
    with torch.device(device):
        model = build_model(model_spec)
    model.train()
    shape = input_shape(model_spec)
    if model_spec["kind"] == "transformer":
        x = torch.zeros((batch, *shape), dtype=torch.long, device=device)
    else:
        x = (
            torch.randn((batch, *shape), device=device)
            if device != "meta"
            else torch.empty((batch, *shape), device=device)
        )
    recurrent = {name for name, m in model.named_modules() if isinstance(m, RECURRENT_MODULES)}
    tracker = ModuleTracker()
    recorder = _Recorder(tracker, recurrent, type(model).__name__)
    # Grad enabled on purpose: under no_grad, nn.TransformerEncoderLayer takes a fused inference
    # fast path that training never runs.
    with tracker, recorder:
        out = model(x)
        recorder.section = "loss"
        loss = _loss(out, task)
        recorder.section = "backward"
        loss.backward()
    return recorder.records, model


def _default_task(model_spec: dict[str, Any]) -> str:
    if model_spec["kind"] == "transformer":
        return "language_model"
    return "classification" if model_spec.get("outputs", 1) > 1 else "regression"


def _row(name: str, op: str) -> dict[str, Any]:
    return {
        "name": name or "(root)",
        "params": 0,
        "forward_flops": 0.0,
        "activation_elems": 0.0,
        "kernels": 0,
        "op": op,
        "backward_flops": 0.0,
        "backward_kernels": 0,
        "moved_elems": 0.0,
        "fixed_elems": 0.0,
        "param_tensors": 0,
    }


def describe(model_spec: dict[str, Any], task: str | None = None) -> list[dict[str, Any]]:
    """Rows per (module, op class) of one training step; see the module docstring for the keys.
    `model_spec` is the job's "model" dict (or a whole job, whose data.task is then used)."""
    if "model" in model_spec:  # a whole job
        task = task or model_spec.get("data", {}).get("task")
        model_spec = model_spec["model"]
    task = task or _default_task(model_spec)
    try:
        one, model = _trace(model_spec, task, 1, "meta")
        two, _ = _trace(model_spec, task, 2, "meta")
    except (NotImplementedError, RuntimeError):  # an operator without a meta kernel
        one, model = _trace(model_spec, task, 1, "cpu")
        two, _ = _trace(model_spec, task, 2, "cpu")
    same = len(one) == len(two) and all(a[:3] == b[:3] for a, b in zip(one, two))
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for i, rec in enumerate(one):
        module, phase, cls, flops, moved, out = rec
        if same:  # value(batch) = fixed + per_sample * batch
            _, _, _, flops2, moved2, out2 = two[i]
            per_flops, per_moved, per_out = flops2 - flops, moved2 - moved, out2 - out
            fixed_moved = max(0, moved - per_moved)
        else:
            per_flops, per_moved, per_out, fixed_moved = flops, moved, out, 0
        row = rows.setdefault((module, cls), _row(module, cls))
        if phase == "forward":
            row["forward_flops"] += float(max(per_flops, 0.0))
            row["activation_elems"] += float(max(per_out, 0))
            row["kernels"] += 1
        else:
            row["backward_flops"] += float(max(per_flops, 0.0))
            row["backward_kernels"] += 1
        row["moved_elems"] += float(max(per_moved, 0))
        row["fixed_elems"] += float(fixed_moved)
    # Parameters belong to the first row of the module that owns them.
    by_module: dict[str, dict[str, Any]] = {}
    for (module, _cls), row in rows.items():
        by_module.setdefault(module, row)
    for name, module in model.named_modules():
        own = list(module.parameters(recurse=False))
        if not own:
            continue
        if name not in by_module:  # parameters used outside their module's forward, or not at all
            by_module[name] = rows.setdefault((name, "(parameters)"), _row(name, "elementwise"))
        row = by_module[name]
        row["params"] += sum(p.numel() for p in own)
        row["param_tensors"] += len(own)
    for (module, cls), row in rows.items():
        if sum(1 for (m, _c) in rows if m == module) > 1:
            row["name"] = f"{row['name']}:{cls}"
    return list(rows.values())
