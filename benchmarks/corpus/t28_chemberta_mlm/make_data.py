"""Generated SMILES corpus, SMILES BPE tokenizer and the nlp "text" loader for ChemBERTa's train_roberta.py (mlm).

train_roberta.py --model_type=mlm reads --dataset_path, a text file of SMILES strings one per line (the repository's
test_mlm.sh uses chemberta/data/pubchem_1k_smiles.txt: 999 PubChem SMILES, 8-150 characters, mean ~44; the paper's
runs used PubChem-77M shards), through RawTextDataset: the old `nlp` library's load_dataset("text") and, per item, the
tokenizer RobertaTokenizerFast.from_pretrained(--tokenizer_path) (default the Hub repo
seyonec/SMILES_tokenized_PubChem_shard00_160k, a byte-level BPE with a ~600-token vocabulary trained on PubChem SMILES).

We write, seeded:
* RUN/data/pubchem_smiles_gen.txt: N_LINES random SMILES-like strings built from a small fragment grammar (aliphatic
  chains, aromatic rings with ring-closure digits, branches, =O, halogens, charged atoms, stereo marks) with a
  log-normal length (median ~40 characters, clipped to 8..150), like the PubChem sample;
* RUN/hf_home/hub/models--seyonec--SMILES_tokenized_PubChem_shard00_160k: a Hub-cache snapshot holding a byte-level BPE
  (vocab.json + merges.txt, 591 tokens with <s> <pad> </s> <unk> <mask>, model_max_length 512) trained here with the
  `tokenizers` library on those generated SMILES, in place of the real one (same kind and about the same size);
* RUN/hf_home/datasets/<sha256 of the nlp S3 url of text.py>.py: the `nlp` package's own bundled "text" builder
  script, copied from the installed nlp 0.4.0, where nlp's cached_path looks when the S3 bucket cannot be reached
  (nlp 0.4.0 fetches the script of load_dataset("text") from s3.amazonaws.com at every call, otherwise).
"""
import glob
import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

import numpy as np

N_LINES = 800
REPO = "seyonec/SMILES_tokenized_PubChem_shard00_160k"
SNAPSHOT = "0" * 40

ALIPH = ["C", "C", "C", "C", "N", "O", "S", "F", "Cl", "Br", "[NH+]", "[NH2+]", "[O-]", "[C@H]", "[C@@H]", "N", "O"]
AROM = ["c1ccccc1", "c1ccncc1", "c1ccc2ccccc2c1", "c1ccsc1", "c1ccoc1", "n1cccc1", "c1cnc[nH]1", "c1ccc(F)cc1",
        "c1ccc(Cl)cc1", "c1ccc(O)cc1", "C1CCCCC1", "C1CCNCC1", "C1CCOCC1", "C1CC1", "c1nnc[nH]1"]
BRANCH = ["(C)", "(=O)", "(O)", "(N)", "(F)", "(C(=O)O)", "(CC)", "(OC)", "(=O)N", "(C#N)", "(Cl)", "(C(F)(F)F)"]


def smiles(rng: np.random.Generator) -> str:
    target = int(np.clip(rng.lognormal(np.log(40), 0.45), 8, 150))
    out, ring = [], 1
    while sum(map(len, out)) < target:
        r = rng.random()
        if r < 0.45:
            out.append(ALIPH[rng.integers(len(ALIPH))])
        elif r < 0.7:
            frag = AROM[rng.integers(len(AROM))]
            if "2" not in frag:  # renumber the ring closure so that fused/consecutive rings differ
                frag = frag.replace("1", str(ring % 9 + 1))
            ring += 1
            out.append(frag)
        elif r < 0.9:
            out.append(BRANCH[rng.integers(len(BRANCH))])
        else:
            out.append(["=", "#", "/", "\\"][rng.integers(4)] + "C")
    s = "".join(out)
    return s[:150]


def main(run: Path) -> None:
    rng = np.random.default_rng(0)
    lines = [smiles(rng) for _ in range(N_LINES)]
    (run / "data").mkdir(parents=True, exist_ok=True)
    (run / "data" / "pubchem_smiles_gen.txt").write_text("\n".join(lines) + "\n")

    # the tokenizer, as a Hub-cache snapshot of REPO
    from tokenizers import ByteLevelBPETokenizer
    tok = ByteLevelBPETokenizer()
    tok.train_from_iterator(lines, vocab_size=591, min_frequency=2,
                            special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"], show_progress=False)
    hub = run / "hf_home" / "hub" / ("models--" + REPO.replace("/", "--"))
    snap = hub / "snapshots" / SNAPSHOT
    snap.mkdir(parents=True, exist_ok=True)
    (hub / "refs").mkdir(exist_ok=True)
    (hub / "refs" / "main").write_text(SNAPSHOT)
    tok.save_model(str(snap))
    (snap / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "RobertaTokenizer", "model_max_length": 512, "bos_token": "<s>", "eos_token": "</s>",
        "sep_token": "</s>", "cls_token": "<s>", "unk_token": "<unk>", "pad_token": "<pad>", "mask_token": "<mask>",
        "add_prefix_space": False, "errors": "replace"}))
    (snap / "special_tokens_map.json").write_text(json.dumps({
        "bos_token": "<s>", "eos_token": "</s>", "sep_token": "</s>", "cls_token": "<s>", "unk_token": "<unk>",
        "pad_token": "<pad>", "mask_token": "<mask>"}))

    # nlp 0.4.0's bundled "text" builder where its offline cached_path finds it
    import nlp
    url = "https://s3.amazonaws.com/datasets.huggingface.co/nlp/datasets/text/text.py"
    src = glob.glob(os.path.join(os.path.dirname(nlp.__file__), "datasets", "text", "*", "text.py"))[0]
    (run / "hf_home" / "datasets").mkdir(parents=True, exist_ok=True)
    shutil.copy(src, run / "hf_home" / "datasets" / (hashlib.sha256(url.encode()).hexdigest() + ".py"))
    print(f"wrote {N_LINES} SMILES, tokenizer ({tok.get_vocab_size()} tokens) and nlp's text.py under {run}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
