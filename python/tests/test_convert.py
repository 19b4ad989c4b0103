# ===- test_convert.py - convert() and its report ---------------------------=== #
import enum

import numpy as np
import pytest

import mxfp8train as mx
from mxfp8train import builders

MLP_ORDER = ["mlp.w1.fwd", "mlp.w3.fwd", "mlp.w2.fwd", "mlp.w2.dgrad", "mlp.w2.wgrad",
             "mlp.w1.dgrad", "mlp.w3.dgrad", "mlp.w1.wgrad", "mlp.w3.wgrad"]


@pytest.fixture(scope="module")
def mlp():
    return builders.swiglu_mlp(32, 256, 512)


def test_default_recipe_converts_every_matmul_with_its_role(mlp):
    before = str(mlp)
    converted, report = mx.convert(mlp)
    assert str(mlp) == before  # the input is not modified
    assert report.recipe == "#mxfp8train.recipe<mxfp8_rceil>"
    # The module records its recipe as the pass does (the tools' bars).
    assert "mxfp8train.recipe = #mxfp8train.recipe<mxfp8_rceil>" in str(converted)
    assert "mxfp8train.recipe" not in before
    assert [e.name for e in report.entries] == MLP_ORDER
    assert all(e.decision == "converted" for e in report.entries)
    assert [e.role for e in report.entries] == [
        "forward", "forward", "forward", "dgrad", "wgrad", "dgrad", "dgrad", "wgrad", "wgrad"]
    fwd = report.entry("mlp.w1.fwd")
    assert (fwd.op_name, fwd.batch, fwd.m, fwd.n, fwd.k) == ("linalg.matmul", 0, 32, 512, 256)
    assert fwd.reason.startswith("mxfp8train: converted (role forward")
    wgrad = report.entry("mlp.w1.wgrad")
    assert (wgrad.m, wgrad.n, wgrad.k) == (512, 256, 32)
    names = [op.name for op in converted.walk()]
    assert names.count("mxfp8train.scaled_mm") == 9
    assert names.count("linalg.matmul") == 0
    with pytest.raises(KeyError):
        report.entry("mlp.w4.fwd")


def test_wgrad_with_hp_keeps_the_wgrads(mlp):
    converted, report = mx.convert(mlp, "mxfp8_rceil_wgrad_with_hp")
    assert [e.name for e in report.kept_high_precision] == [
        "mlp.w2.wgrad", "mlp.w1.wgrad", "mlp.w3.wgrad"]
    assert all(e.role == "wgrad" for e in report.kept_high_precision)
    assert report.kept_high_precision[0].reason == "role wgrad, recipe wgrad_with_hp = true"
    assert len(report.converted) == 6
    assert [op.name for op in converted.walk()].count("linalg.matmul") == 3


def test_fields_mirror_torchao_config(mlp):
    class ScaleCalculationMode(enum.Enum):  # as torchao spells it
        FLOOR = "floor"

    _, report = mx.convert(mlp, scale_calculation_mode=ScaleCalculationMode.FLOOR,
                           wgrad_with_hp=True, out_dtype="float32",
                           kernel_preference="EMULATED")
    assert report.recipe == ("#mxfp8train.recipe<scale_calculation_mode = floor, wgrad_with_hp = true, "
                             "out_dtype = f32, kernel_preference = emulated>")
    assert len(report.kept_high_precision) == 3
    _, report = mx.convert(mlp, "mxfp8_rceil_wgrad_with_hp", wgrad_with_hp=False)
    assert report.recipe == "#mxfp8train.recipe<mxfp8_rceil>"
    assert len(report.converted) == 9


def test_filters_by_name_and_size(mlp):
    _, report = mx.convert(mlp, exclude=["w2"])
    assert [e.name for e in report.skipped] == ["mlp.w2.fwd", "mlp.w2.dgrad", "mlp.w2.wgrad"]
    assert report.entry("mlp.w2.fwd").reason == "location name 'mlp.w2.fwd' matches exclude 'w2'"
    assert report.entry("mlp.w2.fwd").role == ""
    assert len(report.converted) == 6
    _, report = mx.convert(mlp, min_size=64)
    assert len(report.skipped) == 9
    assert report.entry("mlp.w1.fwd").reason == "M = 32 is below min-size 64"


def test_grouped_experts_report():
    moe = builders.grouped_experts([37, 0, 32, 31], 256, 512)
    converted, report = mx.convert(moe)
    assert len(report.converted) == 9
    fwd = report.entry("experts.w1.fwd")
    assert (fwd.op_name, fwd.role, fwd.batch, fwd.m, fwd.n, fwd.k) == (
        "mxfp8train.grouped_mm", "forward", 4, 100, 512, 256)
    wgrad = report.entry("experts.w2.wgrad")
    assert (wgrad.role, wgrad.batch, wgrad.m, wgrad.n, wgrad.k) == ("wgrad", 4, 256, 512, 100)
    assert "token groups padded to 32" in wgrad.reason
    assert [op.name for op in converted.walk()].count("mxfp8train.scaled_grouped_mm") == 9


