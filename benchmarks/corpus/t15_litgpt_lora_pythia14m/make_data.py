"""A pythia-14m checkpoint folder and an Alpaca-style JSON file for `litgpt finetune_lora` (Lightning-AI/litgpt's
litgpt/__main__.py CLI; run with the corpus-t15-D-litgpt python: litgpt, tokenizers, torch).

- RUN/checkpoints/EleutherAI/pythia-14m: what `litgpt download EleutherAI/pythia-14m` leaves (the CLI finds the
  folder and downloads nothing): model_config.yaml (litgpt's own Config.from_name("pythia-14m"): 6 layers,
  n_embd 128, 4 heads, block 2048, padded vocab 50304: 14 M parameters, the real shape), lit_model.pth (GPT(config)
  randomly initialised, seeded, instead of the released weights), tokenizer.json (a byte-level BPE of 2000 tokens
  trained here on the generated text, with <|endoftext|> as id 0, instead of GPT-NeoX's 50277-token BPE) and
  tokenizer_config.json (bos/eos <|endoftext|>, as pythia's), generation_config.json.
- RUN/data/alpaca_like.json: 48 instruction/input/output records of pseudo-English (fakedata.pseudo_sentences,
  seeded; instructions 6-20 words, a third with an input of 8-30 words, outputs of 1-4 sentences), the format of
  litgpt's JSON data module (val_split_fraction defaults to 0.05: 46 train / 2 val; with the
  default 5 epochs of micro-batch 1 and global batch 16: 230 iterations, 14 optimizer steps).
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import pseudo_sentences  # noqa: E402


def records(n: int, rng: np.random.Generator) -> list[dict]:
    instr = pseudo_sentences(n, rng, min_words=6, max_words=20)
    inputs = pseudo_sentences(n, rng, min_words=8, max_words=30)
    outs = pseudo_sentences(4 * n, rng, min_words=6, max_words=25)
    recs = []
    for i in range(n):
        k = int(rng.integers(1, 5))
        recs.append({"instruction": instr[i].rstrip(".") + "?" if rng.random() < 0.3 else instr[i],
                     "input": inputs[i] if rng.random() < 0.33 else "",
                     "output": " ".join(outs[4 * i:4 * i + k])})
    return recs


def checkpoint(folder: Path, text: list[str]) -> None:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from litgpt.config import Config
    from litgpt.model import GPT
    from litgpt.utils import save_config

    folder.mkdir(parents=True, exist_ok=True)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=2000, special_tokens=["<|endoftext|>", "<|padding|>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(text, trainer)
    tok.save(str(folder / "tokenizer.json"))
    (folder / "tokenizer_config.json").write_text(json.dumps(
        {"bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>",
         "add_bos_token": False, "add_eos_token": False, "tokenizer_class": "GPTNeoXTokenizer"}))
    (folder / "generation_config.json").write_text(json.dumps({"bos_token_id": 0, "eos_token_id": 0}))
    config = Config.from_name("pythia-14m")
    save_config(config, folder)
    torch.manual_seed(0)
    torch.save(GPT(config).state_dict(), folder / "lit_model.pth")


if __name__ == "__main__":
    run = Path(sys.argv[1])
    rng = np.random.default_rng(0)
    recs = records(48, rng)
    (run / "data").mkdir(parents=True, exist_ok=True)
    (run / "data" / "alpaca_like.json").write_text(json.dumps(recs, indent=1))
    text = [r[k] for r in recs for k in ("instruction", "input", "output") if r[k]]
    checkpoint(run / "checkpoints" / "EleutherAI" / "pythia-14m", text)
