"""Published GPU training figures of public training scripts beside the planner's prediction from their stand-in trace.

Each case is a real public script (never committed: fetched into the ignored benchmarks/dev-scripts/<repo>/) and a
figure its authors published for one configuration on one GPU (tokens/s, or a whole run's time). The script is traced
on the stand-in GPU (runner/standin.py) describing that GPU, as `benchmarks/device.py` traces its scripts
(run_script_case's `python -m runner.script --standin GPU --max-steps 8` in the script's folder); the step is predicted
for the catalog GPU by the same code (device.predict_script: planner/core/predict/trace.py) and converted to the
published unit. Target: predicted / published within 1.35x for every case that ran; exit 1 when one misses.

    make bench-scripts-gpu        # or: python benchmarks/scripts_gpu.py [--only REGEX]

Fetching: github rasbt/LLMs-from-scratch (ch05/10_llm-training-speed/ and LICENSE.txt) into
dev-scripts/LLMs-from-scratch/, karpathy/nanoGPT into dev-scripts/nanoGPT/ (with data/shakespeare_char/*.bin made by
its prepare.py or random uint16 tokens < 65). A case whose script is absent prints "not fetched" (exit 0 if none ran).
No network here: what the scripts download is made up beside them when missing (STANDIN_FILES: random words for
Middlemarch, a word-hash `tiktoken` stand-in, as the GPT-2 BPE files cannot be fetched) - the step's shapes are the
scripts' own. Variants of the README's step-by-step table are made from 00_orig.py / 01_opt_single_gpu.py by the
listed replacements (written beside them as _v*.py).

Conversion: tokens/s = batch x context / (step x (1 + overhead)); a run's time = steps x step x (1 + overhead), where
overhead is the evaluation inside the timed span, in training steps per step (a forward pass counted as 1/3 step):
LLMs-from-scratch times eval_freq steps plus one train and one val batch forward; nanoGPT's 5000 iterations carry 21
evaluations of 2 x 200 forward batches (its compile time is not counted).
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import re
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.device import CAP_SECONDS, STANDIN_STEPS, predict_script  # noqa: E402
from runner.local import run_script  # noqa: E402

DEV = ROOT / "benchmarks" / "dev-scripts"
TARGET = 1.35
A100_40GB = {
    "name": "NVIDIA A100-SXM4-40GB",
    "capability": [8, 0],
    "memory_bytes": 40 * 2**30,
    "sm_count": 108,
}
FWD = 1 / 3  # a forward pass (no backward, no optimizer) in training steps
SPEED = "LLMs-from-scratch/ch05/10_llm-training-speed"
SPEED_SRC = (
    "github.com/rasbt/LLMs-from-scratch ch05/10_llm-training-speed/README.md (added 2025-02-12, commit "
    "908dd2f; unchanged at 28c65cd)"
)
NANO_SRC = "github.com/karpathy/nanoGPT README.md, quick start (since commit 23a8e70, 2023-02-05; still at 3adf61e)"


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    config: str
    script: str  # under benchmarks/dev-scripts (a variant: written from `base` with `patches`)
    args: tuple[str, ...]
    gpu: str  # catalog GPU the figure was measured on
    standin: dict[str, Any]
    published: float
    unit: str  # "tokens/s" or "s/run"
    per_step: float  # tokens per step (tokens/s) or steps per run (s/run)
    overhead: float  # timed work besides the training steps, in training steps per step
    source: str
    base: str = ""
    patches: tuple[tuple[str, str], ...] = ()


TF32 = (
    'print(f"CUDA version: {torch.version.cuda}")',
    'print(f"CUDA version: {torch.version.cuda}")\n        torch.set_float32_matmul_precision("high")',
)
FUSED = (
    'weight_decay=settings["weight_decay"]\n    )',
    'weight_decay=settings["weight_decay"], fused=True\n    )',
)
PINNED = ("num_workers=num_workers)", "num_workers=num_workers, pin_memory=True)")
BF16 = ("model.to(device)  # no", "model.to(device).to(torch.bfloat16)  # no")
EAGER = ("    model = torch.compile(model)\n", "")
VOCAB = ('"vocab_size": 50304,', '"vocab_size": 50257,')
BATCH8 = ('"batch_size": 32,', '"batch_size": 8,')
ORIG, OPT = f"{SPEED}/00_orig.py", f"{SPEED}/01_opt_single_gpu.py"


def speed(
    name: str,
    config: str,
    tokens: float,
    batch: int,
    eval_freq: int,
    base: str,
    *patches: tuple[str, str],
) -> Case:
    script = base if not patches else f"{SPEED}/_v{name.split()[0]}.py"
    return Case(
        f"LLMs-from-scratch {name}",
        config,
        script,
        (),
        "A100",
        A100_40GB,
        tokens,
        "tokens/s",
        batch * 1024,
        2 * FWD / eval_freq,
        SPEED_SRC,
        base if patches else "",
        patches,
    )


CASES: list[Case] = [
    speed("00 orig", "GPT-2 124M ctx 1024 b8, fp32", 12525, 8, 15, ORIG),
    speed("02 tf32", "+ TF32 matmuls", 27648, 8, 15, ORIG, TF32),
    speed("03 fused", "+ fused AdamW", 28399, 8, 15, ORIG, TF32, FUSED),
    speed(
        "05 bf16", "+ pinned loader, bf16 weights", 45486, 8, 15, ORIG, TF32, FUSED, PINNED, BF16
    ),
    speed(
        "07 flash",
        "+ nn LayerNorm/GELU, SDPA flash (eager)",
        91901,
        8,
        10,
        OPT,
        EAGER,
        VOCAB,
        BATCH8,
    ),
    speed("08 compile", "+ torch.compile", 112046, 8, 10, OPT, VOCAB, BATCH8),
    speed("09 vocab", "+ vocab 50304", 127345, 8, 10, OPT, BATCH8),
    speed("10 b32", "01_opt_single_gpu.py as is: b32", 142156, 32, 10, OPT),
    Case(
        "nanoGPT shakespeare-char",
        "6L 384d ctx 256 b64, bf16 autocast, compiled, 5000 iters",
        "nanoGPT/train.py",
        ("config/train_shakespeare_char.py", "--eval_iters=2"),
        "A100",
        A100_40GB,
        180.0,
        "s/run",
        5000,
        21 * 2 * 200 * FWD / 5000,
        NANO_SRC + ": 'On one A100 GPU this training run takes about 3 minutes'",
    ),
]


def _words(
    path: Path,
) -> None:  # ~470k tokens of random words: 51 steps of 8 x 1024 an epoch, as the book gave
    rnd = random.Random(145)
    vocab = [
        "".join(rnd.choices("etaoinshrdlucmfwypvbgk", k=rnd.randint(1, 9))) for _ in range(8000)
    ]
    out = []
    for _ in range(35000):
        out.append(
            " ".join(rnd.choices(vocab, k=rnd.randint(5, 20))).capitalize() + rnd.choice(".,;!?")
        )
    path.write_text("\n".join(" ".join(out[i : i + 5]) for i in range(0, len(out), 5)))


TIKTOKEN = '''"""Stand-in for tiktoken (written by benchmarks/scripts_gpu.py: the GPT-2 BPE files cannot be fetched here).
A word-hash tokenizer: ids below GPT-2's 50257, one a word or punctuation mark; the step's shapes do not depend on it."""
import re
import zlib


class Encoding:
    n_vocab = 50257

    def encode(self, text, allowed_special=(), **_):
        return [zlib.crc32(w.encode()) % 50256 for w in re.findall(r"\\w+|[^\\w\\s]", text)]

    def decode(self, ids):
        return " ".join(f"w{i}" for i in ids)


def get_encoding(name):
    return Encoding()
'''
STANDIN_FILES = {
    SPEED: {"middlemarch.txt": _words, "tiktoken.py": lambda p: p.write_text(TIKTOKEN)}
}


def prepare(case: Case) -> str | None:
    """The case's script ready to run (stand-in data beside it, the variant written); why not, if it cannot be."""
    base = DEV / (case.base or case.script)
    if not base.is_file():
        return "not fetched (see benchmarks/dev-scripts)"
    for folder, files in STANDIN_FILES.items():
        if base.is_relative_to(DEV / folder):
            for name, make in files.items():
                if not (DEV / folder / name).exists():
                    make(DEV / folder / name)
                    print(f"  made stand-in {folder}/{name}")
    if case.patches:
        text = base.read_text()
        for old, new in case.patches:
            if text.count(old) != 1:
                return f"variant: {old!r} found {text.count(old)} times in {case.base}"
            text = text.replace(old, new)
        (DEV / case.script).write_text(text)
    return None


