"""REINFORCE on a cart-pole written in plain Python: the agent steps its environment one state at a
time (batch-1 forward passes between Python physics), then updates once per episode. The kind of
training practitioners report running faster on a CPU than on a GPU.

    python reinforce.py --episodes 300
    python reinforce.py --solve-at 150     # train until solved: the last 20 episodes last 150 steps on average
"""

import argparse
import math
import random

import torch


class CartPole:
    """The classic control task (Barto, Sutton and Anderson 1983), in Python."""

    def reset(self) -> list[float]:
        self.x, self.v, self.a, self.w = (random.uniform(-0.05, 0.05) for _ in range(4))
        return [self.x, self.v, self.a, self.w]

    def step(self, push: int) -> tuple[list[float], bool]:
        force = 10.0 if push else -10.0
        temp = (force + 0.05 * self.w**2 * math.sin(self.a)) / 1.1
        acc_a = (9.8 * math.sin(self.a) - math.cos(self.a) * temp) / (
            0.5 * (4 / 3 - 0.1 * math.cos(self.a) ** 2 / 1.1)
        )
        acc_x = temp - 0.05 * acc_a * math.cos(self.a) / 1.1
        self.x, self.v = self.x + 0.02 * self.v, self.v + 0.02 * acc_x
        self.a, self.w = self.a + 0.02 * self.w, self.w + 0.02 * acc_a
        return [self.x, self.v, self.a, self.w], abs(self.x) > 2.4 or abs(self.a) > 0.21


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--episodes", type=int, default=300)
    parser.add_argument(
        "--steps", type=int, default=200, help="at most this many environment steps per episode"
    )
    parser.add_argument(
        "--solve-at",
        type=float,
        default=0.0,
        help="stop once the last 20 episodes averaged this many steps (0: run every episode)",
    )
    args = parser.parse_args()
    torch.manual_seed(0)
    random.seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    policy = torch.nn.Sequential(
        torch.nn.Linear(4, 128), torch.nn.ReLU(), torch.nn.Linear(128, 2)
    ).to(device)
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
    env = CartPole()
    lengths: list[int] = []
    for episode in range(args.episodes if not args.solve_at else 10**6):
        state, log_probs = env.reset(), []
        for _ in range(args.steps):
            dist = torch.distributions.Categorical(
                logits=policy(torch.tensor(state, device=device))
            )
            action = dist.sample()
            log_probs.append(dist.log_prob(action))
            state, done = env.step(int(action.item()))
            if done:
                break
        returns = (
            torch.tensor([0.99**k for k in range(len(log_probs))], device=device)
            .flip(0)
            .cumsum(0)
            .flip(0)
        )
        loss = -(torch.stack(log_probs) * (returns - returns.mean())).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if episode % 50 == 0:
            print(f"episode {episode}: {len(log_probs)} steps")
        lengths.append(len(log_probs))
        if args.solve_at and len(lengths) >= 20 and sum(lengths[-20:]) / 20 >= args.solve_at:
            print(f"solved after {episode + 1} episodes")
            break


if __name__ == "__main__":
    main()
