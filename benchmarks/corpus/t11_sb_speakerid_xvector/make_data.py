"""Fake Mini LibriSpeech (+ a fake noise set) for SpeechBrain's templates/speaker_id/train.py (tag v1.0.3).

The template's prepare_mini_librispeech(data_folder='./data') downloads nothing when
./data/LibriSpeech/train-clean-5 exists: it lists its *.flac files, takes the speaker id from the file name
(SPK-CHAPTER-UTT.flac) and splits them 80/10/10 into train/valid/test json files. We write 28 speakers (the
template's n_classes) x 2 chapters x 14 utterances = 784 FLAC files of 1.0-1.6 s at 16 kHz: a per-speaker pitch
(harmonics with vibrato) plus noise, seeded.

The noise set for the AddNoise augmentation: speechbrain's prepare_dataset_from_URL downloads only when
./data/noise/data.zip is missing, then lists ./data/noise/**/*.wav into the noise csv. We write a small (valid,
unused) data.zip placeholder and 20 noise wav files of 1-3 s (filtered white noise) in ./data/noise/noises/.
"""
import sys
import zipfile
from pathlib import Path

import numpy as np
import soundfile as sf

SR = 16000


def utterance(f0: float, seconds: float, rng: np.random.Generator) -> np.ndarray:
    t = np.arange(int(seconds * SR)) / SR
    pitch = f0 * (1 + 0.03 * np.sin(2 * np.pi * rng.uniform(2, 6) * t))
    phase = 2 * np.pi * np.cumsum(pitch) / SR
    x = sum(rng.uniform(0.2, 1.0) / k * np.sin(k * phase) for k in range(1, 6))
    envelope = 0.5 + 0.5 * np.abs(np.sin(2 * np.pi * rng.uniform(1.5, 4) * t))
    x = x * envelope + 0.02 * rng.standard_normal(t.size)
    return (0.3 * x / np.max(np.abs(x))).astype(np.float32)


if __name__ == "__main__":
    data = Path(sys.argv[1]) / "templates" / "speaker_id" / "data"  # the template runs from its own folder
    rng = np.random.default_rng(0)
    root = data / "LibriSpeech" / "train-clean-5"
    for s in range(28):
        spk = 100 + 37 * s
        f0 = 90 + 7 * s
        for c in range(2):
            chapter = 1000 + 13 * s + c
            folder = root / str(spk) / str(chapter)
            folder.mkdir(parents=True, exist_ok=True)
            for u in range(14):
                sf.write(folder / f"{spk}-{chapter}-{u:04d}.flac", utterance(f0, rng.uniform(1.0, 1.6), rng), SR)
    noise = data / "noise" / "noises"
    noise.mkdir(parents=True, exist_ok=True)
    for i in range(20):
        n = rng.standard_normal(int(rng.uniform(1, 3) * SR))
        n = np.convolve(n, np.ones(int(rng.integers(1, 8))) / 8, mode="same")
        sf.write(noise / f"noise_{i:02d}.wav", (0.2 * n / np.max(np.abs(n))).astype(np.float32), SR)
    with zipfile.ZipFile(data / "noise" / "data.zip", "w") as z:
        z.writestr("README.txt", "placeholder: the noise wav files are generated in ./noises\n")
