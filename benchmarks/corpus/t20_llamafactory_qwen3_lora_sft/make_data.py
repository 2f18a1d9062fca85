"""Qwen/Qwen3-4B-Instruct-2507 and demo-data stand-ins for hiyouga/LLaMA-Factory's
`llamafactory-cli train examples/train_lora/qwen3_lora_sft.yaml` (run with the corpus-t20-B python: tokenizers,
transformers, safetensors).

- RUN/data/identity.json and RUN/data/alpaca_en_demo.json: the two data sets the YAML names (`dataset:
  identity,alpaca_en_demo`), registered by the repository's own data/dataset_info.json (placed from the commit as
  it is: alpaca format, columns instruction / input / output). Generated pseudo-English (fakedata.pseudo_sentences,
  seeded) with the real files' shapes: identity 24 rows instead of 91 (a short question, an empty input, a
  one-or-two-sentence answer that keeps the {{name}} / {{author}} placeholders the repository's file has);
  alpaca_en_demo 72 rows instead of 999 (an instruction of one sentence, an input for ~40% of the rows, an answer of
  1-12 sentences, ~20-300 words like the real file's answers). 96 rows in all: 12 optimizer steps of 1 x 8 per epoch.
- RUN/hf_home/hub/models--Qwen--Qwen3-4B-Instruct-2507: the Hub cache layout (refs/main -> a snapshot) that
  AutoTokenizer / AutoModelForCausalLM.from_pretrained read with HF_HUB_OFFLINE=1: a randomly initialised Qwen3
  (seeded) of a small shape -- 4 layers, hidden 256, 4 query / 2 key-value heads of 64, MLP 768 -- with the real
  vocabulary size 151936 and tied input/output embeddings as in Qwen3-4B (42.0 M parameters, 38.9 M of them the
  embedding, instead of 4.0 B), saved in bfloat16 as the real checkpoint is; and a byte-level BPE tokenizer trained here on
  the generated text (asked for 8000 entries, it stops at 3679 on this little text), with Qwen's special tokens <|endoftext|> (pad), <|im_start|>,
  <|im_end|> (eos), <think>, </think> (tokenizer_class Qwen2Tokenizer).
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import hub_snapshot, pseudo_sentences  # noqa: E402

MODEL = "Qwen/Qwen3-4B-Instruct-2507"
SNAPSHOT = "cdbee75f17c01a7cc42f958dc650907174af0554"  # any fixed revision id: the cache's refs/main points at it
N_IDENTITY, N_ALPACA = 24, 72
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<think>", "</think>"]


def paragraph(rng: np.random.Generator, k: int) -> str:
    return " ".join(pseudo_sentences(k, rng, min_words=6, max_words=26))


def write_data(folder: Path) -> list[str]:
    rng = np.random.default_rng(0)
    folder.mkdir(parents=True, exist_ok=True)
    identity = []
    for question in pseudo_sentences(N_IDENTITY, rng, min_words=2, max_words=8):
        answer = (f"I am {{{{name}}}}, an AI assistant developed by {{{{author}}}}. "
                  + paragraph(rng, int(rng.integers(1, 3))))
        identity.append({"instruction": question[:-1] + "?", "input": "", "output": answer})
    alpaca = []
    for instruction in pseudo_sentences(N_ALPACA, rng, min_words=5, max_words=20):
        given = paragraph(rng, int(rng.integers(1, 3))) if rng.random() < 0.4 else ""
        alpaca.append({"instruction": instruction, "input": given, "output": paragraph(rng, int(rng.integers(1, 13)))})
    (folder / "identity.json").write_text(json.dumps(identity, indent=2, ensure_ascii=False))
    (folder / "alpaca_en_demo.json").write_text(json.dumps(alpaca, indent=2, ensure_ascii=False))
    return [" ".join(r.values()) for r in identity + alpaca]


def write_qwen3(hf_home: Path, text: list[str]) -> None:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen3Config, Qwen3ForCausalLM

    out = hub_snapshot(hf_home, MODEL, SNAPSHOT)
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    bpe.train_from_iterator(text, trainers.BpeTrainer(vocab_size=8000, special_tokens=SPECIAL, show_progress=False,
                                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
    tok = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                  additional_special_tokens=SPECIAL[1:], model_max_length=262144)
    tok.save_pretrained(str(out))
    config_path = out / "tokenizer_config.json"
    cfg = json.loads(config_path.read_text())
    cfg.update(tokenizer_class="Qwen2Tokenizer", padding_side="right", split_special_tokens=False)
    config_path.write_text(json.dumps(cfg, indent=2))
    torch.manual_seed(0)
    config = Qwen3Config(vocab_size=151936, hidden_size=256, intermediate_size=768, num_hidden_layers=4,
                         num_attention_heads=4, num_key_value_heads=2, head_dim=64, max_position_embeddings=262144,
                         rope_theta=5000000.0, tie_word_embeddings=True, bos_token_id=151643, eos_token_id=151645,
                         torch_dtype="bfloat16")
    Qwen3ForCausalLM(config).to(torch.bfloat16).save_pretrained(str(out))


if __name__ == "__main__":
    run = Path(sys.argv[1])
    write_qwen3(run / "hf_home", write_data(run / "data"))