def test_bad_recipes_raise_with_the_parser_message(mlp):
    with pytest.raises(mx.MLIRError) as info:
        mx.convert(mlp, "mxfp8_nope")
    assert "invalid recipe 'mxfp8_nope'" in str(info.value)
    assert "unknown recipe 'mxfp8_nope': expected one of the named recipes" in str(info.value)
    assert "float8_rowwise" in str(info.value)
    # A size out of range is a ValueError before the recipe parser (its
    # MLIRError named the whole recipe, 'mxfp8_rceil').
    with pytest.raises(ValueError, match="token_group_alignment must be 32 or 128, got 64"):
        mx.convert(mlp, token_group_alignment=64)
    with pytest.raises(ValueError, match="unknown scale_calculation_mode 'half'"):
        mx.convert(mlp, scale_calculation_mode="half")
    with pytest.raises(ValueError, match=r"unsupported out_dtype 'f16' \(expected bf16 or f32\)"):
        mx.convert(mlp, out_dtype="f16")
    with pytest.raises(ValueError, match=r"unsupported out_dtype 'f8E4M3FN' \(expected bf16 or f32\)"):
        mx.convert(mlp, out_dtype="f8E4M3FN")
    with pytest.raises(ValueError, match=r"unsupported elem_dtype 'bf16' \(expected f8E4M3FN or f8E5M2\)"):
        mx.convert(mlp, elem_dtype="bf16")


def test_argument_types_are_checked_not_coerced():
    # A string flag used to be read as true ("false" -> wgrad_with_hp), a
    # float size truncated, and a wrong type surfaced as the extension's
    # signature dump.
    mlp = builders.swiglu_mlp(32, 64, 128)
    with pytest.raises(TypeError, match="wgrad_with_hp must be a bool, got 'false'"):
        mx.convert(mlp, wgrad_with_hp="false")
    with pytest.raises(TypeError, match="pad_token_groups_for_grouped_mm must be a bool"):
        mx.convert(mlp, pad_token_groups_for_grouped_mm=1)
    with pytest.raises(TypeError, match="token_group_alignment must be an int, got 32.0"):
        mx.convert(mlp, token_group_alignment=32.0)
    with pytest.raises(ValueError, match=r"min_size must be in \[0, 2\*\*63\), got -1"):
        mx.convert(mlp, min_size=-1)
    with pytest.raises(ValueError, match=r"min_size must be in \[0, 2\*\*63\)"):
        mx.convert(mlp, min_size=2**70)
    with pytest.raises(TypeError, match="exclude must hold strings, got 1"):
        mx.convert(mlp, exclude=[1])
    with pytest.raises(TypeError, match="recipe must be a str"):
        mx.convert(mlp, None)
    with pytest.raises(TypeError, match="module must be an mxfp8train Module, got str"):
        mx.convert("module {}")
    # numpy scalars are fine.
    converted, report = mx.convert(mlp, wgrad_with_hp=np.bool_(True), min_size=np.int64(16))
    assert len(report.kept_high_precision) == 3
    # From a new-user trial: each of these used to reach the extension (its
    # signature dump, or an MLIRError naming the whole recipe), or filter
    # nothing.
    with pytest.raises(TypeError, match="min_size must be an int, got None"):
        mx.convert(mlp, min_size=None)
    with pytest.raises(ValueError, match="token_group_alignment must be 32 or 128, got 33"):
        mx.convert(mlp, token_group_alignment=33)
    with pytest.raises(ValueError, match="exclude patterns must be non-empty"):
        mx.convert(mlp, exclude=[""])
    with pytest.raises(TypeError, match="exclude must be a str or an iterable of str, got b'fwd'"):
        mx.convert(mlp, exclude=b"fwd")


def test_dtype_fields_take_scalar_types(mlp):
    # The docstring's spellings: scalar types (ml_dtypes.bfloat16,
    # np.float32) as well as dtypes and strings; they used to be rejected.
    import ml_dtypes

    for out_dtype, text in [(ml_dtypes.bfloat16, "mxfp8_rceil"), (np.float32, "out_dtype = f32"),
                            (np.dtype(np.float32), "out_dtype = f32"), ("f32", "out_dtype = f32")]:
        assert text in mx.convert(mlp, out_dtype=out_dtype)[1].recipe
    assert "elem_type = f8E5M2" in mx.convert(mlp, elem_dtype=ml_dtypes.float8_e5m2)[1].recipe
    with pytest.raises(ValueError, match="unsupported out_dtype"):
        mx.convert(mlp, out_dtype=np.float16)


def test_invalid_role_raises_at_the_matmul_and_keeps_the_report():
    text = builders.linear_text(32, 64, 64).replace(
        "linalg.matmul ins(%dY, %w", 'linalg.matmul {mxfp8train.role = "weight"} ins(%dY, %w')
    m = mx.Module.parse(text)
    with pytest.raises(mx.MLIRError) as info:
        mx.convert(m)
    err = info.value
    assert err.summary == "conversion failed"
    located = [d for d in err.diagnostics if d.location == 'loc("linear.dgrad")']
    assert located and located[0].severity == "error"
    assert "weight" in located[0].message
    decisions = {e.name: e.decision for e in err.report.entries}
    assert decisions == {"linear.fwd": "converted", "linear.dgrad": "invalid", "linear.wgrad": "converted"}
