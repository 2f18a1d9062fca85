"""A language model trained with Lightning's Trainer at its default precision ("32-true") on a GPU with
bfloat16 tensor cores: the fix is the Trainer's precision argument, not an autocast in a loop the user does
not write. Sized for a datacenter GPU (benchmarks/gpu_campaign.py); a tiny model on a CPU.
"""

import lightning as L
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from _gpu_lm import BATCH, CausalLM, token_data


class LanguageModel(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.model = CausalLM()

    def training_step(self, batch, batch_idx):
        inputs, targets = batch
        loss = nn.functional.cross_entropy(self.model(inputs).flatten(0, 1), targets.flatten())
        self.log("train_loss", loss)
        return loss

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=3e-4, weight_decay=0.1)


def main():
    loader = DataLoader(token_data(), batch_size=BATCH, shuffle=True, drop_last=True)
    trainer = L.Trainer(accelerator="auto", devices=1, max_epochs=4, logger=False, enable_checkpointing=False)
    trainer.fit(LanguageModel(), loader)


if __name__ == "__main__":
    main()
