"""A LeNet of lazy layers (nn.LazyConv2d, nn.LazyLinear), each called alone on a dummy input to print
its output shape before training, as textbooks do: trainprobe's forward hooks see parameters that
have no shape yet."""

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(
    nn.LazyConv2d(6, kernel_size=5, padding=2), nn.Sigmoid(), nn.AvgPool2d(2),
    nn.LazyConv2d(16, kernel_size=5), nn.Sigmoid(), nn.AvgPool2d(2), nn.Flatten(),
    nn.LazyLinear(120), nn.Sigmoid(), nn.LazyLinear(10))
X = torch.randn(1, 1, 28, 28)
for layer in model:
    X = layer(X)
    print(type(layer).__name__, "output shape:", tuple(X.shape))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
data = [(torch.randn(32, 1, 28, 28), torch.randint(0, 10, (32,))) for _ in range(4)]
for epoch in range(6):
    for x, y in data:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
print("done")
