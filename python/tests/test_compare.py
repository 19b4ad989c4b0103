# ===- test_compare.py - compare() over mxfp8trainCompareFunction ----------=== #
import math

import pytest

import mxfp8train as mx
from mxfp8train import builders


def test_compare_reports_every_result_and_matmul():
    m = builders.linear(32, 64, 32, bias=False)
    report = mx.compare(m, "linear_train_step", "mxfp8_rceil", vectorize=False, seed=3)
    assert [r.name for r in report.matmuls] == ["linear.fwd", "linear.dgrad", "linear.wgrad"]
    assert len(report.results) == 3
    for row in report.results + report.matmuls:
        assert 15 < row.sqnr < 60, row
        assert math.isnan(row.bar) or row.passed == (row.sqnr >= row.bar)
    assert report.passed == all(r.passed for r in report.results + report.matmuls)
    with pytest.raises(mx.MLIRError, match="nope"):
        mx.compare(m, "nope")


@pytest.mark.parametrize(
    "recipe, wgrad_bar",
    [("float8_rowwise", 23.0), ("float8_tensorwise", 23.0), ("float8_rowwise_with_gw_hp", None)],
)
def test_compare_float8_recipes_use_the_float8_bars(recipe, wgrad_bar):
    # The same shared recipe parser as mxfp8-run --compare: Float8 names run,
    # and each GEMM is held to SPEC-float8 §7's per-linear bars (fwd 25, dX 24,
    # dW 23 dB); rowwise_with_gw_hp keeps the weight gradient in high
    # precision (not compared: NaN SQNR and bar).
    m = builders.linear(32, 64, 32, bias=False)
    report = mx.compare(m, "linear_train_step", recipe, vectorize=False, seed=3)
    bars = {r.name: r.bar for r in report.matmuls}
    assert bars["linear.fwd"] == 25.0 and bars["linear.dgrad"] == 24.0
    if wgrad_bar is None:
        assert math.isnan(bars["linear.wgrad"])
    else:
        assert bars["linear.wgrad"] == wgrad_bar
    for row in report.matmuls:
        assert math.isnan(row.sqnr) == math.isnan(row.bar)
        assert math.isnan(row.bar) or row.passed == (row.sqnr >= row.bar)
    assert recipe in mx.RECIPES
