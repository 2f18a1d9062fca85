"""Fake AMI "mini" (pyannote/AMI-diarization-setup) and a stand-in pyannote/segmentation-3.0 for pyannote-audio's
tutorials/training_a_model.ipynb.

The notebook runs from tutorials/ and loads AMI-diarization-setup/pyannote/database.yml, protocol
AMI.SpeakerDiarization.mini. This writes RUN/tutorials/AMI-diarization-setup/pyannote/:
  database.yml   the AMI database (audio/{uri}.wav) and the protocol mini (scope: file) with train, development and
                 test subsets: a uri list, one RTTM and one UEM per subset;
  audio/*.wav    16 kHz mono 16-bit meetings (seeded): TRAIN_FILES x TRAIN_SECONDS of training audio (AMI mini has
                 ~2.3 h of training audio in 28 meetings), DEV_FILES x DEV_SECONDS for development, one TEST_SECONDS test
                 meeting. Each meeting has 4 speakers, each a harmonic voice with its own pitch, syllable-rate amplitude
                 modulation and formant-like colouring, talking in turns of 0.3-6 s with pauses and ~10% overlap, over
                 room noise;
  lists/, rttms/, uems/   the subsets' files (the RTTM holds the speaker turns, the UEM the whole file).
and RUN/tutorials/hf_home: the Hub cache that Model.from_pretrained("pyannote/segmentation-3.0") reads with
HF_HUB_OFFLINE=1: a randomly initialised (seeded) PyanNet with segmentation-3.0's configuration (SincNet stride 10,
4 bidirectional LSTM layers of 128, 2 linear layers of 128; 10 s chunks, powerset of 3 speakers with at most 2 at a
time, 7 classes) saved as the Lightning checkpoint pytorch_model.bin that pyannote.audio writes.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import hub_snapshot, write_wav  # noqa: E402

RATE = 16000
TRAIN_FILES, TRAIN_SECONDS = 8, 320      # 2560 s of training audio
DEV_FILES, DEV_SECONDS = 1, 120
TEST_SECONDS = 240                        # the notebook shows outputs cropped to 210-240 s (notebook.crop)
SNAPSHOT = "e66f3d3b9eb0873085418a7b813d3b369bf160bb"

DATABASE_YML = """Databases:
  AMI: audio/{uri}.wav

Protocols:
  AMI:
    SpeakerDiarization:
      mini:
        scope: file
        train:
          uri: lists/train.mini.txt
          annotation: rttms/train.mini.rttm
          annotated: uems/train.mini.uem
        development:
          uri: lists/development.mini.txt
          annotation: rttms/development.mini.rttm
          annotated: uems/development.mini.uem
        test:
          uri: lists/test.mini.txt
          annotation: rttms/test.mini.rttm
          annotated: uems/test.mini.uem
"""


def meeting(seconds: int, rng: np.random.Generator):
    """(int16 samples, [(start, duration, speaker)]) of a 4-speaker meeting."""
    n = seconds * RATE
    out = rng.normal(0, 0.004, n)  # room noise
    turns = []
    speakers = [f"S{k}" for k in rng.choice(1000, 4, replace=False)]
    pitch = {s: rng.uniform(90, 260) for s in speakers}
    t = rng.uniform(0, 1.0)
    while t < seconds - 0.5:
        spk = speakers[rng.integers(4)]
        dur = min(float(rng.uniform(0.3, 6.0)), seconds - t)
        turns.append((round(t, 3), round(dur, 3), spk))
        a, b = int(t * RATE), int((t + dur) * RATE)
        tt = np.arange(b - a) / RATE
        f0 = pitch[spk] * (1 + 0.08 * np.sin(2 * np.pi * rng.uniform(0.2, 1.0) * tt))
        phase = 2 * np.pi * np.cumsum(f0) / RATE
        voice = sum(np.sin(h * phase) / h ** rng.uniform(0.8, 1.4) for h in range(1, 8))
        syll = 0.5 + 0.5 * np.sin(2 * np.pi * rng.uniform(3, 6) * tt + rng.uniform(0, 6.3)) ** 2
        out[a:b] += 0.08 * voice * syll + rng.normal(0, 0.01, b - a) * syll
        # next turn: a pause, or ~10% of the time an overlap with this one
        t += dur - rng.uniform(0.2, 1.0) if rng.random() < 0.1 else dur + rng.uniform(0.05, 1.5)
    return (np.clip(out, -1, 1) * 32000).astype(np.int16), turns


def segmentation_3_0(hf_home: Path) -> None:
    import torch
    import lightning
    from pyannote.audio import __version__
    from pyannote.audio.core.task import Problem, Resolution, Specifications
    from pyannote.audio.models.segmentation import PyanNet

    torch.manual_seed(0)
    model = PyanNet(sincnet={"stride": 10})
    specifications = Specifications(problem=Problem.MONO_LABEL_CLASSIFICATION, resolution=Resolution.FRAME,
                                    duration=10.0, min_duration=None,
                                    classes=["speaker#1", "speaker#2", "speaker#3"], powerset_max_classes=2,
                                    permutation_invariant=True)
    model.specifications = specifications
    model.build()
    checkpoint = {
        "epoch": 0, "global_step": 0, "pytorch-lightning_version": lightning.__version__,
        "state_dict": model.state_dict(), "hyper_parameters": dict(model.hparams),
        "pyannote.audio": {"versions": {"pyannote.audio": __version__},
                           "architecture": {"module": PyanNet.__module__, "class": PyanNet.__name__},
                           "specifications": specifications},
    }
    out = hub_snapshot(hf_home, "pyannote/segmentation-3.0", SNAPSHOT)
    torch.save(checkpoint, out / "pytorch_model.bin")


if __name__ == "__main__":
    run = Path(sys.argv[1])
    root = run / "tutorials" / "AMI-diarization-setup" / "pyannote"
    for sub in ("audio", "lists", "rttms", "uems"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    (root / "database.yml").write_text(DATABASE_YML)
    rng = np.random.default_rng(0)
    subsets = {"train": [("TR%02d" % i, TRAIN_SECONDS) for i in range(TRAIN_FILES)],
               "development": [("DV%02d" % i, DEV_SECONDS) for i in range(DEV_FILES)],
               "test": [("TS00", TEST_SECONDS)]}
    for subset, files in subsets.items():
        rttm, uem = [], []
        for uri, seconds in files:
            pcm, turns = meeting(seconds, rng)
            write_wav(root / "audio" / f"{uri}.wav", pcm, RATE)
            rttm += [f"SPEAKER {uri} 1 {s:.3f} {d:.3f} <NA> <NA> {spk} <NA> <NA>" for s, d, spk in turns]
            uem.append(f"{uri} NA 0.000 {seconds:.3f}")
        (root / "lists" / f"{subset}.mini.txt").write_text("\n".join(u for u, _ in files) + "\n")
        (root / "rttms" / f"{subset}.mini.rttm").write_text("\n".join(rttm) + "\n")
        (root / "uems" / f"{subset}.mini.uem").write_text("\n".join(uem) + "\n")
    segmentation_3_0(run / "tutorials" / "hf_home")
