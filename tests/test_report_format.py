import pytest

from trainprobe.report import format as fmt


@pytest.mark.parametrize("value, text", [
    (None, "—"), (0.1823, "182 ms"), (2e-5, "20.0 µs"), (12.3, "12.3 s"), (3725, "1 h 02 min"), (75, "1 min 15 s"),
])
def test_seconds(value, text):
    assert fmt.seconds(value) == text


def test_sizes_rates_shares():
    assert fmt.nbytes(40 * 2**30) == "40.0 GiB"
    assert fmt.nbytes(512) == "512 B"
    assert fmt.rate(2**20) == "1.00 MiB/s"
    assert fmt.share(0.623) == "62%"
    assert fmt.percent(97.4) == "97%"
    assert fmt.ratio(2.53) == "2.5×" and fmt.ratio(12.4) == "12×"
    assert fmt.count(36000) == "36,000"
    assert fmt.number(float("nan")) == "—"
