"""A small GPT on random tokens, written for a GPU the way nanoGPT is: on CUDA it trains in bf16 autocast
with TF32 matmuls, fused AdamW and flash attention; on a CPU it falls back to plain fp32.

    python gpt.py --steps 50                                                   # a few million parameters
    python gpt.py --layers 12 --width 768 --heads 12 --block 1024 --batch 16 --vocab 50304 --steps 20   # GPT-2 124M
    python gpt.py --precision fp32                                             # no autocast, no TF32
"""

import argparse
import math
import time

import torch
from torch import nn
from torch.nn import functional as F


class Block(nn.Module):
    def __init__(self, width: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv, self.proj = nn.Linear(width, 3 * width), nn.Linear(width, width)
        self.mlp = nn.Sequential(
            nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).contiguous().view(b, t, c))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab: int, block: int, layers: int, width: int, heads: int) -> None:
        super().__init__()
        self.tokens, self.positions = nn.Embedding(vocab, width), nn.Embedding(block, width)
        self.blocks = nn.ModuleList(Block(width, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(width)
        self.head = nn.Linear(width, vocab, bias=False)
        self.head.weight = self.tokens.weight  # tied, as GPT-2
        for module in self.modules():  # GPT-2's initialisation
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, std=0.02)
            if isinstance(module, nn.Linear) and module.bias is not None:
                nn.init.zeros_(module.bias)

    def forward(self, idx: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        x = self.tokens(idx) + self.positions(torch.arange(idx.shape[1], device=idx.device))
        for block in self.blocks:
            x = block(x)
        logits = self.head(self.ln(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--block", type=int, default=256, help="tokens per sequence")
    parser.add_argument("--batch", type=int, default=16, help="sequences per step")
    parser.add_argument("--vocab", type=int, default=8192)
    parser.add_argument(
        "--precision",
        choices=("auto", "fp32", "tf32", "bf16"),
        default="auto",
        help="auto: bf16 autocast and TF32 where the GPU has them, else fp32",
    )
    parser.add_argument("--compile", action="store_true")
    parser.add_argument("--log-every", type=int, default=10)
    args = parser.parse_args()

    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    precision = args.precision
    if precision == "auto":
        precision = "bf16" if device == "cuda" and torch.cuda.is_bf16_supported() else "fp32"
    if precision in ("tf32", "bf16"):
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    model = GPT(args.vocab, args.block, args.layers, args.width, args.heads).to(device)
    if args.compile:
        model = torch.compile(model)
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=3e-4, weight_decay=0.1, fused=device == "cuda"
    )
    autocast = torch.autocast(device_type=device, dtype=torch.bfloat16, enabled=precision == "bf16")
    print(
        f"{sum(p.numel() for p in model.parameters()) / 1e6:.1f} M parameters on {device}, {precision}"
    )
    start = time.perf_counter()
    for step in range(args.steps):
        x = torch.randint(0, args.vocab, (args.batch, args.block), device=device)
        y = torch.randint(0, args.vocab, (args.batch, args.block), device=device)
        with autocast:
            loss = model(x, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if step % args.log_every == 0 or step == args.steps - 1:
            value = loss.item()  # a sync, as every training loop's logging is
            print(
                f"step {step}: loss {value:.3f} (uniform {math.log(args.vocab):.3f}), {time.perf_counter() - start:.1f} s"
            )


if __name__ == "__main__":
    main()
