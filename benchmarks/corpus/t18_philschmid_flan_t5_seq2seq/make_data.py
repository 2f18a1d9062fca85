"""CNN/DailyMail (preprocessed), google/flan-t5-small, the rouge metric and NLTK's punkt stand-ins for
philschmid/deep-learning-pytorch-huggingface's training/scripts/run_seq2seq_deepspeed.py (run with the corpus-t18-A
python: datasets/pyarrow, tokenizers, transformers, evaluate, rouge_score, nltk).

- RUN/training/data/{train,eval}: what training/preprocessing/create_flan_t5_cnn_dataset.py saves with
  save_to_disk (the script's load_from_disk(os.path.join(--dataset_path, "train"/"eval"))): columns input_ids,
  attention_mask, labels. Made the same way: each generated "article" (fakedata.pseudo_sentences, 3-5 sentences of
  8-20 words, seeded) in the prompt "Summarize the following news article:\\n{article}\\nSummary:\\n", tokenized with padding
  "max_length" to max_source_length = min(longest article, 512 - prompt length) and a one-sentence "highlights"
  summary padded to the 95th percentile of the summaries' lengths, pad ids of the labels replaced by -100.
  Articles are far shorter than CNN's (~100-160 tokens with the prompt, so max_source_length is 160 instead of
  ~500; one-sentence summaries, max_target_length 29 instead of ~129): 32 / 8 rows instead of 287113 / 11490, so
  4 training steps of 8 per epoch (12 in 3 epochs) and one evaluation batch per epoch.
- RUN/hf_home/hub/models--google--flan-t5-small: the Hub cache layout (refs/main -> a snapshot) that
  AutoTokenizer / AutoModelForSeq2SeqLM.from_pretrained read with HF_HUB_OFFLINE=1: a randomly initialised (seeded)
  T5ForConditionalGeneration of flan-t5-small's shape (d_model 512, 8+8 layers, 6 heads, d_kv 64, d_ff 1024,
  gated-gelu, untied 32128-word embedding and LM head: 77 M parameters) and a tokenizer.json: a SentencePiece-style
  Unigram vocabulary of 4000 trained here on the articles (<pad> 0, </s> 1, <unk> 2, "</s>" appended).
- RUN/hf_home/modules/evaluate_modules/metrics/evaluate-metric--rouge/HASH/rouge.py: evaluate.load("rouge") with
  HF_HUB_OFFLINE=1 takes the newest cached copy of the Hub metric; ours is a short evaluate.Metric computing
  rouge1/rouge2/rougeL/rougeLsum with rouge_score, as the Hub's does.
- RUN/training/nltk_data/tokenizers/punkt_tab/english: empty punkt parameter files (NLTK_DATA=nltk_data), so
  nltk.sent_tokenize works offline (nltk.download("punkt") fails at once without network, quietly).
"""
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import hub_snapshot, pseudo_sentences  # noqa: E402

SPLITS = {"train": 32, "eval": 8}
MODEL = "google/flan-t5-small"
SNAPSHOT = "0fc9ddf78a1e988dac52e2dac162b0ede4fd74ab"  # any fixed revision id: the cache's refs/main points at it
PROMPT = "Summarize the following news article:\n{input}\nSummary:\n"

ROUGE = '''"""Stand-in for the Hub's evaluate-metric/rouge (offline): ROUGE scores with rouge_score."""
import datasets
import evaluate
from rouge_score import rouge_scorer, scoring


class Rouge(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description="ROUGE", citation="", inputs_description="",
            features=datasets.Features({"predictions": datasets.Value("string", id="sequence"),
                                        "references": datasets.Value("string", id="sequence")}))

    def _compute(self, predictions, references, rouge_types=None, use_aggregator=True, use_stemmer=False,
                 tokenizer=None):
        rouge_types = rouge_types or ["rouge1", "rouge2", "rougeL", "rougeLsum"]
        scorer = rouge_scorer.RougeScorer(rouge_types=rouge_types, use_stemmer=use_stemmer, tokenizer=tokenizer)
        aggregator = scoring.BootstrapAggregator() if use_aggregator else None
        scores = []
        for ref, pred in zip(references, predictions):
            score = scorer.score(ref, pred)
            if use_aggregator:
                aggregator.add_scores(score)
            else:
                scores.append(score)
        if use_aggregator:
            result = aggregator.aggregate()
            return {key: result[key].mid.fmeasure for key in result}
        return {key: [s[key].fmeasure for s in scores] for key in rouge_types}
'''


