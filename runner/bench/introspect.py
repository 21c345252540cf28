"""Describe any nn.Module the way planner/footprint.py describes the built-in kinds.

SHIPPED TO THE INSTANCE: imports only torch and the standard library. Used for `custom` models
(which cannot be described without importing them) and by tests that hold footprint.py to the
networks the bench builds: parameters are counted, forward FLOPs come from torch's FLOP counter,
activation elements from forward hooks on leaf modules, kernels from the dispatched operators.
"""

from __future__ import annotations

from typing import Any

import torch
from torch.utils.flop_counter import FlopCounterMode

from runner.bench.workloads import build_model, input_shape


def describe(model_spec: dict[str, Any]) -> list[dict[str, Any]]:
    """Per-leaf-module rows: name, params, forward_flops (per sample), activation_elems, kernels."""
    model = build_model(model_spec)
    shape = input_shape(model_spec)
    if model_spec["kind"] == "transformer":
        x = torch.randint(0, model_spec["vocab_size"], (1, *shape))
    else:
        x = torch.randn(1, *shape)
    rows: dict[str, dict[str, Any]] = {}
    hooks = []
    for name, module in model.named_modules():
        if list(module.children()):
            continue
        rows[name] = {"name": name or type(module).__name__, "params": sum(p.numel() for p in module.parameters(recurse=False)),
                      "forward_flops": 0.0, "activation_elems": 0.0, "kernels": 1}

        def hook(mod: torch.nn.Module, _inp: Any, out: Any, key: str = name) -> None:
            outs = out if isinstance(out, (tuple, list)) else (out,)
            rows[key]["activation_elems"] += float(sum(o.numel() for o in outs if isinstance(o, torch.Tensor)))

        hooks.append(module.register_forward_hook(hook))
    counter = FlopCounterMode(display=False)
    # Grad enabled on purpose: under no_grad, nn.TransformerEncoderLayer takes a fused inference
    # fast path that training never runs (and that the FLOP counter cannot see into).
    with counter:
        model(x)
    for h in hooks:
        h.remove()
    total = float(counter.get_total_flops())
    per_module = counter.get_flop_counts()
    # FlopCounterMode keys modules by dotted path below the root ("Global" is the total).
    for name, row in rows.items():
        key = f"{type(model).__name__}.{name}" if name else "Global"
        counts = per_module.get(key) or {}
        row["forward_flops"] = float(sum(counts.values()))
    assigned = sum(r["forward_flops"] for r in rows.values())
    if total > assigned:  # flops outside leaf modules (functional calls in forward)
        rows["(functional)"] = {"name": "(functional)", "params": 0, "forward_flops": total - assigned,
                                "activation_elems": 0.0, "kernels": 1}
    rest = sum(p.numel() for p in model.parameters()) - sum(r["params"] for r in rows.values())
    if rest:
        rows["(parameters)"] = {"name": "(parameters)", "params": rest, "forward_flops": 0.0, "activation_elems": 0.0, "kernels": 0}
    return list(rows.values())
