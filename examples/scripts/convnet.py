"""A small convnet over a synthetic CIFAR-sized dataset: a DataLoader, an evaluation pass per epoch
and optional gradient accumulation — a training script as people write it.

    python convnet.py --epochs 10 --accumulate 2
    python convnet.py --samples 20000 --width 64 --epochs 30      # a bigger one, for a GPU
"""

import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--accumulate", type=int, default=1, help="optimizer step every N batches")
    parser.add_argument(
        "--samples", type=int, default=2048, help="images in the (synthetic) training set"
    )
    parser.add_argument(
        "--width",
        type=int,
        default=16,
        help="channels of the first convolution (the second has twice)",
    )
    args = parser.parse_args()
    torch.manual_seed(0)
    images, labels = torch.randn(args.samples, 3, 32, 32), torch.randint(0, 10, (args.samples,))
    train = DataLoader(TensorDataset(images, labels), batch_size=64, shuffle=True)
    held_out = DataLoader(TensorDataset(images[:512], labels[:512]), batch_size=256)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, args.width, 3, padding=1),
        torch.nn.ReLU(),
        torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(args.width, 2 * args.width, 3, padding=1),
        torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1),
        torch.nn.Flatten(),
        torch.nn.Linear(2 * args.width, 10),
    ).to(device)
    optimizer = torch.optim.Adam(model.parameters())
    for epoch in range(args.epochs):
        model.train()
        for i, (x, y) in enumerate(train):
            x, y = x.to(device), y.to(device)
            torch.nn.functional.cross_entropy(model(x), y).div(args.accumulate).backward()
            if (i + 1) % args.accumulate == 0:
                optimizer.step()
                optimizer.zero_grad()
        model.eval()
        with torch.no_grad():
            correct = sum(
                (model(x.to(device)).argmax(1) == y.to(device)).sum().item() for x, y in held_out
            )
        print(f"epoch {epoch}: held-out accuracy {correct / 512:.2f}")


if __name__ == "__main__":
    main()
