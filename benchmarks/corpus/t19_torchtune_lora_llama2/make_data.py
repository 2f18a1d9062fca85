"""Alpaca-cleaned and Llama-2-7b-hf stand-ins for pytorch/torchtune's recipes/lora_finetune_single_device.py with
recipes/configs/llama2/7B_lora_single_device.yaml (run with the corpus-t19-F python: torchtune, sentencepiece,
safetensors, datasets).

- RUN/yahma/alpaca-cleaned/alpaca_data_cleaned.json: the config's dataset, torchtune.datasets.alpaca_cleaned_dataset,
  calls load_dataset("yahma/alpaca-cleaned", split="train"); run from the run folder (the recipe's cwd), a local
  directory of that name comes before the Hub. One JSON file with the Hub file's name and its columns (instruction,
  input, output). 256 generated records instead of 51,760: an instruction of 5-20 Zipf pseudo-words ending in "?"
  or ".", an input (40% of the records, as in the real set) of 1-3 sentences, and an output of 1-8 sentences of 6-30
  pseudo-words (fakedata.pseudo_sentences, seeded): 174 tokens a sample on average after the Alpaca prompt
  template (median 169, p10 100, p90 260, max 311; the real set's samples are of the same order). With batch_size 2 and
  gradient_accumulation_steps 8 that is 128 forward/backward passes and 16 optimizer steps in the config's 1 epoch.
- RUN/Llama-2-7b-hf: what `tune download meta-llama/Llama-2-7b-hf` leaves and the config reads with
  FullModelHFCheckpointer (model_type LLAMA2): config.json, model-00001-of-00002.safetensors and
  model-00002-of-00002.safetensors (HF key names, made with torchtune's own tune_to_hf from a randomly initialised
  torchtune.models.llama2.llama2 of the size the recipe's model overrides give: vocab 32000 as Llama-2, 4 layers,
  8 heads, embed_dim 256, intermediate_dim 768, max_seq_len 4096 -- 11.6 M parameters instead of 6.7 B), and a
  tokenizer.model: a SentencePiece BPE model of 4000 pieces (unk 0, bos 1, eos 2, byte fallback, as Llama-2's)
  trained here on the generated records.
"""
import io
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import pseudo_sentences, pseudo_words  # noqa: E402

N_RECORDS = 256
MODEL = dict(vocab_size=32000, num_layers=4, num_heads=8, num_kv_heads=8, embed_dim=256, intermediate_dim=768,
             max_seq_len=4096)


def records(rng: np.random.Generator) -> list[dict]:
    n_words = rng.integers(5, 21, N_RECORDS)
    has_input = rng.random(N_RECORDS) < 0.4
    n_in = rng.integers(1, 4, N_RECORDS) * has_input
    n_out = rng.integers(1, 9, N_RECORDS)
    words = pseudo_words(int(n_words.sum()), rng)
    inputs = pseudo_sentences(int(n_in.sum()), rng, 5, 25)
    outputs = pseudo_sentences(int(n_out.sum()), rng, 6, 30)
    out, w, i, o = [], 0, 0, 0
    for k in range(N_RECORDS):
        instruction = " ".join(words[w:w + n_words[k]]).capitalize() + ("?" if rng.random() < 0.3 else ".")
        text_in = " ".join(inputs[i:i + n_in[k]])
        output = " ".join(outputs[o:o + n_out[k]])
        w, i, o = w + n_words[k], i + n_in[k], o + n_out[k]
        out.append({"instruction": instruction, "input": text_in, "output": output})
    return out


def write_alpaca(folder: Path, rows: list[dict]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "alpaca_data_cleaned.json").write_text(json.dumps(rows, indent=1))


def write_tokenizer(path: Path, rows: list[dict]) -> None:
    import sentencepiece as spm

    text = [r[k] for r in rows for k in ("instruction", "input", "output") if r[k]]
    text += ["Below is an instruction that describes a task. Write a response that appropriately completes the request.",
             "### Instruction:", "### Input:", "### Response:"]
    model = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(text), model_writer=model, vocab_size=4000,
                                   model_type="bpe", unk_id=0, bos_id=1, eos_id=2, pad_id=-1, byte_fallback=True,
                                   character_coverage=1.0, num_threads=1, minloglevel=2)
    path.write_bytes(model.getvalue())


def write_checkpoint(folder: Path) -> None:
    import torch
    from safetensors.torch import save_file
    from torchtune.models.convert_weights import tune_to_hf
    from torchtune.models.llama2 import llama2

    torch.manual_seed(0)
    model = llama2(**MODEL)
    state = tune_to_hf({k: v.detach().clone().contiguous() for k, v in model.state_dict().items()},
                       num_heads=MODEL["num_heads"], num_kv_heads=MODEL["num_kv_heads"], dim=MODEL["embed_dim"])
    keys = sorted(state)
    half = len(keys) // 2
    index = {}
    for i, part in enumerate((keys[:half], keys[half:]), start=1):
        name = f"model-0000{i}-of-00002.safetensors"
        save_file({k: state[k].contiguous() for k in part}, str(folder / name), metadata={"format": "pt"})
        index.update({k: name for k in part})
    (folder / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": index}, indent=1))
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "vocab_size": MODEL["vocab_size"],
              "hidden_size": MODEL["embed_dim"], "intermediate_size": MODEL["intermediate_dim"],
              "num_hidden_layers": MODEL["num_layers"], "num_attention_heads": MODEL["num_heads"],
              "num_key_value_heads": MODEL["num_kv_heads"], "max_position_embeddings": MODEL["max_seq_len"],
              "rms_norm_eps": 1e-5, "bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 0,
              "hidden_act": "silu", "torch_dtype": "float32", "tie_word_embeddings": False}
    (folder / "config.json").write_text(json.dumps(config, indent=1))


if __name__ == "__main__":
    run = Path(sys.argv[1])
    rows = records(np.random.default_rng(0))
    write_alpaca(run / "yahma" / "alpaca-cleaned", rows)
    ckpt = run / "Llama-2-7b-hf"
    ckpt.mkdir(parents=True, exist_ok=True)
    write_tokenizer(ckpt / "tokenizer.model", rows)
    write_checkpoint(ckpt)
