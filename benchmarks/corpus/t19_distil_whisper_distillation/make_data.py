"""Common Voice 16.1 (Hindi, pseudo-labelled), openai/whisper-large-v3 and distil-large-v3-init stand-ins for
huggingface/distil-whisper's training/run_distillation.py (run with the corpus-t19-H python: datasets 3.6 with
soundfile, tokenizers, transformers 4.46).

- RUN/common_voice_16_1_hi_pseudo_labelled: the README's `--train_dataset_name ../common_voice_16_1_hi_pseudo_labelled`
  (a local path, relative to the script's folder), laid out as the Hub dataset that run_pseudo_labelling.py pushes
  (data/{train,validation,test}-00000-of-00001.parquet written by datasets' to_parquet, so the `audio` column keeps
  its Audio feature): columns client_id, path, audio (16 kHz mono wav bytes), sentence, up_votes, down_votes, age,
  gender, accent, locale, segment, variant (as Common Voice 16.1) and whisper_transcript (the pseudo-label as
  run_pseudo_labelling.py writes it: "<|startoftranscript|><|hi|><|transcribe|><|notimestamps|> text<|endoftext|>";
  ~1 in 8 with a wrong word so that --wer_threshold 20 drops a few). Clips of 2-6 s (Common Voice's range):
  summed harmonic tones with a slow pitch glide plus noise (seeded). Sentences of 4-14 Zipf pseudo-words
  (fakedata.pseudo_sentences). 48 / 24 / 8 rows instead of ~4.5k / ~2.3k / ~3.1k.
- RUN/hf_home/hub/models--openai--whisper-large-v3: the Hub cache layout (refs/main -> a snapshot), which
  WhisperForConditionalGeneration.from_pretrained reads with HF_HUB_OFFLINE=1: a randomly initialised Whisper of
  whisper-tiny's shape (4 encoder + 4 decoder layers, d_model 384, 6 heads, FFN 1536: 41 M parameters with the
  embedding) but large-v3's input and vocabulary (128 mel bins, 1500 source positions = 30 s, 448 target
  positions, 51866 tokens), generation_config.json as large-v3's (multilingual, lang_to_id, task_to_id ...),
  plus the feature extractor and tokenizer below.
- RUN/training/distil-large-v3-init: the student as create_student_model.py makes it (all the teacher's encoder
  layers, 2 decoder layers copied from teacher decoder layers 1 and 4 (the first and last), the rest of the
  weights copied), saved with save_pretrained, with the feature extractor, tokenizer and generation config.
- Feature extractor: WhisperFeatureExtractor(feature_size=128) (large-v3's: 128 mels, 30 s chunks, 16 kHz).
- Tokenizer: a byte-level BPE of 1200 entries trained here on the sentences, padded with unreachable filler
  entries to GPT-2's 50257 ids, then Whisper's special tokens in large-v3's order and ids (<|endoftext|> 50257,
  <|startoftranscript|> 50258, 100 language tokens, <|translate|>, <|transcribe|>, <|startoflm|>,
  <|startofprev|>, <|nospeech|>, <|notimestamps|> 50364) and the 1501 timestamp tokens: 51866 in all, as large-v3.
- RUN/training/wer/wer.py: the `wer` metric as an evaluate module (jiwer's wer, as the Hub's evaluate-metric/wer),
  which evaluate.load("wer") finds in the script's folder before the Hub.
"""
import io
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import hub_snapshot, pseudo_sentences  # noqa: E402

SPLITS = {"train": 48, "validation": 24, "test": 8}
SR = 16000
TEACHER = "openai/whisper-large-v3"
SNAPSHOT = "06f233fe06e710322aca913c1bc4249a0d71fce1"  # any fixed revision id: refs/main points at it

WER_PY = '''"""Word error rate (jiwer), as the Hub's evaluate-metric/wer (a local stand-in: no download)."""
import datasets
import evaluate
from jiwer import compute_measures


class WER(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description="word error rate", citation="", inputs_description="",
            features=datasets.Features({"predictions": datasets.Value("string", id="sequence"),
                                        "references": datasets.Value("string", id="sequence")}))

    def _compute(self, predictions=None, references=None, concatenate_texts=False):
        import jiwer
        if concatenate_texts:
            return jiwer.wer(references, predictions)
        errors, total = 0, 0
        for prediction, reference in zip(predictions, references):
            out = jiwer.process_words(reference, prediction)
            errors += out.substitutions + out.deletions + out.insertions
            total += out.substitutions + out.deletions + out.hits
        return errors / total
'''.replace("from jiwer import compute_measures\n", "")


