"""MushanW/GLOBE and charactr/vocos-mel-24khz stand-ins for lucidrains/e2-tts-pytorch's train_example.py (run with
the corpus-t23-C python: datasets 3.6 / pyarrow / soundfile, vocos).

- RUN/MushanW/GLOBE: train_example.py calls load_dataset("MushanW/GLOBE") from the run folder, where a local
  directory of that path comes before the Hub. Laid out as a Hub dataset repository: a README.md whose YAML
  `configs` names the default config's train and test parquet files, and data/{train,test}-00000-of-00001.parquet
  written by datasets (Dataset.from_dict + cast_column("audio", Audio()) + to_parquet, so the parquet carries the
  Audio feature and each row decodes to {'path', 'array', 'sampling_rate'} as on the Hub). Columns as the Hub
  dataset's: audio (24 kHz mono WAV bytes), speaker_id, transcript, accent, age, gender, duration. N_TRAIN / N_TEST
  clips of 0.4-1.2 s (GLOBE's are ~2-20 s, ~7 s on average: see the recipe) of a few decaying harmonic tones plus
  noise (seeded), transcripts of 2-8 pseudo-words (fakedata.pseudo_sentences).
- RUN/hf_home/hub/models--charactr--vocos-mel-24khz: the Hub cache layout (refs/main -> a snapshot) that
  Vocos.from_pretrained reads with HF_HUB_OFFLINE=1: the real model's config.yaml (MelSpectrogramFeatures 24 kHz /
  100 mels, VocosBackbone dim 512 / 1536 / 8 layers, ISTFTHead) and a pytorch_model.bin of a randomly initialised
  (seeded) Vocos of that config (13.5 M parameters, as the real one).
"""
import io
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import hub_snapshot, pseudo_sentences  # noqa: E402

N_TRAIN, N_TEST = 320, 32
RATE = 24_000
VOCOS = "charactr/vocos-mel-24khz"
SNAPSHOT = "0feb3fdd929bcd6649e0e7c5a688cf7dd012ef21"  # any fixed revision id: the cache's refs/main points at it

VOCOS_CONFIG = """feature_extractor:
  class_path: vocos.feature_extractors.MelSpectrogramFeatures
  init_args:
    sample_rate: 24000
    n_fft: 1024
    hop_length: 256
    n_mels: 100
    padding: center

backbone:
  class_path: vocos.models.VocosBackbone
  init_args:
    input_channels: 100
    dim: 512
    intermediate_dim: 1536
    num_layers: 8

head:
  class_path: vocos.heads.ISTFTHead
  init_args:
    dim: 512
    n_fft: 1024
    hop_length: 256
    padding: same
"""

README = """---
configs:
- config_name: default
  data_files:
  - split: train
    path: data/train-*
  - split: test
    path: data/test-*
---
# GLOBE (generated stand-in)
"""


def clip(rng: np.random.Generator, seconds: float) -> np.ndarray:
    n = int(seconds * RATE)
    t = np.arange(n) / RATE
    f0 = rng.uniform(90, 260)
    wave = sum(rng.uniform(0.1, 0.5) / k * np.sin(2 * np.pi * k * f0 * t + rng.uniform(0, 6.3)) for k in range(1, 6))
    env = np.exp(-t * rng.uniform(0.5, 3.0)) * np.minimum(1.0, t * 50)
    return (wave * env + rng.normal(0, 0.01, n)).astype(np.float32)


def write_globe(folder: Path) -> None:
    from datasets import Audio, Dataset

    (folder / "data").mkdir(parents=True, exist_ok=True)
    (folder / "README.md").write_text(README)
    rng = np.random.default_rng(0)
    for split, n in (("train", N_TRAIN), ("test", N_TEST)):
        seconds = rng.uniform(0.4, 1.2, n)
        audio = [{"array": clip(rng, s), "sampling_rate": RATE} for s in seconds]
        text = pseudo_sentences(n, rng, min_words=2, max_words=8)
        rows = {"audio": audio, "speaker_id": [f"S_{int(i):06d}" for i in rng.integers(0, 2000, n)],
                "transcript": text,
                "accent": [["United States English", "England English", "India and South Asia", "Australian English"]
                           [int(i)] for i in rng.integers(0, 4, n)],
                "age": [["twenties", "thirties", "fourties", "fifties"][int(i)] for i in rng.integers(0, 4, n)],
                "gender": [["male", "female"][int(i)] for i in rng.integers(0, 2, n)],
                "duration": [float(s) for s in seconds]}
        ds = Dataset.from_dict(rows).cast_column("audio", Audio(sampling_rate=RATE))
        ds.to_parquet(str(folder / "data" / f"{split}-00000-of-00001.parquet"))


def write_vocos(hf_home: Path) -> None:
    import torch
    import yaml
    from vocos import Vocos

    out = hub_snapshot(hf_home, VOCOS, SNAPSHOT)
    (out / "config.yaml").write_text(VOCOS_CONFIG)
    torch.manual_seed(0)
    model = Vocos.from_hparams(str(out / "config.yaml"))
    assert yaml.safe_load(VOCOS_CONFIG)["backbone"]["init_args"]["dim"] == 512
    torch.save(model.state_dict(), str(out / "pytorch_model.bin"))


if __name__ == "__main__":
    run = Path(sys.argv[1])
    write_globe(run / "MushanW" / "GLOBE")
    write_vocos(run / "hf_home")
