"""LJSpeech-1.1 stand-in for jik876/hifi-gan's train.py (run with the corpus-t21-B python: numpy, scipy).

- RUN/LJSpeech-1.1/wavs/LJxxx-xxxx.wav: 22050 Hz mono 16-bit PCM clips of 1.5-8 s (LJSpeech: 1-10 s, ~6.6 s mean),
  speech-like: a voiced source (harmonics 1-20 of a gliding 90-260 Hz pitch) under a syllable envelope
  (4-6 syllables a second), with noise bursts for consonants and low background noise (seeded). Named after the first
  N_TRAIN / N_VALID ids of the repository's own LJSpeech-1.1/training.txt and validation.txt, so the file names look
  like the real set's.
- RUN/LJSpeech-1.1/training_t21.txt, validation_t21.txt: the filelists in LJSpeech's `id|text|normalized text`
  format for those clips (the recipe's args pass them with --input_training_file / --input_validation_file): 48
  training clips (batch 16, drop_last: 3 steps an epoch, 6 in the 2 epochs the recipe runs) and 4 validation clips
  instead of 12950 / 150.
"""
import sys
from pathlib import Path

import numpy as np
from scipy.io import wavfile

SR = 22050
N_TRAIN, N_VALID = 48, 4


def speechlike(seconds: float, rng: np.random.Generator) -> np.ndarray:
    n = int(seconds * SR)
    t = np.arange(n) / SR
    f0 = rng.uniform(90, 260) * (1 + 0.15 * np.sin(2 * np.pi * rng.uniform(0.2, 1.0) * t + rng.uniform(0, 6.3)))
    phase = 2 * np.pi * np.cumsum(f0) / SR
    voiced = sum(np.sin(k * phase) / k ** 1.2 for k in range(1, 21))
    rate = rng.uniform(4, 6)
    env = np.clip(np.sin(np.pi * rate * t + rng.uniform(0, 3.1)), 0, None) ** 1.5
    bursts = (rng.random(n) * 2 - 1) * (np.sin(np.pi * rate * t + 1.3) > 0.97)
    y = voiced * env + 0.4 * bursts + 0.01 * rng.standard_normal(n)
    y = y / np.abs(y).max() * rng.uniform(0.3, 0.9)
    return (y * 32767).astype(np.int16)


def main(run: Path) -> None:
    root = run / "LJSpeech-1.1"
    (root / "wavs").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    for split, n in (("training", N_TRAIN), ("validation", N_VALID)):
        lines = (root / f"{split}.txt").read_text(encoding="utf-8").split("\n")[:n]
        for line in lines:
            wavfile.write(root / "wavs" / (line.split("|")[0] + ".wav"), SR, speechlike(rng.uniform(1.5, 8.0), rng))
        (root / f"{split}_t21.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
