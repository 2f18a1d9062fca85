"""Generated GUE-style DNA classification data and a small DNABERT-2 stand-in for MAGICS-LAB/DNABERT_2's finetune/train.py.

finetune/train.py reads --data_path/{train,dev,test}.csv (header `sequence,label`, one DNA string and an integer
label a row; the GUE benchmark's EMP/H3 task: 500-bp windows of yeast DNA, binary histone-mark label, 11971 / 1497 /
1497 rows) and loads tokenizer and model with from_pretrained(--model_name_or_path), zhihan1996/DNABERT-2-117M in the
repository's scripts: a byte-pair tokenizer over A/C/G/T (4096 tokens, [UNK] [CLS] [SEP] [PAD] [MASK]) and a 12-layer,
768-wide BERT (117 M parameters; ALiBi attention and GEGLU in the Hub repo's remote code).

We write, seeded:
* RUN/data/GUE/EMP/H3/{train,dev,test}.csv: N_TRAIN / N_DEV / N_TEST rows of 500-bp sequences from an order-3 Markov
  chain (genome-like k-mer statistics, GC ~0.40, some poly-A/T runs) with a label-dependent motif density, labels
  balanced 0/1 (the real task's format and sequence length; far fewer rows);
* RUN/hf_home/hub/models--zhihan1996--DNABERT-2-117M: a Hub-cache snapshot holding
  - tokenizer.json: a BPE with 4096 tokens trained here with `tokenizers` on the generated training sequences
    (the real one: BPE with 4096 tokens trained on multi-species genomes), [CLS] $A [SEP] template,
    PreTrainedTokenizerFast;
  - config.json + model.safetensors: a randomly initialised BertForMaskedLM of DNABERT-2's width (hidden 768, 12
    heads, FFN 3072, vocab 4096) but N_LAYERS layers instead of 12, plain `bert` model type (learned positions,
    GELU, no remote code: the real config's auto_map points at code on the Hub), so that the script's
    AutoModelForSequenceClassification.from_pretrained(..., trust_remote_code=True) builds BertForSequenceClassification.
"""
import json
import sys
from pathlib import Path

import numpy as np

N_TRAIN, N_DEV, N_TEST = 320, 64, 64
SEQ_BP = 500
N_LAYERS = 2
REPO = "zhihan1996/DNABERT-2-117M"
SNAPSHOT = "0" * 40
BASES = np.array(list("ACGT"))


def markov_table(rng):
    # order-3 transition probabilities, biased to AT (GC ~0.4) and with some sticky homopolymers
    base = np.array([0.30, 0.20, 0.20, 0.30])
    table = rng.dirichlet(base * 20, size=64)
    for ctx in range(64):
        last = ctx % 4
        if ctx // 4 % 4 == last:  # two equal bases in a row: more likely to continue the run
            table[ctx, last] += 0.25
            table[ctx] /= table[ctx].sum()
    return table


def sequence(rng, table, motifs, label):
    idx = np.empty(SEQ_BP, dtype=np.int64)
    idx[:3] = rng.integers(0, 4, 3)
    cum = np.cumsum(table, axis=1)
    u = rng.random(SEQ_BP)
    for i in range(3, SEQ_BP):
        ctx = idx[i - 3] * 16 + idx[i - 2] * 4 + idx[i - 1]
        idx[i] = min(int(np.searchsorted(cum[ctx], u[i])), 3)
    s = list(BASES[idx])
    for _ in range(rng.poisson(3 if label else 1)):  # label-dependent motif density
        m = motifs[rng.integers(len(motifs))]
        p = rng.integers(0, SEQ_BP - len(m))
        s[p:p + len(m)] = m
    return "".join(s)


def write_csv(path, rows):
    path.write_text("sequence,label\n" + "".join(f"{s},{y}\n" for s, y in rows))


def main(run: Path) -> None:
    rng = np.random.default_rng(0)
    table = markov_table(rng)
    motifs = ["".join(BASES[rng.integers(0, 4, rng.integers(6, 12))]) for _ in range(8)]
    out = run / "data" / "GUE" / "EMP" / "H3"
    out.mkdir(parents=True, exist_ok=True)
    splits = {}
    for name, n in (("train", N_TRAIN), ("dev", N_DEV), ("test", N_TEST)):
        labels = rng.permutation(np.arange(n) % 2)
        splits[name] = [(sequence(rng, table, motifs, int(y)), int(y)) for y in labels]
        write_csv(out / f"{name}.csv", splits[name])

    # tokenizer: BPE over the training sequences, 4096 tokens, DNABERT-2's special tokens and template
    from tokenizers import Tokenizer, models, trainers, pre_tokenizers, processors
    tok = Tokenizer(models.BPE(unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    specials = ["[UNK]", "[CLS]", "[SEP]", "[PAD]", "[MASK]"]
    trainer = trainers.BpeTrainer(vocab_size=4096, special_tokens=specials, show_progress=False,
                                  initial_alphabet=list("ACGT"))
    tok.train_from_iterator([s for s, _ in splits["train"]], trainer=trainer)
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", tok.token_to_id("[CLS]")), ("[SEP]", tok.token_to_id("[SEP]"))])
    hub = run / "hf_home" / "hub" / ("models--" + REPO.replace("/", "--"))
    snap = hub / "snapshots" / SNAPSHOT
    snap.mkdir(parents=True, exist_ok=True)
    (hub / "refs").mkdir(exist_ok=True)
    (hub / "refs" / "main").write_text(SNAPSHOT)
    tok.save(str(snap / "tokenizer.json"))
    (snap / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "PreTrainedTokenizerFast", "model_max_length": 512, "unk_token": "[UNK]",
        "cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]", "mask_token": "[MASK]"}))
    (snap / "special_tokens_map.json").write_text(json.dumps({
        "unk_token": "[UNK]", "cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]", "mask_token": "[MASK]"}))

    # model: DNABERT-2's width, fewer layers, random init
    import torch
    from transformers import BertConfig, BertForMaskedLM
    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=tok.get_vocab_size(), hidden_size=768, num_hidden_layers=N_LAYERS,
                     num_attention_heads=12, intermediate_size=3072, max_position_embeddings=512,
                     hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.0, pad_token_id=tok.token_to_id("[PAD]"),
                     architectures=["BertForMaskedLM"])
    BertForMaskedLM(cfg).save_pretrained(str(snap))
    lens = [len(tok.encode(s).ids) for s, _ in splits["train"]]
    print(f"wrote {N_TRAIN}/{N_DEV}/{N_TEST} sequences of {SEQ_BP} bp (tokens per sequence {min(lens)}-{max(lens)}, "
          f"mean {np.mean(lens):.0f}), tokenizer ({tok.get_vocab_size()} tokens), {N_LAYERS}-layer BERT under {run}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
