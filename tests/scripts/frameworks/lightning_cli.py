"""A Lightning project run through LightningCLI, as lightning-hydra-style templates and many research repositories
are: `python lightning_cli.py fit --data.batch_size 64 --trainer.precision bf16-mixed`. Every knob is a
command-line option (--trainer.*, --data.*, --model.*); the script never calls Trainer(...) itself. Run with the
defaults: 32-bit precision on a CPU that multiplies bfloat16 faster.

Recorded for trainprobe's tests (tests/data/runs/frameworks/); needs lightning and jsonargparse. Random tokens.
"""

import lightning as L
import torch
import torch.nn as nn
from lightning.pytorch.cli import LightningCLI
from torch.utils.data import DataLoader, TensorDataset


class TokenClassifier(L.LightningModule):
    def __init__(self, width: int = 256, layers: int = 2, lr: float = 3e-4):
        super().__init__()
        self.save_hyperparameters()
        self.embed = nn.Embedding(1000, width)
        layer = nn.TransformerEncoderLayer(width, 4, 4 * width, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(width, 2)

    def training_step(self, batch, batch_idx):
        tokens, labels = batch
        logits = self.head(self.encoder(self.embed(tokens)).mean(dim=1))
        loss = nn.functional.cross_entropy(logits, labels)
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=self.hparams.lr)


class RandomTokens(L.LightningDataModule):
    def __init__(self, batch_size: int = 16, num_workers: int = 0, length: int = 64):
        super().__init__()
        self.batch_size, self.num_workers, self.length = batch_size, num_workers, length

    def train_dataloader(self):
        generator = torch.Generator().manual_seed(0)
        data = TensorDataset(torch.randint(0, 1000, (1024, self.length), generator=generator),
                             torch.randint(0, 2, (1024,), generator=generator))
        return DataLoader(data, batch_size=self.batch_size, shuffle=True, num_workers=self.num_workers)


def main():
    LightningCLI(TokenClassifier, RandomTokens, seed_everything_default=0,
                 trainer_defaults={"accelerator": "cpu", "devices": 1, "max_epochs": 1, "logger": False,
                                   "enable_checkpointing": False, "enable_progress_bar": False})


if __name__ == "__main__":
    main()
