"""Synthetic data for the bench: a bounded pool of batches, so the bench's cost follows the batch,
not the dataset. Design notes: docs/reference/modules.md (runner/bench/data.py)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

# the bench's data never exceeds this (a batch larger than it is taken whole)
POOL_MAX_BYTES = 512 * 2**20
CACHE_MULTIPLE = 2  # the pool spans at least twice the last-level cache
DEFAULT_LLC_BYTES = 32 * 2**20  # when the cache size cannot be read


def input_shape(model_spec: dict[str, Any]) -> tuple[int, ...]:
    kind = model_spec["kind"]
    if kind == "mlp":
        return (model_spec["input_size"],)
    if kind == "rnn":
        return (model_spec["seq_len"], model_spec["input_size"])
    if kind == "transformer":
        return (model_spec["seq_len"],)
    return tuple(model_spec["input_shape"])


def make_data(
    job: dict[str, Any], n: int, device: torch.device, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """Synthetic inputs and targets of the right shape and dtype, created on `device`."""
    m, task = job["model"], job["data"]["task"]
    shape = (n, *input_shape(m))
    if m["kind"] == "transformer":
        tokens = torch.randint(0, m["vocab_size"], (n, m["seq_len"] + 1), generator=generator)
        return tokens[:, :-1].contiguous().to(device), tokens[:, 1:].contiguous().to(device)
    x = torch.randn(shape, generator=generator)
    if task == "classification":
        y = torch.randint(0, m["outputs"], (n,), generator=generator)
    else:
        y = torch.randn((n, m["outputs"]), generator=generator)
    return x.to(device), y.to(device)


def sample_bytes(job: dict[str, Any]) -> int:
    """Bytes of one sample (input + target) as make_data stores it."""
    m = job["model"]
    if m["kind"] == "transformer":
        return 2 * m["seq_len"] * 8
    target = 8 if job["data"]["task"] == "classification" else 4 * m["outputs"]
    return 4 * math.prod(input_shape(m)) + target


def last_level_cache_bytes(device: torch.device) -> int:
    """The device's last-level cache: a GPU's L2, or this host's L3 (all of its instances)."""
    if device.type == "cuda":
        size = getattr(torch.cuda.get_device_properties(device), "L2_cache_size", 0)
        return int(size) or DEFAULT_LLC_BYTES
    try:
        caches: dict[str, int] = {}
        for index in Path("/sys/devices/system/cpu").glob("cpu[0-9]*/cache/index*"):
            if (index / "level").read_text().strip() != "3":
                continue
            text = (index / "size").read_text().strip().upper()
            value = int(text.rstrip("KMG")) * {"K": 2**10, "M": 2**20, "G": 2**30}.get(text[-1], 1)
            caches[(index / "shared_cpu_list").read_text().strip()] = value
        return sum(caches.values()) or DEFAULT_LLC_BYTES
    except (OSError, ValueError):
        return DEFAULT_LLC_BYTES


def pool_samples(samples: int, batch: int, per_sample: int, cache_bytes: int) -> int:
    """How many samples the bench's pool holds: whole batches, at least two and more than
    CACHE_MULTIPLE x the cache, at most POOL_MAX_BYTES (but one batch always), never more than the
    dataset."""
    if samples <= batch:
        return batch
    batch_bytes = batch * max(1, per_sample)
    wanted = max(2, math.ceil(CACHE_MULTIPLE * cache_bytes / batch_bytes))
    allowed = max(1, POOL_MAX_BYTES // batch_bytes)
    return min(samples, min(wanted, allowed) * batch)


@dataclass
class DataPool:
    """The bench's data and how to take the next batch from it."""

    next_batch: Callable[[], tuple[torch.Tensor, torch.Tensor]]
    samples: int  # samples in the pool
    bytes: int  # bytes of the pool
    seconds: float  # time it took to build the pool (on the device, or pinned on the host)


def build_pool(
    job: dict[str, Any],
    device: torch.device,
    batch: int,
    generator: torch.Generator,
    whole_dataset: bool = False,
) -> DataPool:
    """The pool for `job` at `batch` (`whole_dataset`: every sample, as a real run holds them)."""
    samples = max(int(job["data"]["samples"]), batch)
    on_device = job["data"].get("location", "device") == "device"
    n = (
        samples
        if whole_dataset
        else pool_samples(samples, batch, sample_bytes(job), last_level_cache_bytes(device))
    )
    started = time.perf_counter()
    if on_device:
        x_all, y_all = make_data(job, n, device, generator)
    else:
        x_all, y_all = make_data(job, n, torch.device("cpu"), generator)
        if device.type == "cuda":
            x_all, y_all = x_all.pin_memory(), y_all.pin_memory()
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    seconds = time.perf_counter() - started
    steps = math.ceil(n / batch)
    state: dict[str, Any] = {"i": 0, "perm": None}

    def next_batch() -> tuple[torch.Tensor, torch.Tensor]:
        i = state["i"] % steps
        state["i"] += 1
        lo, hi = i * batch, min((i + 1) * batch, n)
        if on_device:
            return x_all[lo:hi], y_all[lo:hi]
        if i == 0 or state["perm"] is None:
            state["perm"] = torch.randperm(n, generator=generator)
        idx = state["perm"][lo:hi]
        xb, yb = x_all.index_select(0, idx), y_all.index_select(0, idx)
        if device.type == "cuda":
            xb, yb = xb.pin_memory(), yb.pin_memory()
        return xb.to(device, non_blocking=True), yb.to(device, non_blocking=True)

    size = x_all.element_size() * x_all.numel() + y_all.element_size() * y_all.numel()
    return DataPool(next_batch, n, size, seconds)
