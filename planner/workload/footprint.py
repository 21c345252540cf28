"""Pure arithmetic on a workload spec: parameters, FLOPs, activations and training memory. Design
notes: docs/reference/modules.md (planner/workload/footprint.py)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

# the spec's validation uses this module's arithmetic: kinds are told apart by `kind`
if TYPE_CHECKING:
    from planner.workload.spec import CNNModel, MLPModel, RNNModel, TransformerModel, WorkloadSpec

FP32 = 4
OP_CLASSES = (
    "gemm",
    "conv",
    "attention",
    "recurrent",
    "elementwise",
    "norm",
    "loss",
    "embedding",
    "pool",
)
COMPUTE_OPS = ("gemm", "conv", "attention", "recurrent")
ACT_BYTES = {"fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2}  # tf32: fp32 storage, TF32 math
# Optimizer state per parameter, in fp32 copies: Adam/AdamW keep two moments; our SGD uses
# momentum 0.9 (what people mean by SGD in practice), one buffer.
OPTIMIZER_STATES = {"adam": 2, "adamw": 2, "sgd": 1}


@dataclass(frozen=True)
class Layer:
    """One operation of the forward pass, per sample."""

    name: str
    params: int
    forward_flops: float  # per sample
    activation_elems: float  # elements saved for backward, per sample
    kernels: int = 1  # forward kernel launches
    op: str = (
        ""  # one of OP_CLASSES; "" = unknown (compute-bound if it has FLOPs, else elementwise)
    )
    backward_flops: float | None = None  # per sample; None = 2 x forward
    backward_kernels: int | None = None  # None = 2 x forward kernels (weights/attention) or 1 x
    moved_elems: float | None = None  # elements read + written per sample, forward and backward
    # elements read + written per step whatever the batch (weights)
    fixed_elems: float | None = None
    param_tensors: int | None = None  # parameter tensors the optimizer updates; None = 1 if params

    @property
    def op_class(self) -> str:
        if self.op:
            return self.op
        return (
            "gemm"
            if self.params and self.forward_flops > 2 * self.activation_elems
            else "elementwise"
        )

    @property
    def train_flops(self) -> float:
        """Forward + backward FLOPs per sample."""
        return self.forward_flops + self.backward_flops_per_sample

    @property
    def backward_flops_per_sample(self) -> float:
        if self.backward_flops is not None:
            return self.backward_flops
        # the usual approximation (gradients for inputs and weights)
        return 2.0 * self.forward_flops

    @property
    def backward_kernel_count(self) -> int:
        if self.backward_kernels is not None:
            return self.backward_kernels
        return (2 if self.op_class in COMPUTE_OPS or self.params else 1) * self.kernels

    @property
    def tensors(self) -> int:
        if self.param_tensors is not None:
            return self.param_tensors
        return 1 if self.params else 0


def layer_from_row(row: dict) -> Layer:
    """A Layer from one `runner.bench.introspect.describe` row (JSON); unknown keys are ignored,
    missing new keys (and nulls) keep their defaults (rows from older benches). The row's numbers are
    JSON's: counts whole, FLOPs and elements floats, as the describing bench writes them."""
    known = {f.name for f in fields(Layer)}
    return Layer(**{key: value for key, value in row.items() if key in known and value is not None})


@dataclass(frozen=True)
class Footprint:
    layers: tuple[Layer, ...]
    params: int
    train_flops_per_sample: float
    weights_bytes: int
    gradients_bytes: int
    optimizer_bytes: int
    activations_bytes: int
    data_bytes: int
    batch_size: int
    precision: str

    @property
    def total_bytes(self) -> int:
        return (
            self.weights_bytes
            + self.gradients_bytes
            + self.optimizer_bytes
            + self.activations_bytes
            + self.data_bytes
        )

    def as_dict(self) -> dict[str, float | int | str]:
        parts = {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name not in ("layers", "batch_size", "precision")
        }
        return {
            **parts,
            "total_bytes": self.total_bytes,
            "batch_size": self.batch_size,
            "precision": self.precision,
        }


