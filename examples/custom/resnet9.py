"""ResNet-9 for CIFAR-10 (Myrtle.ai's DAWNBench entry, "How to train your ResNet", 2018), written
as a plain custom module. 6,573,120 parameters.

Every convolution is 3x3, padding 1, bias-free, followed by batch norm and ReLU; the head is a
global max-pool, a bias-free linear layer and a 0.125 scale on the logits.
"""

import torch
from torch import nn


def conv_bn(c_in: int, c_out: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, 3, padding=1, bias=False),
        nn.BatchNorm2d(c_out),
        nn.ReLU(inplace=True),
    )


class Residual(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.branch = nn.Sequential(conv_bn(channels, channels), conv_bn(channels, channels))

    def forward(self, x):
        return x + self.branch(x)


class ResNet9(nn.Module):
    def __init__(self, outputs: int = 10, in_channels: int = 3, weight: float = 0.125):
        super().__init__()
        self.net = nn.Sequential(
            conv_bn(in_channels, 64),
            conv_bn(64, 128),
            nn.MaxPool2d(2),
            Residual(128),
            conv_bn(128, 256),
            nn.MaxPool2d(2),
            conv_bn(256, 512),
            nn.MaxPool2d(2),
            Residual(512),
            nn.AdaptiveMaxPool2d(1),
        )
        self.fc = nn.Linear(512, outputs, bias=False)
        self.weight = weight

    def forward(self, x):
        return self.fc(torch.flatten(self.net(x), 1)) * self.weight


def build(input_shape=(3, 32, 32), outputs=10):
    return ResNet9(outputs, in_channels=input_shape[0])
