"""A GPT-2-shaped model (built from a config) fine-tuned with the Hugging Face Trainer, bf16 left off in
TrainingArguments on a GPU with bfloat16 tensor cores: the fix is TrainingArguments(bf16=True). The data are
token ids made once in memory, so the input is not what this tests. Sized for a datacenter GPU
(benchmarks/gpu_campaign.py); a tiny model on a CPU.
"""

import tempfile

import torch
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments

from _gpu_lm import BATCH, CONTEXT, HEADS, LAYERS, VOCAB, WIDTH


class Tokens(torch.utils.data.Dataset):
    def __init__(self, sequences=1024):
        self.ids = torch.randint(0, VOCAB, (sequences, CONTEXT), generator=torch.Generator().manual_seed(0))

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, index):
        return {"input_ids": self.ids[index], "labels": self.ids[index]}


def main():
    config = GPT2Config(vocab_size=VOCAB, n_embd=WIDTH, n_layer=LAYERS, n_head=HEADS, n_positions=CONTEXT)
    args = TrainingArguments(output_dir=tempfile.mkdtemp(), per_device_train_batch_size=BATCH, num_train_epochs=4,
                             logging_steps=20, save_strategy="no", report_to=[])
    trainer = Trainer(model=GPT2LMHeadModel(config), args=args, train_dataset=Tokens())
    trainer.train()


if __name__ == "__main__":
    main()