def merge_identical(layers: list[Layer]) -> list[Layer]:
    """Rows that describe the same work (e.g. the 24 identical blocks of BERT-large) merged into one
    whose counts are summed: per-kernel FLOPs and bytes are unchanged, so the device model times
    the merged list exactly as the original, faster."""
    groups: dict[tuple, list[Layer]] = {}
    for layer in layers:
        groups.setdefault(
            (
                layer.op_class,
                layer.kernels,
                layer.backward_kernels,
                layer.forward_flops,
                layer.backward_flops,
                layer.activation_elems,
                layer.moved_elems,
                layer.fixed_elems,
                layer.params,
                layer.param_tensors,
            ),
            [],
        ).append(layer)

    def times(value, n):  # noqa: ANN001, ANN202
        return None if value is None else value * n

    out = []
    for group in groups.values():
        layer, n = group[0], len(group)
        out.append(
            layer
            if n == 1
            else Layer(
                f"{layer.name} (x{n})",
                layer.params * n,
                layer.forward_flops * n,
                layer.activation_elems * n,
                layer.kernels * n,
                layer.op_class,
                times(layer.backward_flops, n),
                times(layer.backward_kernels, n),
                times(layer.moved_elems, n),
                times(layer.fixed_elems, n),
                layer.tensors * n,
            )
        )
    return out


def _linear(name: str, n_in: int, n_out: int, tokens: int = 1) -> Layer:
    return Layer(
        name,
        n_in * n_out + n_out,
        2.0 * n_in * n_out * tokens,
        float(n_out * tokens),
        op="gemm",
        param_tensors=2,
    )


def _act(name: str, elems: float) -> Layer:
    return Layer(name, 0, elems, elems, op="elementwise")


def _mlp(m: MLPModel) -> list[Layer]:
    layers, width = [], m.input_size
    for i, h in enumerate(m.hidden):
        layers += [_linear(f"linear{i}", width, h), _act(f"{m.activation}{i}", h)]
        width = h
    layers.append(_linear("head", width, m.outputs))
    return layers


def _cnn(m: CNNModel) -> list[Layer]:
    c, h, w = m.input_shape
    layers = []
    for i, ch in enumerate(m.channels):
        out = ch * h * w
        layers.append(
            Layer(
                f"conv{i}",
                c * ch * 9 + ch,
                2.0 * c * 9 * out,
                float(out),
                op="conv",
                param_tensors=2,
            )
        )
        layers.append(_act(f"{m.activation}{i}", out))
        if h >= 2 and w >= 2:
            h, w = h // 2, w // 2
            layers.append(Layer(f"pool{i}", 0, float(out), float(ch * h * w), op="pool"))
        c = ch
    layers.append(Layer("avgpool", 0, float(c * h * w), float(c), op="pool"))
    layers.append(_linear("head", c, m.outputs))
    return layers


def _rnn(m: RNNModel) -> list[Layer]:
    gates = {"lstm": 4, "gru": 3, "rnn": 1}[m.cell]
    layers, width = [], m.input_size
    for i in range(m.num_layers):
        params = gates * m.hidden_size * (width + m.hidden_size) + 2 * gates * m.hidden_size
        flops = 2.0 * gates * m.hidden_size * (width + m.hidden_size) * m.seq_len
        # gates and cell/hidden states are kept for every time step
        acts = float((gates + 2) * m.hidden_size * m.seq_len)
        layers.append(
            Layer(
                f"{m.cell}{i}",
                params,
                flops,
                acts,
                kernels=2 * m.seq_len,
                op="recurrent",
                param_tensors=4,
            )
        )
        width = m.hidden_size
    layers.append(_linear("head", m.hidden_size, m.outputs))
    return layers


