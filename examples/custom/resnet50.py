"""ResNet-50 v1.5 (the torchvision `resnet50` layout): the network of NVIDIA's and Lambda's
published ResNet-50 training benchmarks, written as a plain custom module (no torchvision).

25,557,032 parameters. v1.5 puts the stride of a downsampling bottleneck on its 3x3 convolution
(v1 puts it on the first 1x1). Used by `benchmarks/published.py` through the same introspection
path a user's custom model takes.
"""

from torch import nn


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, in_channels: int, width: int, stride: int = 1):
        super().__init__()
        out = width * self.expansion
        self.conv1 = nn.Conv2d(in_channels, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride=stride, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, out, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(out)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = None
        if stride != 1 or in_channels != out:
            self.downsample = nn.Sequential(
                nn.Conv2d(in_channels, out, 1, stride=stride, bias=False), nn.BatchNorm2d(out)
            )

    def forward(self, x):
        shortcut = x if self.downsample is None else self.downsample(x)
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.relu(self.bn2(self.conv2(y)))
        y = self.bn3(self.conv3(y))
        return self.relu(y + shortcut)


class ResNet50(nn.Module):
    def __init__(self, outputs: int = 1000, in_channels: int = 3):
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(in_channels, 64, 7, stride=2, padding=3, bias=False),
            nn.BatchNorm2d(64),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(3, stride=2, padding=1),
        )
        stages, channels = [], 64
        for i, (blocks, width) in enumerate(zip((3, 4, 6, 3), (64, 128, 256, 512))):
            layer = []
            for b in range(blocks):
                layer.append(Bottleneck(channels, width, stride=2 if (b == 0 and i > 0) else 1))
                channels = width * Bottleneck.expansion
            stages.append(nn.Sequential(*layer))
        self.stages = nn.Sequential(*stages)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(channels, outputs)

    def forward(self, x):
        return self.fc(self.pool(self.stages(self.stem(x))).flatten(1))


def build(input_shape=(3, 224, 224), outputs=1000):
    return ResNet50(outputs, in_channels=input_shape[0])
