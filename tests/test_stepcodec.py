"""Steps travel from the child to the parent as JSON lines: every field must come back as it left."""

import json

import pytest

from trainprobe.probe.events import EventSink, read_events
from trainprobe.probe.stepcodec import STEP_FIELDS, encode_step, step_fields
from trainprobe.record import Step


def values(**changes):
    step = {
        "index": 12, "start": 3.141592653589, "duration": 0.0123456789, "data_wait": 0.001, "h2d": 0.0,
        "forward": 0.004, "backward": 0.005, "optimizer": 0.0012, "zero_grad": 2.5e-05, "eval": 0.0,
        "other": 0.0011, "probe": 4.6e-05, "phase": "steady", "boundary": "optimizer", "batches": 1,
        "samples": 64, "epoch_start": True, "validation": False, "debug": 0.0, "updates": 2,
        "lr": 0.000312345678901234, "data_wait_cpu": 0.000812345, "data_receive": 0.000512345,
    }
    step.update(changes)
    return tuple(step[name] for name in STEP_FIELDS)


@pytest.mark.parametrize("changes", [{}, {"samples": None}, {"epoch_start": False, "validation": True},
                                     {"start": 12345.678901234, "boundary": "batch", "phase": "warmup"},
                                     {"lr": None, "updates": 0}, {"boundary": "fetch", "lr": 3.0}])
def test_a_step_comes_back_as_it_left(changes):
    sent = values(**changes)
    line = encode_step(sent)
    assert line.endswith("\n") and "\n" not in line[:-1]
    event = json.loads(line)
    assert event["type"] == "step"
    back = step_fields(event)
    for name, value in zip(STEP_FIELDS, sent):
        if name == "lr" and value is not None:
            assert back[name] == value, name  # the learning rate keeps every digit
        elif isinstance(value, float):
            assert back[name] == pytest.approx(value, abs=1e-9), name  # nanoseconds are kept
        else:
            assert back[name] == value and type(back[name]) is type(value), name
    assert Step.from_dict(back).samples == sent[STEP_FIELDS.index("samples")]


def test_the_sink_writes_steps_and_other_events_in_order_and_skips_a_torn_line(tmp_path):
    path = tmp_path / "events.jsonl"
    sink = EventSink(path)
    sink.emit("window", name="steady", t=1.5, step=3)
    sink.emit_step(values(index=0))
    sink.emit_step(values(index=1, samples=None))
    sink.emit("note", text='quotes " and \\ survive')
    sink.close()
    with open(path, "a", encoding="utf-8") as fh:
        fh.write('{"type": "step", "v": [2, 0.1')  # killed mid-write
    events = list(read_events(path))
    assert [e["type"] for e in events] == ["window", "step", "step", "note"]
    assert [step_fields(e)["index"] for e in events if e["type"] == "step"] == [0, 1]
    assert events[-1]["text"] == 'quotes " and \\ survive'


def test_a_learning_rate_that_is_not_a_number_is_sent_as_unknown():
    back = step_fields(json.loads(encode_step(values(lr=float("nan")))))
    assert back["lr"] is None
