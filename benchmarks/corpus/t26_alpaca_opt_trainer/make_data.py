"""Generated stand-ins for tatsu-lab/stanford_alpaca's train.py (OPT fine-tuning with the Hugging Face Trainer).

    python make_data.py RUN

- RUN/alpaca_data.json: N_EXAMPLES instruction-following records in the real file's format (a JSON list of
  {"instruction", "input", "output"} strings, indent 4 as the repository's file), made of pseudo-word sentences
  shaped like Alpaca's: instruction 3-40 words (mean ~13), an input on ~40 % of the records (mean ~15 words),
  output word counts long-tailed (gamma, mean ~45, 1-400) as in the real 52K records. Seeded.
- RUN/hf_home/hub/models--facebook--opt-125m: the Hub cache layout that AutoModelForCausalLM / AutoTokenizer read
  with HF_HUB_OFFLINE=1, holding a randomly initialised (seeded) OPT that is SMALLER than opt-125m: 4 decoder layers
  of width 256 (4 heads, FFN 1024; opt-125m has 12 x 768, 12 heads, FFN 3072) but the real 50272-row embedding /
  tied LM head and 2048 positions (~16 M parameters instead of 125 M), and a GPT2Tokenizer-style byte-level BPE
  (vocab.json + merges.txt) trained on the generated text, its vocabulary filled up to OPT's 50265 entries
  (<s>=0, <pad>=1, </s>=2, <unk>=3 as OPT's) so that train.py's resize_token_embeddings(len(tokenizer)) gives the
  real 50265-word head. tokenizer_config.json / special_tokens_map.json as OPT's (bos=eos=unk </s>, pad <pad>).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import hub_snapshot, pseudo_words  # noqa: E402

N_EXAMPLES = 96  # 24 micro-batches of 4, 3 optimizer steps of 32 (the real file has 52002)
MODEL = "facebook/opt-125m"
SNAPSHOT = "27dcfa74d334bc871f3234de431e71c6eeba5dd6"  # any fixed revision id: the cache's refs/main points at it
_WORDS = None
OPT_VOCAB = 50265  # len(GPT2Tokenizer) of facebook/opt-125m; its config.json says vocab_size 50272


class _Words:
    """A Zipf stream of pseudo-words (fakedata.pseudo_words, drawn once: it builds its lexicon at every call)."""

    def __init__(self, rng: np.random.Generator, total: int = 400_000):
        self.words, self.at = pseudo_words(total, rng, vocab=6000), 0

    def take(self, n: int) -> list[str]:
        if self.at + n > len(self.words):
            self.at = 0
        self.at += n
        return list(self.words[self.at - n:self.at])


def _sentence(rng: np.random.Generator, n_words: int, end: str = ".") -> str:
    words = _WORDS.take(n_words)
    for j in range(5, len(words) - 1, 9):
        words[j] += ","
    return " ".join(words).capitalize() + end


def _text(rng: np.random.Generator, n_words: int) -> str:
    """n_words in sentences of 6-20 words (outputs are paragraphs, sometimes lists)."""
    parts, left = [], n_words
    while left > 0:
        k = int(min(left, rng.integers(6, 21)))
        parts.append(_sentence(rng, k))
        left -= k
    if rng.random() < 0.15 and len(parts) > 2:
        return "\n".join(f"{i + 1}. {p}" for i, p in enumerate(parts))
    return " ".join(parts)


def records(n: int, seed: int = 26) -> list[dict]:
    global _WORDS
    rng = np.random.default_rng(seed)
    _WORDS = _Words(rng)
    out = []
    for _ in range(n):
        instruction = _sentence(rng, int(np.clip(rng.gamma(4.0, 13 / 4.0), 3, 40)), end="?" if rng.random() < 0.3 else ".")
        has_input = rng.random() < 0.4
        inp = _text(rng, int(np.clip(rng.gamma(1.5, 10.0), 2, 120))) if has_input else ""
        output = _text(rng, int(np.clip(rng.gamma(1.3, 45 / 1.3), 1, 400)))
        out.append({"instruction": instruction, "input": inp, "output": output})
    return out


def tokenizer_files(folder: Path, text: list[str]) -> None:
    from tokenizers import ByteLevelBPETokenizer

    corpus = folder / "corpus.txt"
    corpus.write_text("\n".join(text) + "\n", encoding="utf-8")
    bpe = ByteLevelBPETokenizer()
    bpe.train([str(corpus)], vocab_size=12000, min_frequency=2, show_progress=False,
              special_tokens=["<s>", "<pad>", "</s>", "<unk>"])
    corpus.unlink()
    bpe.save_model(str(folder))  # vocab.json + merges.txt
    vocab = json.loads((folder / "vocab.json").read_text(encoding="utf-8"))
    for i in range(len(vocab), OPT_VOCAB):  # never produced by the merges: only the table's size is OPT's
        vocab[f"<|unused{i}|>"] = i
    (folder / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    special = {"bos_token": "</s>", "eos_token": "</s>", "unk_token": "</s>", "pad_token": "<pad>"}
    (folder / "special_tokens_map.json").write_text(json.dumps(special))
    (folder / "tokenizer_config.json").write_text(json.dumps(
        {"tokenizer_class": "GPT2Tokenizer", "add_bos_token": True, "add_prefix_space": False, "errors": "replace",
         "model_max_length": 1000000000000000019884624838656, **special}))


def model_files(folder: Path) -> None:
    import torch
    from transformers import OPTConfig, OPTForCausalLM

    torch.manual_seed(0)
    config = OPTConfig(vocab_size=50272, hidden_size=256, num_hidden_layers=4, ffn_dim=1024, num_attention_heads=4,
                       word_embed_proj_dim=256, max_position_embeddings=2048, do_layer_norm_before=True,
                       dropout=0.1, attention_dropout=0.0, activation_function="relu", enable_bias=True,
                       pad_token_id=1, bos_token_id=2, eos_token_id=2)
    OPTForCausalLM(config).save_pretrained(str(folder))


def main() -> None:
    run = Path(sys.argv[1])
    run.mkdir(parents=True, exist_ok=True)
    data = records(N_EXAMPLES)
    (run / "alpaca_data.json").write_text(json.dumps(data, indent=4), encoding="utf-8")
    snap = hub_snapshot(run / "hf_home", MODEL, SNAPSHOT)
    extra = records(2000, seed=27)  # more text for the BPE than the training file alone
    text = [f"{r['instruction']}\n{r['input']}\n{r['output']}" for r in data + extra]
    tokenizer_files(snap, text)
    model_files(snap)


if __name__ == "__main__":
    main()
