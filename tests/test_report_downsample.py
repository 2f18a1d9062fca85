import math

import pytest

from trainprobe.report import MAX_POINTS, downsample
from trainprobe.report.downsample import thin_indices


def test_short_series_come_back_unchanged():
    assert downsample([0, 1, 2], [5, None, 7]) == ([0, 1, 2], [5, None, 7])


def test_long_series_are_capped_and_keep_a_one_sample_spike():
    n = 36_000
    t = [i / 10 for i in range(n)]
    y = [50.0] * n
    y[12_345] = 100.0
    y[23_456] = 0.0
    ts, ys = downsample(t, y)
    assert len(ts) <= MAX_POINTS
    assert 100.0 in ys and 0.0 in ys
    assert ts == sorted(ts)
    assert ts[0] == 0.0


def test_missing_buckets_become_gaps():
    t = list(range(4000))
    y = [None if 1000 <= i < 2000 else float(i) for i in t]
    ts, ys = downsample(t, y, max_points=100)
    assert None in ys
    assert max(v for v in ys if v is not None) == 3999.0


def test_nan_counts_as_missing():
    ts, ys = downsample([0, 1, 2], [1.0, math.nan, 2.0])
    assert ys == [1.0, None, 2.0]


def test_max_points_must_allow_a_min_and_a_max():
    with pytest.raises(ValueError):
        downsample([0, 1, 2], [0, 1, 2], max_points=1)


def test_thin_indices_keep_the_ends():
    idx = thin_indices(36_000, 1500)
    assert idx[0] == 0 and idx[-1] == 35_999 and len(idx) <= 1500
    assert thin_indices(5, 10) == [0, 1, 2, 3, 4]
