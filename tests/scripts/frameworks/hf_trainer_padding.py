"""A Hugging Face Trainer fine-tune whose data set is tokenized once with datasets.map(..., padding="max_length"):
every review is padded to 256 tokens while most hold 30-90, so most of the model's work is on padding.

Recorded for trainprobe's tests (tests/data/runs/frameworks/); needs transformers and datasets. Nothing is
downloaded: the tokenizer is trained here on generated sentences and the model is built from a tiny config.
"""

import random
import tempfile

import torch
from datasets import Dataset
from tokenizers import Tokenizer, models, pre_tokenizers, trainers
from transformers import (BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast, Trainer,
                          TrainingArguments)

WORDS = [f"w{i}" for i in range(2000)]


def reviews(n, seed):
    rng = random.Random(seed)
    return [" ".join(rng.choices(WORDS, k=max(8, min(200, int(rng.gauss(60, 20)))))) for _ in range(n)]


def build_tokenizer(texts):
    tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.train_from_iterator(texts, trainers.WordLevelTrainer(special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]"]))
    return PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]",
                                   cls_token="[CLS]", sep_token="[SEP]")


def main():
    torch.manual_seed(0)
    texts = reviews(3000, seed=0)
    tokenizer = build_tokenizer(texts[:500])
    data = Dataset.from_dict({"text": texts, "label": [len(t) % 2 for t in texts]})

    def tokenize(batch):
        return tokenizer(batch["text"], truncation=True, max_length=256, padding="max_length")

    data = data.map(tokenize, batched=True, remove_columns=["text"])
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=256, max_position_embeddings=256, num_labels=2)
    model = BertForSequenceClassification(config)
    args = TrainingArguments(output_dir=tempfile.mkdtemp(), per_device_train_batch_size=16, max_steps=300,
                             logging_steps=50, report_to="none", save_strategy="no", use_cpu=True)
    trainer = Trainer(model=model, args=args, train_dataset=data)
    trainer.train()


if __name__ == "__main__":
    main()
