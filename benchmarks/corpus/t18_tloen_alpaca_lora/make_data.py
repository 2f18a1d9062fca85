"""Alpaca-cleaned and LLaMA-7B stand-ins for tloen/alpaca-lora's finetune.py (run with the corpus-t18-B python:
transformers 4.57, sentencepiece, safetensors).

- RUN/yahma/alpaca-cleaned/alpaca_data_cleaned.json: finetune.py's load_dataset(data_path) with the README's
  --data_path 'yahma/alpaca-cleaned' runs in the run folder (the recipe's cwd), where a local directory of that name
  comes before the Hub, and load_dataset reads the one JSON file in it (the json builder). A JSON list of records
  with the real file's fields (instruction, input, output); instructions of 4-16 pseudo-words ending in a full
  stop (30% a question mark), 40% with an input of 5-40 pseudo-words, outputs of 1-8 sentences of 8-22 pseudo-words
  (Zipf pseudo-words, fakedata.pseudo_sentences, seeded): with the prompt template 50-257 tokens of the stand-in
  tokenizer (median 95, p90 155), nearly all under cutoff_len 256 as most real alpaca-cleaned prompts are.
  N_ROWS rows instead of 51,760.
- RUN/hf_home/hub/models--decapoda-research--llama-7b-hf: the Hub cache layout (refs/main -> a snapshot) that
  LlamaForCausalLM / LlamaTokenizer.from_pretrained read with HF_HUB_OFFLINE=1: a randomly initialised (seeded)
  LLaMA of a small config (hidden 512, 4 layers, 8 heads, FFN 1376, the real 32000-word vocabulary and 2048
  positions, RMSNorm eps 1e-6, untied embeddings: ~46 M parameters instead of 6.7 B) saved in float16 as the real
  checkpoint is, and a SentencePiece BPE tokenizer.model (LLaMA's byte fallback and ids: <unk> 0, <s> 1, </s> 2)
  of 4000 pieces (at most) trained here on the generated text, with a tokenizer_config.json naming LlamaTokenizer.
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import hub_snapshot, pseudo_sentences  # noqa: E402

N_ROWS = 416
MODEL = "decapoda-research/llama-7b-hf"
SNAPSHOT = "5f98eefcc80e437ef68d457ad7bf167c2c6a1348"  # any fixed revision id: the cache's refs/main points at it


def write_alpaca(path: Path) -> list[str]:
    rng = np.random.default_rng(0)
    # one pseudo_sentences call per pool (each call builds its lexicon): instruction, input and output pools
    instructions = pseudo_sentences(N_ROWS, rng, min_words=4, max_words=16)
    inputs = pseudo_sentences(N_ROWS, rng, min_words=5, max_words=40)
    pool = pseudo_sentences(8 * N_ROWS, rng, min_words=8, max_words=22)
    rows, at = [], 0
    for i in range(N_ROWS):
        instruction = instructions[i]
        if rng.random() < 0.3:
            instruction = instruction[:-1] + "?"
        given = inputs[i] if rng.random() < 0.4 else ""
        k = max(1, int(min(120, max(5, rng.lognormal(3.4, 0.7)))) // 15)
        output = " ".join(pool[at % len(pool):at % len(pool) + k])
        at += k
        rows.append({"instruction": instruction, "input": given, "output": output})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rows, indent=4))
    return [r[k] for r in rows for k in ("instruction", "input", "output") if r[k]]


def hub_llama(hf_home: Path, text: list[str]) -> Path:
    import sentencepiece as spm
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    out = hub_snapshot(hf_home, MODEL, SNAPSHOT)
    corpus = out / "corpus.txt"
    corpus.write_text("\n".join(text) + "\n### Instruction: Input: Response: Below is an instruction that describes "
                      "a task, paired with an input that provides further context. Write a response that "
                      "appropriately completes the request.\n")
    spm.SentencePieceTrainer.train(
        input=str(corpus), model_prefix=str(out / "tokenizer"), vocab_size=4000, hard_vocab_limit=False, model_type="bpe",
        character_coverage=1.0, byte_fallback=True, split_digits=True, unk_id=0, bos_id=1, eos_id=2, pad_id=-1,
        add_dummy_prefix=True, remove_extra_whitespaces=False, normalization_rule_name="identity",
        num_threads=1, minloglevel=2, seed_sentencepiece_size=200000)
    corpus.unlink()
    (out / "tokenizer.vocab").unlink()
    (out / "tokenizer_config.json").write_text(json.dumps(
        {"tokenizer_class": "LlamaTokenizer", "bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>",
         "add_bos_token": True, "add_eos_token": False, "model_max_length": 2048, "legacy": True}))
    (out / "special_tokens_map.json").write_text(json.dumps({"bos_token": "<s>", "eos_token": "</s>",
                                                              "unk_token": "<unk>"}))
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=32000, hidden_size=512, intermediate_size=1376, num_hidden_layers=4,
                         num_attention_heads=8, max_position_embeddings=2048, rms_norm_eps=1e-6,
                         bos_token_id=1, eos_token_id=2, pad_token_id=0, tie_word_embeddings=False)
    LlamaForCausalLM(config).to(torch.float16).save_pretrained(str(out))
    return out


if __name__ == "__main__":
    run = Path(sys.argv[1])
    text = write_alpaca(run / "yahma" / "alpaca-cleaned" / "alpaca_data_cleaned.json")
    hub_llama(run / "hf_home", text)
