"""trl-lib/ultrafeedback_binarized and Qwen/Qwen2-0.5B-Instruct stand-ins for huggingface/trl's
examples/scripts/reward_modeling.py (run with the corpus-t16-H python: datasets/pyarrow, tokenizers, transformers).

- RUN/trl-lib/ultrafeedback_binarized: the script's load_dataset("trl-lib/ultrafeedback_binarized") runs in the
  run folder (the recipe's cwd), where a local directory of that name comes before the Hub. Laid out as a Hub
  dataset repository: a README.md whose YAML `configs` names the default config's data files and whose
  `dataset_info` gives the Hub dataset's features (chosen and rejected: lists of {content, role} messages, a user
  turn then an assistant turn; score_chosen, score_rejected: float64), and data/{train,test}-00000-of-00001.parquet.
  The prompt is 1-3 sentences of Zipf pseudo-words (fakedata.pseudo_sentences, seeded), each answer 1-6 sentences;
  chosen and rejected share the prompt, as in UltraFeedback. 400 / 64 rows instead of 62135 / 1000: 50 training
  steps of 8 pairs (one epoch), 8 evaluation batches. Conversations are ~60-300 tokens (UltraFeedback's are
  ~100-1500 with Qwen's tokenizer): the collator pads each batch to its longest.
- RUN/hf_home/hub/models--Qwen--Qwen2-0.5B-Instruct: the Hub cache layout (refs/main -> a snapshot) that
  AutoModelForSequenceClassification / AutoTokenizer.from_pretrained read with HF_HUB_OFFLINE=1: a randomly
  initialised (seeded) Qwen2ForCausalLM of a small shape (hidden 256, 4 layers, 4 heads with 2 key/value heads,
  MLP 1408, tied embeddings, 6.2 M parameters, rope_theta 1e6: Qwen2-0.5B's proportions at hidden 256 instead of 896 and 4 layers
  instead of 24) with config.json + model.safetensors (the score head is made by from_pretrained, as with the real
  checkpoint), and a byte-level BPE tokenizer trained here on the generated text (asked for 8000 entries; the pseudo-words
  yield 4059), with Qwen2's special
  tokens (<|endoftext|> pad, <|im_start|>, <|im_end|> eos) and Qwen2-Instruct's ChatML chat template.
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import hub_snapshot, pseudo_sentences  # noqa: E402

SPLITS = {"train": 400, "test": 64}
MODEL = "Qwen/Qwen2-0.5B-Instruct"
SNAPSHOT = "c540970f9e29518b1d8f06ab8b24cba66ad77b6d"  # any fixed revision id: the cache's refs/main points at it
VOCAB = 8000
CHAT_TEMPLATE = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n' }}{% endif %}"
    "{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}")

README = "\n".join(
    ["---", "configs:", "- config_name: default", "  data_files:",
     "  - split: train", "    path: data/train-*", "  - split: test", "    path: data/test-*",
     "dataset_info:", "  features:"]
    + [line for col in ("chosen", "rejected") for line in
       (f"  - name: {col}", "    list:", "    - name: content", "      dtype: string",
        "    - name: role", "      dtype: string")]
    + ["  - name: score_chosen", "    dtype: float64", "  - name: score_rejected", "    dtype: float64", "---", ""])


def write_ultrafeedback(folder: Path) -> list[str]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    (folder / "data").mkdir(parents=True, exist_ok=True)
    (folder / "README.md").write_text(README)
    rng = np.random.default_rng(0)
    total = sum(SPLITS.values())
    pool = pseudo_sentences(total * 18, rng, min_words=6, max_words=28)  # one lexicon for the whole set
    at = 0

    def take(k: int) -> str:
        nonlocal at
        at += k
        return " ".join(pool[at - k:at])

    msg = pa.list_(pa.struct([("content", pa.string()), ("role", pa.string())]))
    texts = []
    for split, n in SPLITS.items():
        chosen, rejected, s_chosen, s_rejected = [], [], [], []
        for _ in range(n):
            prompt = take(int(rng.integers(1, 4)))
            if rng.random() < 0.5:
                prompt = prompt[:-1] + "?"
            a, b = take(int(rng.integers(1, 7))), take(int(rng.integers(1, 7)))
            chosen.append([{"content": prompt, "role": "user"}, {"content": a, "role": "assistant"}])
            rejected.append([{"content": prompt, "role": "user"}, {"content": b, "role": "assistant"}])
            hi = float(rng.choice([3.0, 3.5, 4.0, 4.5, 5.0]))
            s_chosen.append(hi)
            s_rejected.append(float(rng.choice([1.0, 1.5, 2.0, 2.5, hi - 0.5])))
            texts += [prompt, a, b]
        table = pa.table({"chosen": pa.array(chosen, msg), "rejected": pa.array(rejected, msg),
                          "score_chosen": pa.array(s_chosen, pa.float64()),
                          "score_rejected": pa.array(s_rejected, pa.float64())})
        pq.write_table(table, folder / "data" / f"{split}-00000-of-00001.parquet")
    return texts


def hub_qwen2(hf_home: Path, text: list[str]) -> Path:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    out = hub_snapshot(hf_home, MODEL, SNAPSHOT)

    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=VOCAB, special_tokens=specials, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    bpe.train_from_iterator(text + ["system user assistant You are a helpful assistant.\n"], trainer=trainer)
    tok = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                  unk_token=None, bos_token=None, model_max_length=32768)
    tok.chat_template = CHAT_TEMPLATE
    tok.save_pretrained(str(out))

    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=len(tok), hidden_size=256, num_hidden_layers=4, num_attention_heads=4,
                         num_key_value_heads=2, intermediate_size=1408, max_position_embeddings=32768,
                         rope_theta=1000000.0, tie_word_embeddings=True, bos_token_id=tok.convert_tokens_to_ids(
                             "<|endoftext|>"), eos_token_id=tok.convert_tokens_to_ids("<|im_end|>"))
    Qwen2ForCausalLM(config).save_pretrained(str(out))
    return out


if __name__ == "__main__":
    run = Path(sys.argv[1])
    texts = write_ultrafeedback(run / "trl-lib" / "ultrafeedback_binarized")
    hub_qwen2(run / "hf_home", texts)
