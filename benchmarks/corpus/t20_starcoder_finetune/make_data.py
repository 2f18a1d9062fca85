"""ArmelR/stack-exchange-instruction and bigcode/starcoder stand-ins for bigcode-project/starcoder's
finetune/finetune.py (run with the corpus-t20-F python: datasets/pyarrow, tokenizers, transformers).

- RUN/ArmelR/stack-exchange-instruction/data/finetune/train-0000{0,1}-of-00002.parquet: the README's
  load_dataset("ArmelR/stack-exchange-instruction", data_dir="data/finetune", split="train", streaming=True) runs in
  the repository root (the recipe's cwd), where a local directory of that name comes before the Hub. The Hub
  dataset's columns (qid, question, date, metadata, response): 600 generated Stack-Exchange-like rows, a question of
  1-4 pseudo-English sentences around a code fragment and an answer of 1-3 sentences plus a 4-20 line Python-like
  function (pseudo-word identifiers, seeded). The script streams it: take(size_valid_set) for validation, skip() the
  rest for training with a 5000-row shuffle buffer, packed into 2048-token chunks by its ConstantLengthDataset.
- RUN/hf_home/hub/models--bigcode--starcoder: the Hub cache layout (refs/main -> a snapshot), which
  AutoTokenizer / AutoModelForCausalLM.from_pretrained read with HF_HUB_OFFLINE=1: a randomly initialised
  GPTBigCode (StarCoder's architecture: multi-query attention, learned positions, GELU MLP of 4x, tied lm_head) of a
  tiny size -- 4 layers, n_embd 256, 8 heads, n_positions 8192 -- instead of 40 layers / 6144 / 48 heads (15.5 B
  parameters, impossible on this CPU), and a byte-level BPE tokenizer of 8192 entries trained here on the generated
  text (StarCoder's has 49152) with StarCoder's special token <|endoftext|> as bos/eos/unk.
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import hub_snapshot, pseudo_sentences, pseudo_words  # noqa: E402

ROWS = 600
MODEL = "bigcode/starcoder"
SNAPSHOT = "6f4b2ea8c3e1d4a7b9f0c2d5e8a1b4c7d0e3f6a9"  # any fixed revision id: the cache's refs/main points at it
VOCAB = 8192
EOS = "<|endoftext|>"


def code_block(rng: np.random.Generator, names: list[str]) -> str:
    """A Python-like function of 4-20 lines with pseudo-word identifiers."""
    pick = lambda: names[int(rng.integers(0, len(names)))]  # noqa: E731
    args = ", ".join(pick() for _ in range(int(rng.integers(0, 4))))
    lines = [f"def {pick()}_{pick()}({args}):"]
    depth = 1
    for _ in range(int(rng.integers(3, 20))):
        kind = rng.random()
        ind = "    " * depth
        if kind < 0.35:
            lines.append(f"{ind}{pick()} = {pick()}.{pick()}({pick()}, {int(rng.integers(0, 100))})")
        elif kind < 0.5 and depth < 3:
            lines.append(f"{ind}for {pick()} in range(len({pick()})):")
            depth += 1
        elif kind < 0.62 and depth < 3:
            lines.append(f"{ind}if {pick()} {'<>='[int(rng.integers(0, 3))]}= {pick()}:")
            depth += 1
        elif kind < 0.75:
            lines.append(f"{ind}{pick()}.append({pick()}[{int(rng.integers(0, 10))}])")
        elif kind < 0.85 and depth > 1:
            lines.append(f"{ind}{pick()} += {int(rng.integers(1, 10))}")
            depth -= 1
        else:
            lines.append(f"{ind}print(\"{pick()} {pick()}\", {pick()})")
    lines.append(f"    return {pick()}")
    return "\n".join(lines)


def rows(rng: np.random.Generator) -> dict:
    names = pseudo_words(20000, rng, vocab=800)
    pool = iter(pseudo_sentences(ROWS * 7, rng, min_words=6, max_words=25))  # one lexicon for all the prose
    qs, rs = [], []
    for i in range(ROWS):
        q = " ".join(next(pool) for _ in range(int(rng.integers(1, 5))))
        if rng.random() < 0.6:
            q += "\n\n```python\n" + code_block(rng, names) + "\n```\n\nWhy does this fail?"
        r = " ".join(next(pool) for _ in range(int(rng.integers(1, 4))))
        r += "\n\n```python\n" + code_block(rng, names) + "\n```"
        qs.append(q)
        rs.append(r)
    return {"qid": list(range(1000, 1000 + ROWS)), "question": qs,
            "date": [f"20{int(rng.integers(10, 23)):02d}/0{int(rng.integers(1, 10))}/1{int(rng.integers(0, 10))}"
                     for _ in range(ROWS)],
            "metadata": [[f"https://stackoverflow.com/questions/{1000 + i}"] for i in range(ROWS)],
            "response": rs}


def write_dataset(folder: Path, table: dict) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    out = folder / "data" / "finetune"
    out.mkdir(parents=True, exist_ok=True)
    t = pa.table({"qid": pa.array(table["qid"], pa.int64()), "question": pa.array(table["question"], pa.string()),
                  "date": pa.array(table["date"], pa.string()),
                  "metadata": pa.array(table["metadata"], pa.list_(pa.string())),
                  "response": pa.array(table["response"], pa.string())})
    half = ROWS // 2
    pq.write_table(t.slice(0, half), out / "train-00000-of-00002.parquet")
    pq.write_table(t.slice(half), out / "train-00001-of-00002.parquet")


def write_model(hf_home: Path, text: list[str]) -> None:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import GPTBigCodeConfig, GPTBigCodeForCausalLM

    out = hub_snapshot(hf_home, MODEL, SNAPSHOT)
    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=VOCAB, special_tokens=[EOS], show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(text, trainer)
    tok.save(str(out / "tokenizer.json"))
    (out / "tokenizer_config.json").write_text(json.dumps(
        {"tokenizer_class": "PreTrainedTokenizerFast", "bos_token": EOS, "eos_token": EOS, "unk_token": EOS,
         "model_max_length": 8192, "add_prefix_space": False}))
    (out / "special_tokens_map.json").write_text(json.dumps({"bos_token": EOS, "eos_token": EOS, "unk_token": EOS}))
    torch.manual_seed(0)
    config = GPTBigCodeConfig(vocab_size=tok.get_vocab_size(), n_positions=8192, n_embd=256, n_layer=4, n_head=8,
                              n_inner=1024, multi_query=True, activation_function="gelu_pytorch_tanh",
                              bos_token_id=0, eos_token_id=0, scale_attention_softmax_in_fp32=True,
                              attention_softmax_in_fp32=True)
    GPTBigCodeForCausalLM(config).save_pretrained(str(out))


if __name__ == "__main__":
    run = Path(sys.argv[1])
    rng = np.random.default_rng(0)
    table = rows(rng)
    write_dataset(run / "ArmelR" / "stack-exchange-instruction", table)
    text = [f"Question: {q}\n\nAnswer: {r}" for q, r in zip(table["question"], table["response"])]
    write_model(run / "hf_home", text)
