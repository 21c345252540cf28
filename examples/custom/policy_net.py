"""A tiny reinforcement-learning policy network: the kind of model that often trains faster on a CPU."""

from torch import nn


def build(input_shape, outputs):
    (features,) = input_shape
    return nn.Sequential(
        nn.Linear(features, 64),
        nn.Tanh(),
        nn.Linear(64, 64),
        nn.Tanh(),
        nn.Linear(64, outputs),
    )
