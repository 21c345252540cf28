"""Sine waves predicted by a two-layer LSTM, trained with LBFGS and a closure: each optimizer step runs the
closure (a forward and backward pass over the whole set) up to --max-iter times — a closure optimizer as
pytorch/examples' time_sequence_prediction uses one — then a final evaluation on held-out waves.

    python lbfgs.py --steps 30
"""

import argparse

import torch


class Sequence(torch.nn.Module):
    def __init__(self, hidden: int) -> None:
        super().__init__()
        self.hidden = hidden
        self.cell1, self.cell2 = torch.nn.LSTMCell(1, hidden), torch.nn.LSTMCell(hidden, hidden)
        self.out = torch.nn.Linear(hidden, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h1 = c1 = h2 = c2 = torch.zeros(x.size(0), self.hidden, device=x.device)
        outputs = []
        for t in range(x.size(1)):
            h1, c1 = self.cell1(x[:, t : t + 1], (h1, c1))
            h2, c2 = self.cell2(h1, (h2, c2))
            outputs.append(self.out(h2))
        return torch.cat(outputs, dim=1)


def waves(n: int, length: int, generator: torch.Generator) -> torch.Tensor:
    phase = torch.randint(-80, 80, (n, 1), generator=generator).float()
    return torch.sin((torch.arange(length).float() + phase) / 20.0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=15, help="LBFGS steps")
    parser.add_argument(
        "--max-iter", type=int, default=4, help="closure evaluations per step, at most"
    )
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--length", type=int, default=40, help="points per wave")
    parser.add_argument(
        "--test-waves", type=int, default=2000, help="held-out waves of the final evaluation"
    )
    args = parser.parse_args()
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    data = waves(64, args.length + 1, generator).to(device)
    test = waves(args.test_waves, args.length + 1, generator).to(device)
    model = Sequence(args.hidden).to(device)
    optimizer = torch.optim.LBFGS(model.parameters(), lr=0.5, max_iter=args.max_iter)
    for step in range(args.steps):

        def closure() -> torch.Tensor:
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(data[:, :-1]), data[:, 1:])
            loss.backward()
            return loss

        loss = optimizer.step(closure).detach()
        print(f"step {step}: loss {loss.item():.5f}")
    with torch.no_grad():  # the final evaluation: after the last step
        loss = sum(
            torch.nn.functional.mse_loss(model(x[:, :-1]), x[:, 1:]).item() for x in test.split(50)
        )
    print(f"held-out loss {loss / max(len(test.split(50)), 1):.5f}")


if __name__ == "__main__":
    main()
