"""Build the workload a job describes: the network, synthetic data, and one training step. Design
notes: docs/reference/modules.md (runner/bench/workloads.py)."""

from __future__ import annotations

import importlib
import inspect
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

from runner.bench.data import DataPool, build_pool, input_shape, make_data  # noqa: F401 - re-exported

DTYPES = {"fp32": None, "tf32": None, "bf16": torch.bfloat16, "fp16": torch.float16}


def set_matmul_precision(precision: str) -> None:
    """Set exactly what the device model (planner/core/predict) assumes, on every run, whatever the
    process inherited: fp32 = PyTorch's defaults (cuDNN convolutions may use TF32 on Ampere and
    later, matmuls stay fp32); tf32 = TF32 for matmuls and convolutions. bf16/fp16 are autocast
    (their matmuls and convolutions run in 16 bits; fp32 leftovers follow the fp32 defaults). On a
    CPU the flags change nothing: tf32 runs as fp32."""
    torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
    torch.backends.cudnn.allow_tf32 = True


class WorkloadError(Exception):
    """The workload cannot be built (bad custom factory, unsupported precision on this device)."""


def _activation(name: str) -> nn.Module:
    return {"relu": nn.ReLU, "tanh": nn.Tanh, "gelu": nn.GELU}[name]()


class RNNClassifier(nn.Module):
    def __init__(self, m: dict[str, Any]):
        super().__init__()
        cls = {"lstm": nn.LSTM, "gru": nn.GRU, "rnn": nn.RNN}[m.get("cell", "lstm")]
        self.rnn = cls(m["input_size"], m["hidden_size"], m.get("num_layers", 1), batch_first=True)
        self.head = nn.Linear(m["hidden_size"], m["outputs"])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out, _ = self.rnn(x)
        return self.head(out[:, -1])


class CausalTransformer(nn.Module):
    def __init__(self, m: dict[str, Any]):
        super().__init__()
        d, s = m["d_model"], m["seq_len"]
        self.tokens = nn.Embedding(m["vocab_size"], d)
        self.positions = nn.Embedding(s, d)
        block = nn.TransformerEncoderLayer(
            d,
            m["heads"],
            m.get("ff_size") or 4 * d,
            dropout=0.0,
            activation="gelu",
            batch_first=True,
            norm_first=True,
        )
        self.blocks = nn.TransformerEncoder(block, m["layers"], enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, m["vocab_size"])
        self.register_buffer(
            "mask", nn.Transformer.generate_square_subsequent_mask(s), persistent=False
        )
        self.register_buffer("pos", torch.arange(s), persistent=False)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.tokens(tokens) + self.positions(self.pos)
        x = self.blocks(x, mask=self.mask, is_causal=True)
        return self.head(self.norm(x))


def _cnn(m: dict[str, Any]) -> nn.Module:
    c, h, w = m["input_shape"]
    layers: list[nn.Module] = []
    for ch in m["channels"]:
        layers += [nn.Conv2d(c, ch, 3, padding=1), _activation(m.get("activation", "relu"))]
        if h >= 2 and w >= 2:
            layers.append(nn.MaxPool2d(2))
            h, w = h // 2, w // 2
        c = ch
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c, m["outputs"])]
    return nn.Sequential(*layers)


def _mlp(m: dict[str, Any]) -> nn.Module:
    layers: list[nn.Module] = []
    width = m["input_size"]
    for h in m.get("hidden", []):
        layers += [nn.Linear(width, h), _activation(m.get("activation", "relu"))]
        width = h
    layers.append(nn.Linear(width, m["outputs"]))
    return nn.Sequential(*layers)


def _custom(m: dict[str, Any]) -> nn.Module:
    factory = m["factory"]
    module_name, _, func_name = factory.partition(":")
    if m.get("path"):
        path = m["path"]
        # `path` may name the model file itself or the folder that holds the module
        folder = path if not path.endswith(".py") else path.rsplit("/", 1)[0] or "."
        if folder not in sys.path:
            sys.path.insert(0, folder)
        # Re-read the user's file: a long-lived process (the TUI, tests) may hold an older copy.
        sys.modules.pop(module_name, None)
        importlib.invalidate_caches()
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # the user's code: any failure is reported, never a traceback
        raise WorkloadError(
            f'model.factory: cannot import module "{module_name}" ({type(exc).__name__}: {exc}); '
            f"set model.path to the folder that holds {module_name.replace('.', '/')}.py"
        ) from None
    func = getattr(module, func_name, None)
    if not callable(func):
        raise WorkloadError(f'model.factory: module "{module_name}" has no function "{func_name}"')
    wanted = inspect.signature(func).parameters
    kwargs = {
        k: v
        for k, v in (("input_shape", tuple(m["input_shape"])), ("outputs", m["outputs"]))
        if k in wanted
    }
    try:
        model = func(**kwargs)
    except Exception as exc:
        raise WorkloadError(
            f'model.factory: calling "{factory}" failed ({type(exc).__name__}: {exc})'
        ) from None
    if not isinstance(model, nn.Module):
        raise WorkloadError(
            f'model.factory: "{factory}" returned {type(model).__name__}, not a torch.nn.Module'
        )
    return model


