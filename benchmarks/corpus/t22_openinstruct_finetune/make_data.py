"""Tulu-v1-style instruction data and a LLaMA stand-in for allenai/open-instruct's open_instruct/finetune.py
(Oct 2023, accelerate loop), run with the corpus-t22-F python (datasets, sentencepiece, transformers).

- RUN/data/processed/tulu_v1/tulu_v1_data.jsonl: the published --train_file, in open-instruct's unified "messages"
  format (one JSON object a line: dataset, id, messages = [{role, content}, ...]). 80 generated conversations
  (seeded): 1 user/assistant turn (2 in one conversation of 4), a system message in one of five, user turns of 8-40
  pseudo-words, assistant turns of 15-90 pseudo-words (fakedata.pseudo_sentences). 102 / 156 / 294 tokens at
  p10 / median / p90, max 342, far under --max_seq_length 2048: 40 micro-batches of 2 an epoch.
- RUN/hf_llama_models/7B: what the published ../hf_llama_models/${MODEL_SIZE} holds (a LLaMA checkpoint in the
  Hugging Face format), read with --model_name_or_path / --tokenizer_name: a randomly initialised LlamaForCausalLM
  (seeded) of a small size -- hidden 256, 4 layers, 4 heads, FFN 688 (LLaMA's 11008/4096 ratio), the real 32000-word
  vocabulary (untied embedding and LM head), 2048 positions: 19.6 M parameters instead of 6.7 B (a 7B model cannot
  train on a 2-core CPU) -- and a slow LlamaTokenizer (--use_slow_tokenizer): a SentencePiece BPE model of 4000
  pieces trained here on the generated text (byte fallback, unk/bos/eos = 0/1/2 as LLaMA's).
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import pseudo_sentences  # noqa: E402

N = 80
SYSTEMS = ["You are a helpful assistant.", "You are a careful and honest assistant.",
           "Answer as briefly as you can.", "You are an expert tutor.", "Think step by step."]


def paragraph(rng, lo, hi):
    words = int(rng.integers(lo, hi + 1))
    out, n = [], 0
    while n < words:
        s = pseudo_sentences(1, rng, min_words=5, max_words=30)[0]
        out.append(s)
        n += len(s.split())
    return " ".join(out)


def write_tulu(path: Path) -> list[str]:
    rng = np.random.default_rng(0)
    path.parent.mkdir(parents=True, exist_ok=True)
    texts = []
    with open(path, "w") as f:
        for i in range(N):
            messages = []
            if rng.random() < 0.2:
                messages.append({"role": "system", "content": SYSTEMS[int(rng.integers(0, len(SYSTEMS)))]})
            for _ in range(int(rng.choice([1, 1, 1, 2]))):
                q = paragraph(rng, 8, 40)
                if rng.random() < 0.5:
                    q = q[:-1] + "?"
                messages.append({"role": "user", "content": q})
                messages.append({"role": "assistant", "content": paragraph(rng, 15, 90)})
            texts += [m["content"] for m in messages]
            f.write(json.dumps({"dataset": "tulu_v1", "id": f"tulu_v1_{i}", "messages": messages}) + "\n")
    return texts


def write_llama(folder: Path, texts: list[str]) -> None:
    import sentencepiece as spm
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM, LlamaTokenizer

    folder.mkdir(parents=True, exist_ok=True)
    corpus = folder / "corpus.txt"
    corpus.write_text("\n".join(texts + ["<|system|>", "<|user|>", "<|assistant|>"] * 20) + "\n")
    spm.SentencePieceTrainer.train(input=str(corpus), model_prefix=str(folder / "tokenizer"), vocab_size=4000,
                                   model_type="bpe", byte_fallback=True, unk_id=0, bos_id=1, eos_id=2, pad_id=-1,
                                   character_coverage=1.0, num_threads=1, minloglevel=2, seed_sentencepiece_size=200000)
    corpus.unlink()
    (folder / "tokenizer.vocab").unlink()
    LlamaTokenizer(vocab_file=str(folder / "tokenizer.model"), legacy=True).save_pretrained(str(folder))
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=32000, hidden_size=256, intermediate_size=688, num_hidden_layers=4,
                         num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=2048,
                         rms_norm_eps=1e-6, tie_word_embeddings=False, bos_token_id=1, eos_token_id=2,
                         pad_token_id=0)
    LlamaForCausalLM(config).save_pretrained(str(folder))


if __name__ == "__main__":
    run = Path(sys.argv[1])
    texts = write_tulu(run / "data" / "processed" / "tulu_v1" / "tulu_v1_data.jsonl")
    write_llama(run / "hf_llama_models" / "7B", texts)
