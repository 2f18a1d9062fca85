"""A small Lightning classifier whose per-step Python is mostly Lightning's own: self.log with
prog_bar=True on every step, the progress bar refreshed every step, a validation loop each epoch.

Recorded for trainprobe's tests (tests/data/runs/frameworks/); needs lightning. Random data, a model
small enough that the loop's own code is a large share of the step.
"""

import tempfile

import lightning as L
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Classifier(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4))

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self.net(x)
        loss = nn.functional.cross_entropy(logits, y)
        accuracy = (logits.argmax(dim=1) == y).float().mean()
        self.log("train_loss", loss, prog_bar=True)
        self.log("train_acc", accuracy, prog_bar=True)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", nn.functional.cross_entropy(self.net(x), y), prog_bar=True)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)

    def train_dataloader(self):
        data = TensorDataset(torch.randn(8192, 32), torch.randint(0, 4, (8192,)))
        return DataLoader(data, batch_size=32, shuffle=True)

    def val_dataloader(self):
        data = TensorDataset(torch.randn(512, 32), torch.randint(0, 4, (512,)))
        return DataLoader(data, batch_size=32)


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)  # a tiny model: one thread, so that busy neighbours do not stall its math
    trainer = L.Trainer(accelerator="cpu", devices=1, max_epochs=3, log_every_n_steps=1,
                        enable_checkpointing=False, default_root_dir=tempfile.mkdtemp())
    trainer.fit(Classifier())


if __name__ == "__main__":
    main()