def predicted(case: Case, step: float) -> float:
    timed = step * (1 + case.overhead)
    return case.per_step / timed if case.unit == "tokens/s" else case.per_step * timed


def main(argv: list[str] | None = None) -> int:
    from pricing.catalog import gpu_specs_by_name

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--only", help="run only the cases whose name matches this regex")
    args = parser.parse_args(argv)
    gpus = gpu_specs_by_name()
    shown = [c for c in CASES if not args.only or re.search(args.only, c.name)]
    rows: list[tuple[str, ...]] = []
    ratios: dict[str, float] = {}
    notes: list[str] = []
    failed: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench-scripts-gpu-") as tmp:
        for case in shown:
            why = prepare(case)
            pred = ""
            if why is None:
                # as device.run_script_case traces a script (its stand-in steps, its cap)
                done = run_script(
                    DEV / case.script,
                    list(case.args),
                    2.0,
                    Path(tmp),
                    min_steps=STANDIN_STEPS,
                    cap_seconds=CAP_SECONDS,
                    standin=case.standin,
                    max_steps=STANDIN_STEPS,
                )
                print(f"  traced {case.name}: {done.seconds:.1f} s", flush=True)
                if (done.result or {}).get("status") != "ok":
                    said = (
                        str((done.result or {}).get("message") or done.stderr_tail)
                        .strip()
                        .splitlines()
                    )
                    why = "stand-in trace failed: " + (
                        said[-1][-200:] if said else f"exit {done.returncode}"
                    )
                else:
                    got = predict_script({"result": done.result}, gpus[case.gpu])
                    if got.get("step") is None:
                        why = got.get("note", "no step predicted")
                    else:
                        value = predicted(case, got["step"])
                        ratios[case.name] = value / case.published
                        pred = f"{value:,.0f} ({got['step'] * 1e3:.1f} ms/step, {got['precision']})"
                        if got.get("note"):
                            notes.append(f"{case.name}: {got['note']}")
            ratio = ratios.get(case.name)
            if ratio is None and why and not why.startswith("not fetched"):
                failed.append(case.name)
            rows.append(
                (
                    case.name,
                    case.config,
                    case.gpu,
                    f"{case.published:,.0f} {case.unit}",
                    pred or why or "",
                    "" if ratio is None else f"{ratio:.2f}",
                    "" if ratio is None else ("yes" if 1 / TARGET <= ratio <= TARGET else "NO"),
                )
            )
    head = (
        "script",
        "configuration",
        "GPU",
        "published",
        "predicted",
        "ratio",
        f"within {TARGET}x",
    )
    print("\n| " + " | ".join(head) + " |\n|" + "---|" * len(head))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print("\nsources:")
    for source in dict.fromkeys(c.source for c in shown):
        print(
            f"  {source}:\n    "
            + "; ".join(f"{c.name} {c.published:g} {c.unit}" for c in shown if c.source == source)
        )
    for note in notes:
        print(f"  note {note}")
    if not ratios and not failed:
        print("\nno case ran (fetch the scripts into benchmarks/dev-scripts)")
        return 0
    factors = [max(r, 1 / r) for r in ratios.values()]
    missed = [n for n, r in ratios.items() if not 1 / TARGET <= r <= TARGET]
    if factors:
        print(
            f"\n{len(ratios)} cases predicted: median factor {statistics.median(factors):.2f}x, worst "
            f"{max(factors):.2f}x (target {TARGET}x); {len(missed)} missed{': ' + ', '.join(missed) if missed else ''}"
        )
    if failed:
        print(f"{len(failed)} cases not predicted (counted as missed): {', '.join(failed)}")
    return 1 if missed or failed else 0


if __name__ == "__main__":
    sys.exit(main())