def build_model(model_spec: dict[str, Any]) -> nn.Module:
    kind = model_spec["kind"]
    builders: dict[str, Callable[[dict[str, Any]], nn.Module]] = {
        "mlp": _mlp,
        "cnn": _cnn,
        "rnn": RNNClassifier,
        "transformer": CausalTransformer,
        "custom": _custom,
    }
    return builders[kind](model_spec)


def make_optimizer(name: str, params: Any, lr: float) -> torch.optim.Optimizer:
    if name == "sgd":
        return torch.optim.SGD(params, lr=lr, momentum=0.9)
    cls = {"adam": torch.optim.Adam, "adamw": torch.optim.AdamW}[name]
    return cls(params, lr=lr)


@dataclass
class Workload:
    """A ready-to-time training loop: call `step()` once per optimizer step."""

    model: nn.Module
    step: Callable[[], torch.Tensor]
    batch_size: int
    steps_per_epoch: int
    data: DataPool  # what the bench holds of the dataset (runner/bench/data.py)


def loss_function(task: str) -> Callable[[torch.Tensor, torch.Tensor], torch.Tensor]:
    if task == "regression":
        return nn.functional.mse_loss
    if task == "language_model":
        return lambda out, y: nn.functional.cross_entropy(
            out.reshape(-1, out.shape[-1]), y.reshape(-1)
        )
    return nn.functional.cross_entropy


def build(
    job: dict[str, Any],
    device: torch.device,
    batch_size: int | None = None,
    seed: int = 0,
    whole_dataset: bool = False,
    wrap: Callable[[nn.Module], nn.Module] | None = None,
) -> Workload:
    """Model, optimizer, data and the step closure for `job` on `device`. The data is a bounded
    pool of batches (runner/bench/data.py); `whole_dataset` holds every sample, as a real run does
    (`planner validate`'s training run). `wrap` wraps the model once it is on the device
    (runner/bench/distributed.py: DistributedDataParallel)."""
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    m, data, train = job["model"], job["data"], job["train"]
    batch = int(batch_size or train["batch_size"])
    samples = max(int(data["samples"]), batch)
    precision = train.get("precision", "fp32")

    set_matmul_precision(precision)
    amp_dtype = DTYPES[precision]
    if amp_dtype is not None and device.type == "cpu" and not _cpu_autocast_ok(amp_dtype):
        raise WorkloadError(
            f"train.precision: {precision} autocast is not supported on CPU by torch {torch.__version__}; use bf16 or fp32"
        )
    model = build_model(m).to(device)
    if wrap is not None:
        model = wrap(model)
    model.train()
    optimizer = make_optimizer(
        train.get("optimizer", "adam"), model.parameters(), float(train.get("learning_rate", 1e-3))
    )
    pool = build_pool(job, device, batch, gen, whole_dataset)
    loss_fn = loss_function(data["task"])
    scaler = (
        torch.amp.GradScaler(device.type) if precision == "fp16" and device.type == "cuda" else None
    )

    def step() -> torch.Tensor:
        xb, yb = pool.next_batch()
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device.type, dtype=amp_dtype, enabled=amp_dtype is not None):
            loss = loss_fn(model(xb), yb)
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            optimizer.step()
        return loss

    return Workload(
        model=model,
        step=step,
        batch_size=batch,
        steps_per_epoch=math.ceil(samples / batch),
        data=pool,
    )


def _cpu_autocast_ok(dtype: torch.dtype) -> bool:
    try:
        with torch.autocast("cpu", dtype=dtype):
            torch.ones(2, 2) @ torch.ones(2, 2)
        return True
    except Exception:
        return False
