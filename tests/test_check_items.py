"""The readiness registry: every item is one module with a title, a measurement, a grader and its expect keys."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest

from trainprobe.readiness import CheckResult, Expectations, grade_all, items
from trainprobe.readiness.bench import BENCHMARKS as CHILD_BENCHMARKS
from trainprobe.readiness.expect import ExpectError, parse_expectations
from trainprobe.readiness.item import REQUIREMENT_KINDS, Item
from trainprobe.readiness.results import FAIL, Grade

DATA = Path(__file__).parent / "data" / "check"
# A value of each kind that the expect file accepts and one it refuses.
GOOD = {"flag": True, "count": 4, "version": "2.4", "number": 8.5}
BAD = {"flag": "yes", "count": 1.5, "version": "latest", "number": -1}


def _item_modules() -> list[str]:
    return [m.name for m in pkgutil.iter_modules(items.__path__)]


def test_every_item_module_is_registered_once_in_order():
    modules = {name: importlib.import_module(f"{items.__name__}.{name}") for name in _item_modules()}
    registered = [m.ITEM for m in modules.values()]
    assert sorted(i.key for i in registered) == sorted(i.key for i in items.ITEMS)
    assert all(modules[i.key].ITEM is i for i in items.ITEMS)  # a module is named by its item's key
    assert [i.key for i in items.ITEMS] == [i.key for i in items.QUICK] + [i.key for i in items.BENCHMARKS]
    for name, module in modules.items():
        assert module.__all__ and all(hasattr(module, a) for a in module.__all__), name
        assert module.__doc__ and module.__doc__.split(":")[0] == module.ITEM.title, name


@pytest.mark.parametrize("item", items.ITEMS, ids=lambda i: i.key)
def test_every_item_has_a_title_a_grader_and_one_way_to_measure(item: Item):
    assert item.title
    assert callable(item.grade)
    assert (item.measure is None) != (item.benchmark is None)
    if item.benchmark is not None:
        assert item.benchmark.name in CHILD_BENCHMARKS  # the child can run it
        assert item.benchmark.unit and item.benchmark.timeout > 0
    for req in item.requirements:
        assert req.kind in REQUIREMENT_KINDS
        assert items.REQUIREMENTS[req.key] == (item, req)


@pytest.mark.parametrize("key", sorted(items.REQUIREMENTS))
def test_every_requirement_key_is_read_from_the_expect_file_and_makes_its_item_required(key):
    item, req = items.REQUIREMENTS[key]
    ex = parse_expectations({"require": {key: GOOD[req.kind]}}, "course.toml")
    assert ex.required_items() == {item.key}
    with pytest.raises(ExpectError, match=f"^course.toml: {key} must be"):
        parse_expectations({"require": {key: BAD[req.kind]}}, "course.toml")
    # graded as required: a result without the item fails in a full check
    r = CheckResult.load(DATA / "here_quick.json")
    (g,) = [g for g in grade_all((), ex, r.facts, "full") if g.key == item.key]
    assert g.required and g.status == FAIL


def test_an_expect_key_that_no_item_reads_is_refused_with_the_valid_keys():
    with pytest.raises(ExpectError) as err:
        parse_expectations({"require": {"gpu_ram": 8, "ram_gb": 8}}, "course.toml")
    message = str(err.value)
    assert message.startswith("course.toml: unknown requirement(s) ['gpu_ram']; valid keys: ")
    assert message.split("valid keys: ")[1].split(", ") == sorted(items.REQUIREMENTS)
    with pytest.raises(ExpectError, match="unknown requirement"):
        Expectations(require={"gpu_ram": 8})
    with pytest.raises(KeyError, match="no readiness item reads"):
        Expectations().get("gpu_ram")


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*.json")))
def test_every_recorded_measurement_is_graded_by_its_item(name):
    r = CheckResult.load(DATA / name)
    grades = grade_all(r.measurements, Expectations(), r.facts, r.mode)
    assert [g.key for g in grades] == [m.key for m in r.measurements]
    assert all(isinstance(g, Grade) and g.title == items.item(g.key).title for g in grades)
    assert not any("could not grade" in (g.note or "") for g in grades)


def test_a_quick_gpu_item_without_a_gpu_is_skipped_with_one_reason():
    r = CheckResult.load(DATA / "here_quick.json")
    assert not r.facts.has_gpu
    for item in items.QUICK:
        m = items.measure(item, r.facts)
        if item.needs_gpu:
            assert m.skipped and m.reason == "needs a GPU (none visible)", item.key
    with pytest.raises(ValueError, match="benchmark"):
        items.measure(items.item("train_benchmark"), r.facts)
