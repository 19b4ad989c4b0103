# ===- test_builders.py - training graphs from shapes -----------------------=== #
import numpy as np
import pytest

import mxfp8train as mx
from mxfp8train import builders

from conftest import BF16, f64, normal


def test_swiglu_mlp_is_the_small_example(repo):
    example = mx.Module.parse((repo / "examples" / "mlp_train_step_small.mlir").read_text())
    built = builders.swiglu_mlp(32, 256, 512)
    assert str(built) == str(example)
    assert [op.loc_name for op in built.walk()] == [op.loc_name for op in example.walk()]


def test_grouped_experts_is_the_small_example(repo):
    example = mx.Module.parse((repo / "examples" / "moe_train_step_small.mlir").read_text())
    built = builders.grouped_experts([37, 0, 32, 31], 256, 512)
    assert str(built) == str(example)
    assert [op.loc_name for op in built.walk()] == [op.loc_name for op in example.walk()]


def test_names_and_shapes():
    m = builders.swiglu_mlp(64, 128, 256, name="layers.0.mlp", function="step")
    names = [op.loc_name for op in m.operations("linalg.matmul")]
    assert sorted(names) == sorted("layers.0.mlp.w%d.%s" % (w, r)
                                   for w in (1, 2, 3) for r in ("fwd", "dgrad", "wgrad"))
    func = m.operations("func.func")[0]
    assert func.attributes["sym_name"] == "step"
    assert func.attributes["function_type"] == (
        "(tensor<64x128xbf16>, tensor<256x128xbf16>, tensor<256x128xbf16>, tensor<128x256xbf16>, "
        "tensor<64x128xbf16>) -> (tensor<64x128xbf16>, tensor<64x128xbf16>, tensor<256x128xbf16>, "
        "tensor<256x128xbf16>, tensor<128x256xbf16>)")
    moe = builders.grouped_experts([5, 0, 27], 64, 32, name="moe")
    offs = moe.operations("arith.constant")[0]
    assert offs.attributes["value"] == "dense<[5, 5, 32]> : tensor<3xi32>"
    assert moe.operations("mxfp8train.grouped_mm")[0].operand_types == (
        "tensor<32x64xbf16>", "tensor<3x32x64xbf16>", "tensor<3xi32>")


def test_bad_sizes_and_names():
    with pytest.raises(ValueError, match="hidden must be a positive int, got 0"):
        builders.swiglu_mlp(32, 64, 0)
    with pytest.raises(ValueError, match="tokens must be a positive int"):
        builders.linear(-1, 4, 4)
    with pytest.raises(ValueError, match="group_sizes must be a non-empty list"):
        builders.grouped_experts([3, -1], 32, 32)
    with pytest.raises(ValueError, match="name must be a non-empty string"):
        builders.linear(4, 4, 4, name='a"b')
    with pytest.raises(ValueError, match="function must be an MLIR symbol name"):
        builders.linear(4, 4, 4, function="1x")
    # Float group sizes used to be truncated ([1.5, 2.7] -> offs [1, 3]);
    # an all-empty list named a `tokens` argument the function lacks.
    with pytest.raises(ValueError, match="group_sizes must be a non-empty list of ints"):
        builders.grouped_experts([1.5, 2.7], 32, 32)
    with pytest.raises(ValueError, match=r"group_sizes must hold at least one token, got \[0, 0\]"):
        builders.grouped_experts([0, 0], 32, 32)
    with pytest.raises(ValueError, match=r"less than 2\*\*31 \(i32 offs\)"):
        builders.grouped_experts([2**31], 32, 32)
    # Sizes whose tensors pass 2**63 bytes (they used to fail in the IR
    # parser, or verify as IR the ops then reject).
    with pytest.raises(ValueError, match=r"make a tensor of more than 2\*\*63 bytes"):
        builders.linear(2**62, 64, 64)
    with pytest.raises(ValueError, match=r"make a tensor of more than 2\*\*63 bytes"):
        builders.swiglu_mlp(2**40, 2**40, 64)
    # numpy integers are sizes as in grouped_experts; a flag must be a bool
    # ('no' used to build the bias); a name must be a str.
    assert builders.linear(np.int64(32), 32, 32).verify() is None
    with pytest.raises(TypeError, match="bias must be a bool, got 'no'"):
        builders.linear(32, 32, 32, bias="no")
    with pytest.raises(TypeError, match="name must be a str, got 5"):
        builders.linear(32, 32, 32, name=5)
    with pytest.raises(TypeError, match="context must be an mxfp8train Context or None"):
        builders.linear(32, 32, 32, context="x")


@pytest.mark.parametrize("bias", [True, False])
def test_linear_numerics_against_numpy(bias):
    """bf16 results against a numpy reference with the graph's roundings:
    f32 products rounded to bf16 (then + bias, rounded again); tolerance
    one bf16 ulp (rtol 2^-7), for the f32 summation order."""
    T, I, O = 32, 64, 96
    rng = np.random.default_rng(1)
    x, w, b, dy = normal(rng, (T, I), 1.0), normal(rng, (O, I), 0.02), normal(rng, (O,), 0.02), normal(rng, (T, O), 1.0)
    m = builders.linear(T, I, O, bias=bias)
    inputs = [x, w, b, dy] if bias else [x, w, dy]
    results = mx.run(m, "linear_train_step", inputs)
    assert [r.dtype for r in results] == [np.dtype(BF16)] * len(results)
    assert [r.shape for r in results] == [(T, O), (T, I), (O, I)] + ([(O,)] if bias else [])

    def rnd(a):
        return f64(np.asarray(a, np.float32).astype(BF16))

    y = rnd(f64(x) @ f64(w).T)
    if bias:
        y = rnd(y + f64(b))
    expected = [y, rnd(f64(dy) @ f64(w)), rnd(f64(dy).T @ f64(x))]
    if bias:
        expected.append(rnd(f64(dy).sum(0)))
    for got, want in zip(results, expected):
        np.testing.assert_allclose(f64(got), want, rtol=2.0**-7, atol=1e-6)
