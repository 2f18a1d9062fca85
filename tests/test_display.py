"""One place for how numbers, colour and templates look, everywhere trainprobe shows them."""

import io
import math

import pytest
from jinja2 import Undefined

from trainprobe import display


@pytest.mark.parametrize("value, text", [
    (None, "unknown"), (0.1823, "182 ms"), (2e-5, "20.0 µs"), (12.3, "12.3 s"), (3725, "1 h 02 min"),
    (75, "1 min 15 s"), (0, "0 s"), (float("nan"), "unknown"),
])
def test_seconds(value, text):
    assert display.seconds(value) == text


def test_sizes_rates_shares_ratios_counts():
    assert display.nbytes(40 * 2**30) == "40.0 GiB"
    assert display.nbytes(512) == "512 B"
    assert display.rate(2**20) == "1.00 MiB/s"
    assert display.share(0.623) == "62%" and display.share(0.6234, 1) == "62.3%"
    assert display.percent(97.4) == "97%"
    assert display.ratio(2.53) == "2.5×" and display.ratio(12.4) == "12×"
    assert display.count(36000) == "36,000"
    assert display.number(7) == "7" and display.number(12345) == "12,345" and display.number(0.01234) == "0.0123"
    assert display.number(92.0) == "92" and display.number(92.5) == "92.5" and display.number(1.5) == "1.50"
    assert display.in_unit(1234.4, "images/s") == "1,234 images/s" and display.in_unit(3.2, "GB/s") == "3.20 GB/s"


@pytest.mark.parametrize("fn", [display.seconds, display.nbytes, display.rate, display.share, display.percent,
                                display.ratio, display.count, display.number, display.yes_no])
def test_unknown_is_spelled_one_way(fn):
    for missing in (None, float("nan"), math.inf, Undefined()):
        assert fn(missing) == display.UNKNOWN


def test_by_unit_picks_the_formatter_of_the_facts_unit():
    assert display.by_unit(0.25, "share") == "25%"
    assert display.by_unit(0.004, "s") == "4.00 ms"
    assert display.by_unit(True, "bool") == "yes" and display.by_unit(True, "count") == "yes"
    assert display.by_unit("", "text") == "none"
    assert display.by_unit(None, "s") == display.UNKNOWN


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_use_color_respects_no_color_term_and_tty(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert display.use_color(_Tty()) is True
    assert display.use_color(io.StringIO()) is False
    assert display.use_color(None) is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert display.use_color(_Tty()) is False
    monkeypatch.setenv("NO_COLOR", "")
    monkeypatch.setenv("TERM", "dumb")
    assert display.use_color(_Tty()) is False


def test_painter_only_paints_when_asked():
    assert display.painter(True)("x", "bold", "red") == "\x1b[1;31mx\x1b[0m"
    assert display.painter(False)("x", "bold") == "x"


def test_one_template_environment_escapes_every_template(tmp_path):
    (tmp_path / "page.txt").write_text("{{ text }} {{ share|share }} {{ share|pct_width }}")
    env = display.jinja_environment(str(tmp_path))
    out = env.get_template("page.txt").render(text="<script>", share=1.5)
    assert out == "&lt;script&gt; 150% 100.00%"
