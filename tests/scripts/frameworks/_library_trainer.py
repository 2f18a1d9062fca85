"""A library's trainer class that builds its own Accelerator from an argument, as lucidrains' trainers do
(muse-maskgit's VQGanVAETrainer: ``Accelerator(**accelerate_kwargs)``): the script never names the Accelerator,
and mixed precision is set through the trainer's ``accelerate_kwargs``. Used by library_trainer.py."""

import torch
import torch.nn as nn
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset


class RegressorTrainer:
    def __init__(self, model, *, samples=8192, batch_size=128, lr=1e-3, num_train_steps=200,
                 accelerate_kwargs: dict = dict()):
        self.accelerator = Accelerator(**accelerate_kwargs)
        data = TensorDataset(torch.randn(samples, 512), torch.randn(samples, 512))
        loader = DataLoader(data, batch_size=batch_size, shuffle=True, drop_last=True)
        optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.model, self.optimizer, self.loader = self.accelerator.prepare(model, optimizer, loader)
        self.num_train_steps = num_train_steps

    def train(self):
        step = 0
        while step < self.num_train_steps:
            for inputs, targets in self.loader:
                with self.accelerator.autocast():
                    loss = nn.functional.mse_loss(self.model(inputs), targets)
                self.accelerator.backward(loss)
                self.optimizer.step()
                self.optimizer.zero_grad()
                step += 1
                if step == self.num_train_steps:
                    break
        self.accelerator.print(f"loss {loss.item():.3f}")
