"""Data, text-encoder and config stand-ins for lucidrains/imagen-pytorch's `imagen train` command line
(imagen_pytorch/cli.py; run with the corpus-t18-E python: datasets/pyarrow, sentencepiece, transformers).

- RUN/imagen.py: the `imagen` console script that `pip install imagen-pytorch` makes from setup.py's entry point
  `imagen = imagen_pytorch.cli:imagen` (so that the run folder's imagen_pytorch/, at the recipe's commit, is the one
  imported; the package itself is not installed in the venv).
- RUN/imagen_config.json: the file `imagen config` writes (imagen_pytorch/default_config.json), edited as a user
  would for a CPU-sized run: one base Unet of the README's size (dim 32, cond_dim 512, dim_mults 1-2-4-8, 3 resnet
  blocks, attention and cross-attention at the 3 lower levels) at 64x64 instead of the 3-Unet 64/256/1024 cascade
  (dim 512/128/128), text encoder google/t5-v1_1-small instead of -large, dataset ./laion_mini (a local image
  folder with a text column, image_label "image", no URL download) instead of laion/laion2B-en, batch_size 16
  instead of 2048. Everything else as the default config (lr 1e-4, timesteps 1024, cond_drop_prob 0.1, no
  max_batch_size: the command line then splits each batch into chunks of 1, sample/save/validate every 100/1000),
  plus "split_valid_from_train": true in the trainer table: without it cli.py line 184 computes `i % valid_at_every`
  with valid_at_every 0 and dies with ZeroDivisionError at the end of the first epoch (a bug of the published CLI;
  with it, 2.5% of the pictures, 4 of 128, are held out for a validation loader that 1 epoch never uses).
- RUN/laion_mini: an `imagefolder` dataset (train/*.jpg + train/metadata.jsonl with file_name, text): 128 smooth
  noisy JPEG pictures of 192-320 x 192-320 (fakedata.write_jpeg, seeded) with captions of 5-20 pseudo-words.
- RUN/hf_home/hub/models--google--t5-v1_1-small: the Hub cache layout read by T5Config / T5EncoderModel /
  T5Tokenizer.from_pretrained with HF_HUB_OFFLINE=1: a randomly initialised T5 v1.1 of t5-v1_1-small's shape
  (d_model 512, d_ff 1024, 8 layers, 6 heads, d_kv 64, gated-gelu, vocabulary 32128; saved as T5ForConditionalGeneration
  like the real checkpoint) and a T5 tokenizer (tokenizer.json: a sentencepiece unigram vocabulary trained here on the captions, 243 pieces
  as the pseudo-words allow, pad 0, </s> 1, <unk> 2 as T5's, plus the 100 <extra_id_N>).
- RUN/hf_home/hub/models--google--t5-v1_1-base: its config.json only (d_model 768), which imagen_pytorch reads when
  it is imported (t5.DEFAULT_T5_NAME, the default text_embed_dim of Unet/Unet3D); its weights are never loaded.
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import hub_snapshot, pseudo_sentences, write_jpeg  # noqa: E402

N_IMAGES = 128
BATCH = 16
T5_NAME = "google/t5-v1_1-small"
SNAPSHOT = "1b0a5b0d1b1e0d5c5e2a3d7c6f8e9a0b1c2d3e4f"  # any fixed revision id: the cache's refs/main points at it

LAUNCHER = """# -*- coding: utf-8 -*-
import re
import sys
from imagen_pytorch.cli import imagen
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit(imagen())
"""


def config() -> dict:
    return {
        "type": "original",
        "imagen": {
            "video": False,
            "timesteps": [1024],
            "image_sizes": [64],
            "random_crop_sizes": [None],
            "condition_on_text": True,
            "cond_drop_prob": 0.1,
            "text_encoder_name": T5_NAME,
            "unets": [{
                "dim": 32,
                "cond_dim": 512,
                "dim_mults": [1, 2, 4, 8],
                "num_resnet_blocks": 3,
                "layer_attns": [False, True, True, True],
                "layer_cross_attns": [False, True, True, True],
                "attn_heads": 8,
            }],
        },
        "trainer": {"lr": 1e-4, "split_valid_from_train": True},
        "dataset_name": "./laion_mini",
        "dataset": {"batch_size": BATCH, "shuffle": True},
        "image_label": "image",
        "url_label": None,
        "text_label": "text",
        "checkpoint_path": "./imagen.pt",
        "sample_at_every": 100,
        "save_at_every": 1000,
        "validate_at_every": 1000,
        "sample_texts": [
            "Three spheres made of glass falling into ocean. Water is splashing. Sun is setting.",
            "A dragon fruit wearing karate belt in the snow.",
        ],
    }


def write_images(folder: Path, rng: np.random.Generator) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    captions = pseudo_sentences(N_IMAGES, rng, min_words=5, max_words=20)
    with open(folder / "metadata.jsonl", "w") as f:
        for i, text in enumerate(captions):
            h, w = (int(v) for v in rng.integers(192, 321, 2))
            write_jpeg(folder / f"{i:05d}.jpg", h, w, rng)
            f.write(json.dumps({"file_name": f"{i:05d}.jpg", "text": text}) + "\n")
    return captions


def hub_t5(hf_home: Path, text: list[str]) -> None:
    import sentencepiece as spm
    import torch
    from transformers import T5Config, T5ForConditionalGeneration, T5Tokenizer

    out = hub_snapshot(hf_home, T5_NAME, SNAPSHOT)
    (out / "corpus.txt").write_text("\n".join(text) + "\n")
    spm.SentencePieceTrainer.train(input=str(out / "corpus.txt"), model_prefix=str(out / "spiece"), vocab_size=1000,
                                   model_type="unigram", pad_id=0, eos_id=1, unk_id=2, bos_id=-1,
                                   character_coverage=1.0, hard_vocab_limit=False, minloglevel=2)
    (out / "corpus.txt").unlink()
    (out / "spiece.vocab").unlink()
    # transformers 5's T5Tokenizer is the tokenizers-backed one: give it the pieces and scores, save tokenizer.json
    sp = spm.SentencePieceProcessor(model_file=str(out / "spiece.model"))
    pieces = [(sp.id_to_piece(i), sp.get_score(i)) for i in range(sp.get_piece_size())]
    (out / "spiece.model").unlink()
    T5Tokenizer(vocab=pieces, extra_ids=100, model_max_length=512).save_pretrained(str(out))
    torch.manual_seed(0)
    cfg = T5Config(vocab_size=32128, d_model=512, d_kv=64, d_ff=1024, num_layers=8, num_decoder_layers=8,
                   num_heads=6, feed_forward_proj="gated-gelu", tie_word_embeddings=False, dropout_rate=0.0)
    T5ForConditionalGeneration(cfg).save_pretrained(str(out))
    # imagen_pytorch reads google/t5-v1_1-base's config at import (Unet/Unet3D's default text_embed_dim): config only
    base = hub_snapshot(hf_home, "google/t5-v1_1-base", SNAPSHOT)
    T5Config(vocab_size=32128, d_model=768, d_kv=64, d_ff=2048, num_layers=12, num_decoder_layers=12, num_heads=12,
             feed_forward_proj="gated-gelu", tie_word_embeddings=False).save_pretrained(str(base))


if __name__ == "__main__":
    run = Path(sys.argv[1])
    rng = np.random.default_rng(0)
    captions = write_images(run / "laion_mini" / "train", rng)
    hub_t5(run / "hf_home", captions)
    (run / "imagen_config.json").write_text(json.dumps(config(), indent=4) + "\n")
    (run / "imagen.py").write_text(LAUNCHER)
