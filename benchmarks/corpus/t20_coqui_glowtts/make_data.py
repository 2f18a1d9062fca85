"""LJSpeech-1.1 stand-in for coqui-ai/TTS's recipes/ljspeech/glow_tts/train_glowtts.py (run with the corpus-t20-D
python; only numpy and the standard library are needed here).

- RUN/recipes/ljspeech/LJSpeech-1.1: the recipe reads os.path.join(output_path, "../LJSpeech-1.1/") with the
  "ljspeech" formatter, i.e. metadata.csv (``ID|raw text|normalized text``, no header, UTF-8) and wavs/ID.wav.
  200 clips (instead of 13,100) named LJ001-0001 ... LJ004-0050 as in the real set; the texts are capitalised
  sentences of 2-7 Zipf pseudo-words with commas and a full stop (fakedata.pseudo_sentences, seeded), the same in
  both text columns. The wavs are 22,050 Hz mono 16-bit PCM like LJSpeech's, of a speech-like signal: a voiced
  source (a gliding f0 of 95-230 Hz with ~12 harmonics and falling spectral tilt) under a syllable envelope of
  ~4-5 Hz, with noise bursts for "fricatives", a little background noise and 0.1-0.25 s of near-silence at both
  ends. Their length follows LJSpeech's speaking rate (~15 characters a second): 1.0-3.7 s, 2.1 s on average
  (LJSpeech: 1-10 s, 6.6 s on average; shorter texts and clips keep the CPU run short), so a batch of 32 holds about
  a third of LJSpeech's mel frames; the model and the batch size are the recipe's.
- With the recipe's eval_split_size 0.01 (BaseTTSConfig default), 2 clips go to evaluation and 198 to training.
"""
import sys
import wave
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import pseudo_sentences  # noqa: E402

SR = 22050
N_CLIPS = 200
CHAPTER = 50  # clips per LJ "chapter" id


def speechlike(seconds: float, rng: np.random.Generator) -> np.ndarray:
    n = int(seconds * SR)
    t = np.arange(n) / SR
    # f0 contour: a slow random glide between 95 and 230 Hz
    knots = rng.uniform(95, 230, int(seconds * 3) + 2)
    f0 = np.interp(t, np.linspace(0, seconds, len(knots)), knots)
    phase = 2 * np.pi * np.cumsum(f0) / SR
    voiced = sum((0.7 ** k) * np.sin(k * phase + rng.uniform(0, 2 * np.pi)) for k in range(1, 13))
    # syllable envelope ~4-5 Hz with random depths, plus unvoiced (noise) stretches
    rate = rng.uniform(3.8, 5.2)
    env = np.clip(np.sin(2 * np.pi * rate * t + rng.uniform(0, 6.28)), 0, None) ** 0.7
    env *= np.interp(t, np.linspace(0, seconds, int(seconds * rate) + 2), rng.uniform(0.3, 1.0, int(seconds * rate) + 2))
    frication = (rng.random(int(seconds * rate) + 2) < 0.3).astype(float)
    fric = np.interp(t, np.linspace(0, seconds, len(frication)), frication) * rng.normal(0, 0.25, n)
    signal = voiced * env * 0.25 + fric * (1 - env) + rng.normal(0, 0.003, n)
    # near-silence at both ends
    lead, tail = (int(rng.uniform(0.1, 0.25) * SR) for _ in range(2))
    signal[:lead] *= 0.02
    signal[n - tail:] *= 0.02
    signal *= 0.6 / (np.abs(signal).max() + 1e-9)
    return (signal * 32767).astype(np.int16)


def write_ljspeech(folder: Path, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    (folder / "wavs").mkdir(parents=True, exist_ok=True)
    texts = pseudo_sentences(N_CLIPS, rng, min_words=2, max_words=7)
    rows = []
    for i, text in enumerate(texts):
        clip_id = f"LJ{i // CHAPTER + 1:03d}-{i % CHAPTER + 1:04d}"
        seconds = float(np.clip(len(text) / 15.0 + rng.uniform(0.2, 0.5), 1.0, 10.0))
        with wave.open(str(folder / "wavs" / f"{clip_id}.wav"), "wb") as w:
            w.setnchannels(1)
            w.setsampwidth(2)
            w.setframerate(SR)
            w.writeframes(speechlike(seconds, rng).tobytes())
        rows.append(f"{clip_id}|{text}|{text}")
    (folder / "metadata.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write_ljspeech(Path(sys.argv[1]) / "recipes" / "ljspeech" / "LJSpeech-1.1")
