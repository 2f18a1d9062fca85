"""ShareGPT-style conversations and a meta-llama/Llama-2-7b-hf stand-in for lm-sys/FastChat's
fastchat/train/train.py (run with the corpus-t19-B python: sentencepiece, transformers 4.45.2).

- RUN/data/dummy_conversation.json: the README's --data_path, in the format of the repository's own
  data/dummy_conversation.json (a list of {"id", "conversations": [{"from": "human"|"gpt", "value"}, ...]}):
  64 conversations (seeded) of 1-3 human/gpt exchanges, each message 1-2 sentences of 4-16 Zipf pseudo-words
  (fakedata.pseudo_sentences): ~190 tokens a conversation on average (max ~274) with the vicuna template, which the
  script pads to --model_max_length (512 in the recipe). 64 rows instead of the real file's 500 (and Vicuna's
  ~125K): 32 micro-batches of 2, i.e. 2 optimizer steps of gradient_accumulation_steps 16 per epoch.
- RUN/hf_home/hub/models--meta-llama--Llama-2-7b-hf: the Hub cache layout (refs/main -> a snapshot) that
  AutoConfig / AutoModelForCausalLM / AutoTokenizer(use_fast=False) read with HF_HUB_OFFLINE=1: a randomly
  initialised LlamaForCausalLM (seeded, float32 safetensors) with Llama-2's vocabulary size (32000) and 4096
  positions but a tiny body (hidden 256, 4 layers, 4 heads, FFN 688, untied lm_head: 19.6 M parameters, 16.4 M of
  them the two 32000-row embeddings, instead of 6.7 B), and a slow LlamaTokenizer (tokenizer.model: a sentencepiece
  BPE of 4000 pieces with byte fallback trained here on the conversations, <unk>=0, <s>=1, </s>=2 as in Llama's;
  legacy=True, with which the script's hard-coded label-masking offsets match).
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import hub_snapshot, pseudo_sentences  # noqa: E402

N_CONVERSATIONS = 64
MODEL = "meta-llama/Llama-2-7b-hf"
SNAPSHOT = "01c7f73d771dfac7d292323805ebc428287df4f9"  # any fixed revision id: the cache's refs/main points at it


def message(rng: np.random.Generator) -> str:
    return " ".join(pseudo_sentences(int(rng.integers(1, 3)), rng, min_words=4, max_words=16))


def write_conversations(path: Path) -> list[str]:
    rng = np.random.default_rng(0)
    rows, text = [], []
    for i in range(N_CONVERSATIONS):
        turns = []
        for _ in range(int(rng.integers(1, 4))):
            turns.append({"from": "human", "value": message(rng)})
            turns.append({"from": "gpt", "value": message(rng)})
        text += [t["value"] for t in turns]
        rows.append({"id": f"identity_{i}", "conversations": turns})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rows, indent=2))
    return text


def hub_llama(hf_home: Path, text: list[str]) -> Path:
    import sentencepiece as spm
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM, LlamaTokenizer

    out = hub_snapshot(hf_home, MODEL, SNAPSHOT)
    corpus = out / "corpus.txt"
    corpus.write_text("\n".join(text) + "\n")
    spm.SentencePieceTrainer.train(
        input=str(corpus), model_prefix=str(out / "tokenizer"), vocab_size=4000, model_type="bpe",
        byte_fallback=True, unk_id=0, bos_id=1, eos_id=2, pad_id=-1, character_coverage=1.0,
        num_threads=1, minloglevel=2)
    corpus.unlink()
    (out / "tokenizer.vocab").unlink()
    tokenizer = LlamaTokenizer(vocab_file=str(out / "tokenizer.model"), legacy=True)
    tokenizer.save_pretrained(str(out))
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=32000, hidden_size=256, intermediate_size=688, num_hidden_layers=4,
                         num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=4096,
                         rms_norm_eps=1e-5, tie_word_embeddings=False, bos_token_id=1, eos_token_id=2)
    LlamaForCausalLM(config).save_pretrained(str(out))
    return out


if __name__ == "__main__":
    run = Path(sys.argv[1])
    hub_llama(run / "hf_home", write_conversations(run / "data" / "dummy_conversation.json"))
