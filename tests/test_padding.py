"""Text batches padded to a fixed length (rules/fixed-length-padding.toml): the probe reads the batches' attention
masks (probe/padding.py), the facts say how much is padding and what padding per batch would remove, and the
rule names the script's tokenizer call, in the Trainer's terms where a Trainer runs the loop.

The recorded runs are the planted sample (sample_scripts/fixed_length_padding.py) and a Hugging Face Trainer
run of tests/scripts/frameworks/hf_trainer_padding.py; the masks below are real tensors of the layouts users'
loaders yield.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

import recorded
from trainprobe.engine import load_rules
from trainprobe.engine.evaluate import evaluate_rules
from trainprobe.facts import compute_facts, facts_by_name
from trainprobe.probe.padding import PaddingTally, find_mask, padding_call

ROOT = Path(__file__).resolve().parent.parent
RULES, _ = load_rules()


def _mask(lengths, width, left=False):
    positions = torch.arange(width)[None]
    lengths = torch.tensor(lengths)[:, None]
    return (positions >= width - lengths if left else positions < lengths).long()


def _findings(record) -> dict:
    findings, errors = evaluate_rules(RULES, facts_by_name(compute_facts(record)))
    assert errors == []
    return {f.id: f for f in findings}


def _line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if text in line)


# --- finding the mask ---------------------------------------------------------------------------------

def test_a_mapping_batch_gives_its_attention_mask():
    mask = _mask([3, 8, 5], 8)
    name, found = find_mask({"input_ids": torch.ones(3, 8, dtype=torch.long), "attention_mask": mask,
                             "labels": torch.zeros(3, dtype=torch.long)})
    assert name == "attention_mask" and found is mask


def test_a_tuple_batch_gives_the_zeros_and_ones_of_the_ids_shape_and_not_the_token_types_after_it():
    ids = torch.randint(5, 100, (4, 10))
    mask = _mask([10, 2, 6, 4], 10, left=True)
    token_types = torch.zeros(4, 10, dtype=torch.long)
    token_types[:, 5:] = 1  # a second segment: also zeros and ones, after the mask
    name, found = find_mask((ids, mask, token_types, torch.tensor([0, 1, 0, 1])))
    assert name == "batch[1]" and found is mask


def test_batches_without_a_mask_give_none():
    assert find_mask((torch.randn(4, 3, 32, 32), torch.tensor([1, 2, 3, 4]))) is None  # images, labels
    random_bits = torch.tensor([[1, 0, 1, 1, 0, 1], [0, 1, 1, 0, 1, 0]])  # zeros and ones, not a run from an end
    assert find_mask((torch.randint(5, 9, (2, 6)), random_bits)) is None
    assert find_mask({"attention_mask": torch.ones(2, 6)}) is None  # float: not a mask a tokenizer makes
    labels = torch.tensor([[257, 256, 256, 256], [257, 257, 256, 256]])  # token ids an int8 cast wraps to 1 and 0
    assert find_mask((torch.randint(5, 9, (2, 4)), labels)) is None


def test_the_tally_sums_the_slots_the_tokens_and_the_longest_rows():
    tally = PaddingTally()
    tally.note({"attention_mask": _mask([3, 5], 10)})
    tally.note({"attention_mask": _mask([10, 2], 10)})
    padding = tally.result(set_at="train.py:7")
    assert (padding.batches, padding.slots, padding.tokens, padding.longest, padding.length) == (2, 40, 20, 30, 10)
    assert padding.mask == "attention_mask" and padding.set_at == "train.py:7"


def test_the_tally_gives_up_on_a_loader_that_never_has_a_mask():
    tally = PaddingTally()
    for _ in range(20):
        tally.note((torch.randn(2, 3), torch.tensor([0, 1])))
    assert tally.done and tally.result(None) is None


def test_the_call_that_asks_for_max_length_padding_is_named_before_another_padding_keyword(tmp_path):
    script = tmp_path / "train.py"
    script.write_text("conv = nn.Conv2d(3, 8, 3, padding=1)\n"
                      "enc = tok(texts, padding=True)\n"
                      "def tokenize(batch):\n"
                      "    return tok(batch['text'], truncation=True, padding='max_length', max_length=128)\n")
    assert padding_call([str(script)]) == f"{script}:4"
    other = tmp_path / "other.py"
    other.write_text("conv = nn.Conv2d(3, 8, 3, padding=1)\n")  # a convolution's padding is not a tokenizer's
    assert padding_call([str(other)]) is None


# --- the recorded runs ---------------------------------------------------------------------------------

SAMPLE = ROOT / "sample_scripts" / "fixed_length_padding.py"


def test_the_planted_samples_padding_is_measured_and_its_tokenizer_call_named():
    record = recorded.load(recorded.RUNS_DIR / "fixed_length_padding.cpu.run.json")
    facts = facts_by_name(compute_facts(record))
    assert facts["padded_length"] == 256 and facts["padding_mask"] == "attention_mask"
    # The sample's reviews hold 8-100 words (mean 40) in rows of 256.
    assert 0.75 < facts["padding_share"] < 0.9
    assert facts["padding_trim_share"] < facts["padding_share"]
    finding = _findings(record)["fixed-length-padding"]
    assert finding.severity == "warning"
    assert finding.changes_at == f"sample_scripts/fixed_length_padding.py:{_line_of(SAMPLE, 'encoded = tokenizer(')}"
    assert "DataCollatorWithPadding" in finding.advice


def test_a_trainers_padding_fix_is_in_its_terms_at_the_tokenize_functions_call():
    script = ROOT / "tests" / "scripts" / "frameworks" / "hf_trainer_padding.py"
    record = recorded.load(recorded.RUNS_DIR / "frameworks" / "hf_trainer_padding.cpu.run.json")
    finding = _findings(record)["fixed-length-padding"]
    assert finding.framework == "transformers"
    assert finding.changes_at == f"tests/scripts/frameworks/hf_trainer_padding.py:{_line_of(script, 'return tokenizer(batch')}"
    assert "processing_class" in finding.advice and "group_by_length" in finding.advice


# --- targets padded with -100, with no mask ------------------------------------------------------------

def test_labels_padded_with_the_ignore_index_give_the_mask_where_no_attention_mask_is():
    """A speech or vision encoder-decoder's batch (distil-whisper's, test set 19) has features and labels: its
    collator pads every target to 448 tokens with -100, and the decoder computes on all of them."""
    labels = torch.tensor([[5, 9, 2, -100, -100], [7, 3, -100, -100, -100], [4, 4, 4, 4, 1]])
    name, found = find_mask({"input_features": torch.randn(3, 80, 30), "labels": labels})
    assert name == "labels" and found.tolist() == (labels != -100).tolist()
    mask = _mask([3, 2, 5], 5)  # an attention mask, where there is one, comes first
    assert find_mask({"input_ids": labels.clamp(min=0), "attention_mask": mask, "labels": labels})[0] == "attention_mask"


def test_labels_that_mask_a_prompt_or_hold_no_padding_are_not_a_mask():
    prompt_masked = torch.tensor([[-100, -100, 5, 9, -100], [-100, 7, 3, -100, -100]])  # an SFT's answer-only loss
    assert find_mask({"input_ids": torch.ones(2, 5, dtype=torch.long), "labels": prompt_masked}) is None
    assert find_mask({"labels": torch.tensor([[5, 9, 2], [7, 3, 1]])}) is None  # nothing padded
    assert find_mask({"labels": torch.tensor([3, 1, 2])}) is None  # class labels


def test_a_collators_target_padding_is_named_as_a_padding_call(tmp_path):
    script = tmp_path / "distill.py"
    script.write_text("collator = DataCollatorSpeechSeq2SeqWithPadding(\n"
                      "    processor=processor,\n"
                      "    target_padding=\"max_length\",\n"
                      "    max_target_length=448,\n"
                      ")\n")
    assert padding_call([str(script)]) == f"{script}:3"  # the keyword's line, the one a user edits


@pytest.mark.slow
def test_targets_padded_to_a_fixed_length_are_found_in_a_real_run(tmp_path):
    """tests/scripts/padded_targets.py: 8 to 40 real tokens padded to 128 with -100, no attention mask. Timed
    plainly, padding each batch to its longest target ran the script 1.6-2.3x faster (two pairs, under load);
    the rule's gain assumes all the step's work shrinks with the tokens, an upper bound it says."""
    from probe_helpers import SCRIPTS, diagnose
    proc, record = diagnose(tmp_path / "out", str(SCRIPTS / "padded_targets.py"))
    assert proc.returncode == 0, proc.stderr
    facts = facts_by_name(compute_facts(record))
    assert facts["padding_mask"] == "labels" and facts["padded_length"] == 128
    assert 0.7 < facts["padding_share"] < 0.9
    finding = _findings(record)["fixed-length-padding"]
    assert "labels hold" in finding.message and "at most that share" in finding.message
    assert "Pad the targets of each batch only to its own longest" in finding.advice


def test_distil_whispers_labels_padded_to_448_are_found():
    """distil-whisper (test set 19, run again after its held-out run: a later review, not the held-out figure):
    its collator pads every target to 448 with -100 (target_padding="max_length") and its batches carry no text
    mask. Held out, fixed-length-padding was missed; its expert measured 4x from padding per batch."""
    record = recorded.load(recorded.RUNS_DIR / "real_test19" / "review" / "t19_distil_whisper_distillation.cpu.run.json.gz")
    facts = facts_by_name(compute_facts(record))
    assert facts["padding_mask"] == "labels" and facts["padded_length"] == 447 and facts["padding_share"] > 0.9
    assert facts["padding_at"].endswith("run_distillation.py:1417")  # recorded before the keyword's line was named
    finding = _findings(record)["fixed-length-padding"]
    assert finding.gain.speedup >= 1.5
