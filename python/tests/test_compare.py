# ===- test_compare.py - compare() over mxfp8trainCompareFunction ----------=== #
import math

import pytest

import mxfp8train as mx
from mxfp8train import _mxfp8train, builders


def test_compare_reports_every_result_and_matmul():
    m = builders.linear(32, 64, 32, bias=False)
    if not hasattr(_mxfp8train, "compare_function"):
        # TODO(compare): until the C API has mxfp8trainCompareFunction.
        with pytest.raises(NotImplementedError, match="mxfp8trainCompareFunction"):
            mx.compare(m)
        return
    report = mx.compare(m, "linear_train_step", "mxfp8_rceil", vectorize=False, seed=3)
    assert [r.name for r in report.matmuls] == ["linear.fwd", "linear.dgrad", "linear.wgrad"]
    assert len(report.results) == 3
    for row in report.results + report.matmuls:
        assert 15 < row.sqnr < 60, row
        assert math.isnan(row.bar) or row.passed == (row.sqnr >= row.bar)
    assert report.passed == all(r.passed for r in report.results + report.matmuls)
    with pytest.raises(mx.MLIRError, match="nope"):
        mx.compare(m, "nope")
