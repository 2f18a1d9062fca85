"""Text, a tokenizer and a tiny BERT config for transformers' examples/pytorch/language-modeling/run_mlm.py.

Run with the transformers 4.49 venv (see recipe.toml).

- RUN/data/train.txt, RUN/data/validation.txt: 5000 / 300 lines of Zipf pseudo-word sentences (fakedata's
  pseudo_sentences, 8-30 words a line), read by the script's `text` loader (--train_file / --validation_file);
- RUN/data/tiny-bert: a BERT WordPiece tokenizer (vocabulary 4000, lower-case) trained here on train.txt with the
  tokenizers library and saved as BertTokenizerFast, and a BertConfig for a model trained from scratch
  (--config_name): 2 layers, hidden 128, 2 heads, FFN 512, 256 positions (the script builds the model with
  AutoModelForMaskedLM.from_config).
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import pseudo_sentences  # noqa: E402


def write_text(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    (folder / "train.txt").write_text("\n".join(pseudo_sentences(5000, rng)) + "\n")
    (folder / "validation.txt").write_text("\n".join(pseudo_sentences(300, rng)) + "\n")


def write_tokenizer_and_config(data: Path) -> None:
    from tokenizers import BertWordPieceTokenizer
    from transformers import BertConfig, BertTokenizerFast

    out = data / "tiny-bert"
    out.mkdir(parents=True, exist_ok=True)
    wordpiece = BertWordPieceTokenizer(lowercase=True)
    wordpiece.train([str(data / "train.txt")], vocab_size=4000, min_frequency=2, show_progress=False)
    wordpiece.save_model(str(out))  # vocab.txt
    BertTokenizerFast(vocab_file=str(out / "vocab.txt"), do_lower_case=True, model_max_length=256).save_pretrained(
        str(out))
    BertConfig(vocab_size=4000, hidden_size=128, num_hidden_layers=2, num_attention_heads=2, intermediate_size=512,
               max_position_embeddings=256).save_pretrained(str(out))


if __name__ == "__main__":
    data = Path(sys.argv[1]) / "data"
    write_text(data)
    write_tokenizer_and_config(data)
