"""Generated audio and the README's SoundStream example for lucidrains/audiolm-pytorch (SoundStreamTrainer).

1. RUN/audio/: N_FILES mono 16-bit PCM .wav files at 16 kHz (LibriSpeech's rate; SoundStream's target_sample_hz is
   16000, so the dataset's resample is a no-op as for LibriSpeech flac), 3-6 s each (seeded): a few gliding harmonic
   tones with a syllable-like amplitude envelope plus a little noise. SoundDataset globs **/*.wav and crops each clip
   at random to data_max_length_seconds = 2 (32000 samples).
2. RUN/soundstream_readme.py: the README's SoundStream training example (README.md, already placed in RUN at the
   recipe's commit, code block lines 65-86), copied line for line so that line N of the script is line N of
   README.md (every other line is left blank). Three of its lines are changed, each on its own line, with a comment:
   folder '/path/to/audio/files' -> 'audio' (the generated clips), num_train_steps 1_000_000 -> NUM_TRAIN_STEPS,
   and `).cuda()` -> `)` (no GPU here: the trainer's own Accelerator already puts everything on the CPU).
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import fakedata  # noqa: E402

N_FILES = 96            # 95/5 split: 91 training clips, 5 validation clips (>= batch_size 4)
SAMPLE_HZ = 16000
NUM_TRAIN_STEPS = 2     # step 0 (gradient penalty, validation samples, checkpoint) + one steady step; each = 8 generator + 8 discriminator micro-batches of 4 clips

FIRST, LAST = 65, 86    # README.md lines of the example, `from audiolm_pytorch import ...` .. `trainer.train()`
CHANGES = {
    79: ("    folder = '/path/to/audio/files',",
         "    folder = 'audio',  # ours: the generated clips of make_data.py (README: '/path/to/audio/files')"),
    82: ("    data_max_length_seconds = 2,  # train on 2 second audio",
         "    data_max_length_seconds = 0.5,  # ours: 0.5 s crops (README: 2 s); SoundStream's 48.8 M-parameter GAN step is minutes on 2 CPU cores at 2 s"),
    83: ("    num_train_steps = 1_000_000",
         f"    num_train_steps = {NUM_TRAIN_STEPS}  # ours: a short run (README: 1_000_000)"),
    84: (").cuda()", ")  # ours: no GPU here (README: ).cuda()); the trainer's Accelerator places the model on the CPU"),
}


def clip(rng: np.random.Generator) -> np.ndarray:
    n = int(rng.uniform(3.0, 6.0) * SAMPLE_HZ)
    t = np.arange(n) / SAMPLE_HZ
    x = np.zeros(n)
    for _ in range(rng.integers(2, 5)):
        f0 = rng.uniform(90, 260) * (1 + 0.15 * np.sin(2 * np.pi * rng.uniform(0.2, 1.0) * t))
        phase = 2 * np.pi * np.cumsum(f0) / SAMPLE_HZ
        for h in range(1, 6):
            x += rng.uniform(0.1, 1.0) / h * np.sin(h * phase)
    envelope = np.clip(np.sin(2 * np.pi * rng.uniform(2, 5) * t + rng.uniform(0, 6.3)), 0, None) ** 0.5
    x = x * envelope + 0.02 * rng.standard_normal(n)
    return (x / np.abs(x).max() * 0.8 * 32767).astype(np.int16)


def readme_script(run: Path) -> None:
    readme = (run / "README.md").read_text(encoding="utf-8").split("\n")
    out = [""] * LAST
    out[0] = "# ours: lines 65-86 of lucidrains/audiolm-pytorch's README.md (the SoundStream example), at their README line numbers"
    for n in range(FIRST, LAST + 1):
        line = readme[n - 1]
        if n in CHANGES:
            old, new = CHANGES[n]
            if line != old:
                raise SystemExit(f"README.md:{n}: expected {old!r}, found {line!r}")
            line = new
        out[n - 1] = line
    (run / "soundstream_readme.py").write_text("\n".join(out) + "\n", encoding="utf-8")


if __name__ == "__main__":
    run = Path(sys.argv[1])
    folder = run / "audio"
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    for i in range(N_FILES):
        fakedata.write_wav(folder / f"clip_{i:04d}.wav", clip(rng), SAMPLE_HZ)
    readme_script(run)