def clip(rng: np.random.Generator) -> np.ndarray:
    n = int(rng.uniform(2.0, 6.0) * SR)
    t = np.arange(n) / SR
    f0 = rng.uniform(90, 260) * (1 + 0.15 * np.sin(2 * np.pi * rng.uniform(0.2, 1.0) * t))
    phase = 2 * np.pi * np.cumsum(f0) / SR
    x = sum(rng.uniform(0.2, 1.0) / k * np.sin(k * phase) for k in range(1, 6))
    env = 0.5 * (1 + np.sin(2 * np.pi * rng.uniform(1.5, 4.0) * t + rng.uniform(0, 6.3)))
    x = x * env + 0.05 * rng.standard_normal(n)
    return (0.3 * x / np.abs(x).max()).astype(np.float32)


def write_dataset(folder: Path, rng: np.random.Generator) -> list[str]:
    import soundfile as sf
    from datasets import Audio, Dataset, Features, Value

    (folder / "data").mkdir(parents=True, exist_ok=True)
    features = Features({k: Value("string") for k in ["client_id", "path"]} | {"audio": Audio()}
                        | {"sentence": Value("string"), "up_votes": Value("int64"), "down_votes": Value("int64")}
                        | {k: Value("string") for k in ["age", "gender", "accent", "locale", "segment", "variant"]}
                        | {"whisper_transcript": Value("string")})
    texts = []
    for split, n in SPLITS.items():
        sentences = pseudo_sentences(n, rng, min_words=4, max_words=14)
        texts += sentences
        rows = {k: [] for k in features}
        for i, s in enumerate(sentences):
            buf = io.BytesIO()
            sf.write(buf, clip(rng), SR, format="WAV", subtype="PCM_16")
            name = f"common_voice_hi_{39000000 + 1000 * len(texts) + i}.mp3"
            words = s.split()
            if rng.random() < 0.125:
                words[int(rng.integers(0, len(words)))] = "xq" + words[0][::-1]
                words[int(rng.integers(0, len(words)))] = "zv" + words[-1][::-1]
            pl = "<|startoftranscript|><|hi|><|transcribe|><|notimestamps|> " + " ".join(words) + "<|endoftext|>"
            row = {"client_id": f"{rng.integers(0, 2**63):016x}", "path": name,
                   "audio": {"bytes": buf.getvalue(), "path": name}, "sentence": s,
                   "up_votes": int(rng.integers(2, 5)), "down_votes": int(rng.integers(0, 2)), "age": "",
                   "gender": "", "accent": "", "locale": "hi", "segment": "", "variant": "", "whisper_transcript": pl}
            for k in rows:
                rows[k].append(row[k])
        Dataset.from_dict(rows, features=features).to_parquet(str(folder / "data" / f"{split}-00000-of-00001.parquet"))
    return texts