def tokenizer_files(out: Path, text: list[str]):
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    tok.decoder = decoders.Metaspace()
    tok.train_from_iterator(text, trainers.UnigramTrainer(vocab_size=4000, special_tokens=["<pad>", "</s>", "<unk>"],
                                                          unk_token="<unk>", show_progress=False))
    tok.post_processor = processors.TemplateProcessing(single="$A </s>", pair="$A </s> $B </s>",
                                                       special_tokens=[("</s>", 1)])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="</s>", unk_token="<unk>",
                                   model_max_length=512)
    fast.save_pretrained(str(out))
    return fast


def write_data(folder: Path, tok) -> None:
    from datasets import Dataset

    rng = np.random.default_rng(0)
    raw = {}
    for split, n in SPLITS.items():
        articles, highlights = [], []
        for _ in range(n):
            articles.append(" ".join(pseudo_sentences(int(rng.integers(3, 6)), rng, min_words=8, max_words=20)))
            highlights.append(" ".join(pseudo_sentences(1, rng, min_words=8, max_words=16)))
        raw[split] = (articles, highlights)
    prompt_len = len(tok(PROMPT.format(input=""))["input_ids"])
    max_sample = tok.model_max_length - prompt_len
    all_art = raw["train"][0] + raw["eval"][0]
    all_sum = raw["train"][1] + raw["eval"][1]
    max_source = min(max(len(x) for x in tok(all_art, truncation=True)["input_ids"]), max_sample)
    max_target = int(np.percentile([len(x) for x in tok(all_sum, truncation=True)["input_ids"]], 95))
    print(f"prompt {prompt_len}, max source {max_source}, max target {max_target}")
    for split, (articles, highlights) in raw.items():
        enc = tok([PROMPT.format(input=a) for a in articles], max_length=max_source, padding="max_length",
                  truncation=True)
        lab = tok(text_target=highlights, max_length=max_target, padding="max_length", truncation=True)
        enc = dict(enc)
        enc["labels"] = [[(t if t != tok.pad_token_id else -100) for t in row] for row in lab["input_ids"]]
        Dataset.from_dict({k: enc[k] for k in ("input_ids", "attention_mask", "labels")}).save_to_disk(
            str(folder / split))


def hub_t5(hf_home: Path, text: list[str]):
    import torch
    from transformers import T5Config, T5ForConditionalGeneration

    out = hub_snapshot(hf_home, MODEL, SNAPSHOT)
    tok = tokenizer_files(out, text)
    torch.manual_seed(0)
    config = T5Config(vocab_size=32128, d_model=512, d_kv=64, d_ff=1024, num_layers=8, num_decoder_layers=8,
                      num_heads=6, feed_forward_proj="gated-gelu", tie_word_embeddings=False, dropout_rate=0.1,
                      decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)
    T5ForConditionalGeneration(config).save_pretrained(str(out))
    return tok


def rouge_module(hf_home: Path) -> None:
    base = hf_home / "modules" / "evaluate_modules"
    folder = base / "metrics" / "evaluate-metric--rouge" / hashlib.sha256(ROUGE.encode()).hexdigest()
    folder.mkdir(parents=True, exist_ok=True)
    for d in (base, base / "metrics", base / "metrics" / "evaluate-metric--rouge", folder):
        (d / "__init__.py").touch()
    (folder / "rouge.py").write_text(ROUGE)


def punkt(folder: Path) -> None:
    lang = folder / "tokenizers" / "punkt_tab" / "english"
    lang.mkdir(parents=True, exist_ok=True)
    for name in ("collocations.tab", "sent_starters.txt", "abbrev_types.txt", "ortho_context.tab"):
        (lang / name).write_text("")


if __name__ == "__main__":
    run = Path(sys.argv[1])
    corpus = pseudo_sentences(6000, np.random.default_rng(1), min_words=8, max_words=28)
    tok = hub_t5(run / "hf_home", corpus)
    write_data(run / "training" / "data", tok)
    rouge_module(run / "hf_home")
    punkt(run / "training" / "nltk_data")
