"""A model traced with torch.jit.trace before training, as TensorBoard's SummaryWriter.add_graph does:
the tracer runs the model twice and compares the two graphs."""
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU())
        self.avg = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        return self.fc(self.avg(self.stem(x)).view(x.size(0), -1))


net = Net()
torch.jit.trace(net, torch.randn(2, 3, 16, 16))  # check_trace=True: two runs, graphs compared
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(60):
    loss = net(torch.randn(16, 3, 16, 16)).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("trained")