def whisper_files(out: Path, texts: list[str]):
    """Feature extractor, tokenizer and generation config of large-v3's layout, saved into ``out``."""
    from tokenizers import ByteLevelBPETokenizer
    from transformers import AddedToken, GenerationConfig, WhisperFeatureExtractor, WhisperTokenizerFast
    from transformers.models.whisper.tokenization_whisper import LANGUAGES

    out.mkdir(parents=True, exist_ok=True)
    WhisperFeatureExtractor(feature_size=128).save_pretrained(str(out))
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(texts, vocab_size=1200, min_frequency=1, show_progress=False)
    raw = out / "_bpe"
    raw.mkdir(exist_ok=True)
    bpe.save_model(str(raw))
    vocab = json.loads((raw / "vocab.json").read_text())
    vocab = {k: v for k, v in sorted(vocab.items(), key=lambda kv: kv[1])}
    for i in range(len(vocab), 50257):
        vocab[f"<filler{i}>"] = i
    (raw / "vocab.json").write_text(json.dumps(vocab))
    specials = (["<|endoftext|>", "<|startoftranscript|>"] + [f"<|{k}|>" for k in LANGUAGES]
                + ["<|translate|>", "<|transcribe|>", "<|startoflm|>", "<|startofprev|>", "<|nospeech|>",
                   "<|notimestamps|>"])
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    merges = [tuple(line.split(" ")) for line in (raw / "merges.txt").read_text().splitlines()[1:] if line]
    core = Tokenizer(models.BPE(vocab, merges))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    core.save(str(raw / "tokenizer.json"))
    tok = WhisperTokenizerFast(tokenizer_file=str(raw / "tokenizer.json"), unk_token="<|endoftext|>",
                               bos_token="<|endoftext|>", eos_token="<|endoftext|>", pad_token="<|endoftext|>",
                               model_max_length=448)
    tok.add_special_tokens({"additional_special_tokens": [AddedToken(s, special=True, normalized=False)
                                                          for s in specials]})
    tok.add_tokens([AddedToken("<|%.2f|>" % (i * 0.02), lstrip=False, rstrip=False) for i in range(1501)])
    assert len(tok) == 51866, len(tok)
    ids = {s: tok.convert_tokens_to_ids(s) for s in specials}
    assert ids["<|endoftext|>"] == 50257 and ids["<|notimestamps|>"] == 50364, ids
    assert tok.all_special_ids[-1] == 50364 and tok.all_special_ids[-3] == 50362, tok.all_special_ids[-4:]
    tok.save_pretrained(str(out))
    for f in raw.iterdir():
        f.unlink()
    raw.rmdir()
    gen = GenerationConfig(
        decoder_start_token_id=50258, bos_token_id=50257, eos_token_id=50257, pad_token_id=50257, max_length=448,
        begin_suppress_tokens=[220, 50257], suppress_tokens=[], is_multilingual=True,
        lang_to_id={f"<|{k}|>": ids[f"<|{k}|>"] for k in LANGUAGES},
        task_to_id={"translate": 50359, "transcribe": 50360}, no_timestamps_token_id=50364, prev_sot_token_id=50362,
        max_initial_timestamp_index=50, return_timestamps=False)
    gen.save_pretrained(str(out))
    return tok, gen


def models(teacher_dir: Path, student_dir: Path, texts: list[str]):
    import torch
    from transformers import WhisperConfig, WhisperForConditionalGeneration

    tok, gen = whisper_files(teacher_dir, texts)
    torch.manual_seed(0)
    cfg = dict(vocab_size=51866, num_mel_bins=128, d_model=384, encoder_attention_heads=6,
               decoder_attention_heads=6, encoder_ffn_dim=1536, decoder_ffn_dim=1536, max_source_positions=1500,
               max_target_positions=448, decoder_start_token_id=50258, bos_token_id=50257, eos_token_id=50257,
               pad_token_id=50256)
    teacher = WhisperForConditionalGeneration(WhisperConfig(encoder_layers=4, decoder_layers=4, **cfg))
    teacher.generation_config = gen
    teacher.save_pretrained(str(teacher_dir))
    # create_student_model.py: the teacher's weights, all encoder layers, decoder layers 1 and 4 (maximally spaced)
    student = WhisperForConditionalGeneration(WhisperConfig(encoder_layers=4, decoder_layers=2, **cfg))
    sd = teacher.state_dict()
    keep = {0: 0, 3: 1}
    new = {}
    for k, v in sd.items():
        if k.startswith("model.decoder.layers."):
            i = int(k.split(".")[3])
            if i in keep:
                new[k.replace(f"layers.{i}.", f"layers.{keep[i]}.", 1)] = v
        else:
            new[k] = v
    student.load_state_dict(new, strict=False)
    student.generation_config = gen
    student.save_pretrained(str(student_dir))
    whisper_files(student_dir, texts)


if __name__ == "__main__":
    run = Path(sys.argv[1])
    rng = np.random.default_rng(0)
    texts = write_dataset(run / "common_voice_16_1_hi_pseudo_labelled", rng)
    models(hub_snapshot(run / "hf_home", TEACHER, SNAPSHOT), run / "training" / "distil-large-v3-init", texts)
    (run / "training" / "wer").mkdir(parents=True, exist_ok=True)
    (run / "training" / "wer" / "wer.py").write_text(WER_PY)
