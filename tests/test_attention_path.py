"""Attention on scaled_dot_product_attention's unfused math path (rules/attention-math-path.toml): the profile
times the math path's forward and its matrix products (trace/work.py), the facts take the products out, and the
rule names the script's scaled_dot_product_attention call.

Recorded runs: the planted sample (sample_scripts/attention_dropout_math_path.py) and test set 17's llama2.c run
again after the rule was made (a review, not the held-out record: the experts' lists had no such rule). Both
train with attention dropout on a CPU, which keeps the fused flash kernel from running.
"""

from __future__ import annotations

from pathlib import Path

import recorded
from trainprobe.engine import load_rules
from trainprobe.engine.evaluate import evaluate_rules
from trainprobe.facts import compute_facts, facts_by_name

ROOT = Path(__file__).resolve().parent.parent
RULES, _ = load_rules()


def _facts_and_findings(record):
    facts = facts_by_name(compute_facts(record))
    findings, errors = evaluate_rules(RULES, facts)
    assert errors == []
    return facts, {f.id: f for f in findings}


def _line_of(path: Path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if text in line)


def test_the_planted_samples_math_path_is_timed_and_its_call_named():
    record = recorded.load(recorded.RUNS_DIR / "attention_dropout_math_path.cpu.run.json")
    facts, findings = _facts_and_findings(record)
    math, extra = facts["attention_math_time_per_step"], facts["attention_math_extra_per_step"]
    # The forward's math path, most of it outside the products: the 16-wide heads' bmm are a sliver of the
    # 256 x 256 scores' softmax and dropout.
    assert 0 < extra < math < facts["forward_per_step"] * 1.2 and extra > 0.5 * math
    finding = findings["attention-math-path"]
    sample = ROOT / "sample_scripts" / "attention_dropout_math_path.py"
    assert finding.changes_at == f"sample_scripts/attention_dropout_math_path.py:{_line_of(sample, 'y = F.scaled_dot_product_attention(')}"
    assert finding.severity == "warning" and "dropout_p=0.0" in finding.advice


def test_llama2cs_attention_dropout_is_named_at_the_experts_line():
    """llama2.c's expert measured 3.4-3.9x from dropout_p=0.0 at model.py:148 (a floor of 2.0x here)."""
    record = recorded.load(recorded.RUNS_DIR / "real_test17" / "review" / "t17_llama2c_stories260k.cpu.run.json.gz")
    facts, findings = _facts_and_findings(record)
    finding = findings["attention-math-path"]
    assert finding.changes_at == "model.py:148" and facts["attention_call_at"] == "model.py:148"
    assert finding.gain.speedup is not None and 1.5 < finding.gain.speedup < 4


def test_a_run_whose_attention_is_fused_or_absent_gets_no_finding():
    # The held-out llama2.c record was made before the math path was timed; clean_mlp has no attention.
    for path in (recorded.RUNS_DIR / "real_test17" / "t17_llama2c_stories260k.cpu.run.json.gz",
                 recorded.RUNS_DIR / "clean_mlp.cpu.run.json"):
        facts, findings = _facts_and_findings(recorded.load(path))
        assert facts["attention_math_time_per_step"] is None and "attention-math-path" not in findings


# --- nn.MultiheadAttention's weights (rules/attention-weights-returned.toml) -------------------------------------

def test_multihead_attention_calls_that_make_their_weights_are_counted_timed_and_named():
    """The planted sample's blocks call nn.MultiheadAttention with need_weights left True and discard the weights
    (test set 17's DDPM did the same: 1.9x from passing False). No gain is shown: only the calls' time is known."""
    record = recorded.load(recorded.RUNS_DIR / "attention_weights_returned.cpu.run.json")
    facts, findings = _facts_and_findings(record)
    assert facts["attention_weights_calls_per_step"] == 2  # two blocks, one call each
    assert 0.1 < facts["attention_weights_share"] < 0.9
    finding = findings["attention-weights-returned"]
    sample = ROOT / "sample_scripts" / "attention_weights_returned.py"
    assert finding.changes_at == f"sample_scripts/attention_weights_returned.py:{_line_of(sample, 'h, _ = self.attention(h, h, h)')}"
    assert "need_weights=False" in finding.advice and finding.gain.speedup is None


def test_a_transformer_layer_that_asks_for_no_weights_is_not_counted(tmp_path):
    """PyTorch's own TransformerEncoderLayer passes need_weights=False; eval calls and no_grad calls are not
    training: none of them counts. Run live under the probe's patch."""
    import time

    import torch

    from trainprobe.probe.config import ChildConfig, WindowPlan
    from trainprobe.probe.events import EventSink
    from trainprobe.probe.instrument import Instrumentation

    config = ChildConfig(out_dir=str(tmp_path), events_path=str(tmp_path / "events.jsonl"), t0=time.monotonic(),
                         plan=WindowPlan(profiler=False, cprofile=False, census=False, full=True, max_seconds=None))
    sink = EventSink(config.events_path)
    instr = Instrumentation(config, sink)
    instr.install()
    try:
        layer = torch.nn.TransformerEncoderLayer(16, 2, 32, batch_first=True)
        layer(torch.randn(2, 8, 16)).sum().backward()
        attention = torch.nn.MultiheadAttention(16, 2, batch_first=True)
        x = torch.randn(2, 8, 16)
        attention(x, x, x, need_weights=False)
        with torch.no_grad():
            attention(x, x, x)
        attention.eval()
        attention(x, x, x)
        assert instr.reg.attention_weights_calls == 0
        attention.train()
        attention(x, x, x)
        assert instr.reg.attention_weights_calls == 1
    finally:
        instr.uninstall()
        sink.close()