def _transformer(m: TransformerModel) -> list[Layer]:
    d, s, v, ff = m.d_model, m.seq_len, m.vocab_size, m.ff
    layers = [
        Layer(
            "embedding",
            v * d + s * d,
            0.0,
            float(s * d),
            kernels=3,
            op="embedding",
            param_tensors=2,
        )
    ]
    for i in range(m.layers):
        attention_flops = 2.0 * 2 * s * d * s  # QK^T and AV, per sequence (full matrix, masked)
        layers += [
            Layer(f"norm{i}a", 2 * d, 5.0 * s * d, float(s * d), op="norm", param_tensors=2),
            _linear(f"qkv{i}", d, 3 * d, s),
            Layer(
                f"attention{i}",
                0,
                attention_flops,
                float(2 * m.heads * s * s + s * d),
                kernels=4,
                op="attention",
            ),
            _linear(f"out{i}", d, d, s),
            Layer(f"norm{i}b", 2 * d, 5.0 * s * d, float(s * d), op="norm", param_tensors=2),
            _linear(f"ff{i}a", d, ff, s),
            _act(f"gelu{i}", float(s * ff)),
            _linear(f"ff{i}b", ff, d, s),
        ]
    layers.append(Layer("norm_final", 2 * d, 5.0 * s * d, float(s * d), op="norm", param_tensors=2))
    layers.append(_linear("head", d, v, s))
    # softmax + cross-entropy keep a probability per vocabulary entry and position
    layers.append(Layer("loss", 0, 3.0 * s * v, float(s * v), op="loss"))
    return layers


def layers_of(spec: WorkloadSpec) -> list[Layer] | None:
    """Per-layer breakdown, or None for `custom` (see runner.bench.introspect)."""
    m = spec.model
    builders: dict[str, Callable[[Any], list[Layer]]] = {
        "mlp": _mlp,
        "cnn": _cnn,
        "rnn": _rnn,
        "transformer": _transformer,
    }
    if m.kind in builders:
        return builders[m.kind](m)
    return None


def sample_bytes(spec: WorkloadSpec) -> int:
    """Bytes of one training sample (input + target) as the bench stores it."""
    m = spec.model
    if m.kind == "transformer":
        return 2 * m.seq_len * 8  # int64 tokens and shifted targets
    if m.kind == "mlp":
        inputs = m.input_size
    elif m.kind == "rnn":
        inputs = m.seq_len * m.input_size
    else:
        inputs = math.prod(m.input_shape)
    target = 8 if spec.task == "classification" else m.outputs * FP32
    return inputs * FP32 + target


def footprint(
    spec: WorkloadSpec,
    layers: list[Layer] | None = None,
    batch_size: int | None = None,
) -> Footprint:
    """Training footprint at the spec's batch size (or `batch_size`). For `custom`, pass the
    layers measured by introspection."""
    layers = layers if layers is not None else layers_of(spec)
    if layers is None:
        raise ValueError("custom models need their measured layers (runner.bench.introspect)")
    batch = batch_size or spec.batch_size
    params = sum(layer.params for layer in layers)
    train_flops = sum(layer.train_flops for layer in layers)
    act_elems = sum(layer.activation_elems for layer in layers)
    data_samples = max(spec.data.samples, batch) if spec.data.location == "device" else batch
    return Footprint(
        layers=tuple(layers),
        params=params,
        train_flops_per_sample=train_flops,
        weights_bytes=params * FP32,
        gradients_bytes=params * FP32,
        optimizer_bytes=params * FP32 * OPTIMIZER_STATES[spec.train.optimizer],
        activations_bytes=int(act_elems * batch * ACT_BYTES[spec.train.precision]),
        data_bytes=data_samples * sample_bytes(spec),
        batch_size=batch,
        precision=spec.train.precision,
    )


# runner/bench/data.py POOL_MAX_BYTES (a test holds the two together)
BENCH_POOL_MAX_BYTES = 512 * 2**20
BENCH_RUNTIME_BYTES = 400 * 2**20  # the bench process before the workload: interpreter + torch


def bench_bytes(fp: Footprint, spec: WorkloadSpec) -> int:
    """What the bench itself holds for this footprint: the model, its gradients and optimizer state,
    the activations of one step, and a bounded pool of batches instead of the whole dataset — plus
    the process around it. The real run's footprint (`fp.total_bytes`) still counts the dataset."""
    batch_bytes = fp.batch_size * sample_bytes(spec)
    pool = min(fp.data_bytes, max(batch_bytes, BENCH_POOL_MAX_BYTES))
    return fp.total_bytes - fp.data_bytes + pool + BENCH_RUNTIME_BYTES
