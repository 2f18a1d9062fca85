"""A Hugging Face Trainer fine-tune whose Dataset tokenizes the raw text in __getitem__, with
TrainingArguments(dataloader_num_workers=0): every batch is tokenized in the training process, in
series with the step.

Recorded for trainprobe's tests (tests/data/runs/frameworks/); needs transformers. Nothing is
downloaded: the tokenizer is trained here on generated sentences and the model is built from a tiny
config.
"""

import random
import tempfile

import torch
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
from torch.utils.data import Dataset
from transformers import (BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast, Trainer,
                          TrainingArguments)

WORDS = [f"w{i}" for i in range(3000)]


def sentences(n, seed):
    rng = random.Random(seed)
    return [" ".join(rng.choices(WORDS, k=rng.randint(200, 400))) for _ in range(n)]


def build_tokenizer(texts):
    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(texts, trainers.WordLevelTrainer(special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]"]))
    return PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]",
                                   cls_token="[CLS]", sep_token="[SEP]")


class ReviewDataset(Dataset):
    def __init__(self, texts, tokenizer):
        self.texts = texts
        self.labels = [len(t) % 2 for t in texts]
        self.tokenizer = tokenizer

    def __len__(self):
        return len(self.texts)

    def __getitem__(self, index):
        encoded = self.tokenizer(self.texts[index], truncation=True, max_length=64, padding="max_length")
        return {"input_ids": torch.tensor(encoded["input_ids"]),
                "attention_mask": torch.tensor(encoded["attention_mask"]),
                "labels": torch.tensor(self.labels[index])}


def main():
    torch.manual_seed(0)
    torch.set_num_threads(1)  # a tiny model: one thread, so that busy neighbours do not stall its math
    texts = sentences(4000, seed=0)
    tokenizer = build_tokenizer(texts[:500])
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64, num_labels=2)
    model = BertForSequenceClassification(config)
    args = TrainingArguments(output_dir=tempfile.mkdtemp(), per_device_train_batch_size=16, max_steps=400,
                             dataloader_num_workers=0, logging_steps=50, report_to="none", save_strategy="no",
                             use_cpu=True)
    trainer = Trainer(model=model, args=args, train_dataset=ReviewDataset(texts, tokenizer))
    trainer.train()


if __name__ == "__main__":
    main()
