# ===- test_run.py - run() against mxfp8-run and its errors ------------------=== #
import re
import subprocess

import ml_dtypes
import numpy as np
import pytest

import mxfp8train as mx
from mxfp8train import builders

from conftest import BF16, f64, normal

RESULTS = ["out", "dx", "dw1", "dw3", "dw2"]


def mxfp8_run_outputs(tool, module_text, tmp_path, tag):
    """Runs mxfp8-run on the CPU (seed 7) and returns (inputs, results) as
    bf16 arrays read from its .npy files (results named after the SSA
    values the printed module returns)."""
    path = tmp_path / (tag + ".mlir")
    path.write_text(module_text)
    out = tmp_path / tag
    subprocess.run([str(tool), str(path), "--device=cpu", "--seed=7",
                    "--output-dir=%s" % out, "--save-inputs"], check=True, capture_output=True)
    saved = sorted((out / "inputs").iterdir(), key=lambda p: int(p.name.split("_")[0]))
    inputs = [np.load(p).view(BF16) for p in saved]
    ret = re.search(r"^\s*return (.*?) :", module_text, re.M).group(1)
    names = [v.strip().lstrip("%") for v in ret.split(",")]
    results = [np.load(out / (n + ".npy")).view(BF16) for n in names]
    return inputs, results


def sqnr_db(ref, got):
    ref, got = f64(ref), f64(got)
    return 10 * np.log10(np.sum(ref ** 2) / np.sum((ref - got) ** 2))


def test_same_bits_as_mxfp8_run(mxfp8_run, tmp_path):
    """bf16 and MXFP8 (mxfp8_rceil) runs of a small SwiGLU step give the
    bits mxfp8-run writes, on the inputs it generated."""
    m = builders.swiglu_mlp(32, 64, 128)
    converted, report = mx.convert(m, "mxfp8_rceil")
    assert len(report.converted) == 9
    inputs, expected = mxfp8_run_outputs(mxfp8_run, str(m), tmp_path, "bf16")
    got = mx.run(m, "mlp_train_step", inputs, vectorize=False)
    for name, g, e in zip(RESULTS, got, expected):
        assert g.dtype == np.dtype(BF16) and g.shape == e.shape, name
        assert np.array_equal(g.view(np.uint16), e.view(np.uint16)), name

    _, expected_mx = mxfp8_run_outputs(mxfp8_run, str(converted), tmp_path, "mxfp8")
    got_mx = mx.run(converted, "mlp_train_step", inputs, vectorize=False)
    for name, g, e in zip(RESULTS, got_mx, expected_mx):
        assert np.array_equal(g.view(np.uint16), e.view(np.uint16)), name
    # MXFP8 differs from bf16, by quantization noise only (a sanity bound,
    # not torchao's bars: SQNR above 18 dB for every result).
    assert not np.array_equal(got_mx[0].view(np.uint16), got[0].view(np.uint16))
    assert min(sqnr_db(g, c) for g, c in zip(got, got_mx)) > 18


def test_fp8_and_e8m0_arrays_round_trip():
    text = """
    func.func @q(%x: tensor<2x32xbf16>) -> (tensor<2x32xf8E4M3FN>, tensor<2x1xf8E8M0FNU>) {
      %q, %s = mxfp8train.quantize %x axis = 1 mode = rceil : tensor<2x32xbf16> -> tensor<2x32xf8E4M3FN>, tensor<2x1xf8E8M0FNU>
      return %q, %s : tensor<2x32xf8E4M3FN>, tensor<2x1xf8E8M0FNU>
    }"""
    m = mx.Module.parse(text)
    x = np.zeros((2, 32), BF16)
    x[0, :] = 1.0
    x[0, 5] = 448.0 * 4  # amax 1792: scale 2^2 (rceil), 1792 / 4 = 448
    x[1, :] = -0.5
    q, s = mx.run(m, "q", [x])
    assert q.dtype == np.dtype(ml_dtypes.float8_e4m3fn)
    assert s.dtype == np.dtype(ml_dtypes.float8_e8m0fnu)
    assert f64(s).ravel().tolist() == [4.0, 2.0 ** -9]
    assert f64(q[0, 5]) == 448.0 and f64(q[0, 0]) == 0.25
    assert f64(q[1, 0]) == -0.5 * 2.0 ** 9


def test_narrow_kinds_round_trip():
    """f16, i1 (numpy bool), i8 and i16 arrays in and out (session 34), with
    values against numpy; an unsupported dtype is a TypeError, a supported
    one of another element type an MLIRError naming the expected type."""
    text = """
    func.func @f(%h: tensor<4x8xf16>, %b: tensor<4x8xi1>, %c: tensor<4x8xi8>, %s: tensor<4x8xi16>)
        -> (tensor<4x8xf16>, tensor<4x8xi1>, tensor<4x8xi8>, tensor<4x8xi16>) {
      %z = arith.constant dense<0.0> : tensor<4x8xf16>
      %sel = arith.select %b, %h, %z : tensor<4x8xi1>, tensor<4x8xf16>
      %pos = arith.cmpf ogt, %h, %z : tensor<4x8xf16>
      %c2 = arith.addi %c, %c : tensor<4x8xi8>
      %k = arith.constant dense<30000> : tensor<4x8xi16>
      %s2 = arith.subi %s, %k : tensor<4x8xi16>
      return %sel, %pos, %c2, %s2 : tensor<4x8xf16>, tensor<4x8xi1>, tensor<4x8xi8>, tensor<4x8xi16>
    }"""
    m = mx.Module.parse(text)
    rng = np.random.default_rng(34)
    h = (rng.standard_normal((4, 8)) * 100).astype(np.float16)
    b = rng.standard_normal((4, 8)) > 0
    c = rng.integers(-128, 128, (4, 8)).astype(np.int8)
    s = rng.integers(-32768, 32768, (4, 8)).astype(np.int16)
    sel, pos, c2, s2 = mx.run(m, "f", [h, b, c, s])
    assert [r.dtype for r in (sel, pos, c2, s2)] == [np.float16, np.bool_, np.int8, np.int16]
    assert np.array_equal(sel.view(np.uint16), np.where(b, h, np.float16(0)).view(np.uint16))
    assert np.array_equal(pos, h > 0)
    assert np.array_equal(c2, (c.astype(np.int64) * 2).astype(np.int8))
    assert np.array_equal(s2, (s.astype(np.int64) - 30000).astype(np.int16))
    # bool bytes other than 0 and 1 are true, as numpy reads them.
    odd = b.view(np.uint8) * np.uint8(2)
    assert odd.max() == 2
    sel_odd = mx.run(m, "f", [h, odd.view(np.bool_), c, s])[0]
    assert np.array_equal(sel_odd.view(np.uint16), sel.view(np.uint16))
    with pytest.raises(TypeError, match="unsupported dtype uint8"):
        mx.run(m, "f", [h, b.astype(np.uint8), c, s])
    with pytest.raises(mx.MLIRError, match="i1"):
        mx.run(m, "f", [h, b.astype(np.int8), c, s])


def test_run_errors():
    m = builders.linear(32, 64, 32, bias=False)
    rng = np.random.default_rng(0)
    x, w, dy = normal(rng, (32, 64), 1), normal(rng, (32, 64), 1), normal(rng, (32, 32), 1)
    with pytest.raises(mx.MLIRError, match="function 'linear_train_step' takes 3 arguments, 2 given"):
        mx.run(m, "linear_train_step", [x, w])
    with pytest.raises(mx.MLIRError, match="no public function named 'nope'"):
        mx.run(m, "nope", [x, w, dy])
    with pytest.raises(mx.MLIRError, match="argument 2 of 'linear_train_step' must be "
                       "32x32xbf16, given 16x32xbf16"):
        mx.run(m, "linear_train_step", [x, w, dy[:16]])
    with pytest.raises(mx.MLIRError, match="argument 2 of 'linear_train_step' must be "
                       "32x32xbf16, given 32x32xf32"):
        mx.run(m, "linear_train_step", [x, w, f64(dy).astype(np.float32)])
    with pytest.raises(mx.MLIRError, match="argument 0 of 'linear_train_step' must be "
                       "32x64xbf16, given bf16"):
        mx.run(m, "linear_train_step", [x[0, 0], w, dy])
    with pytest.raises(TypeError, match="input 0: unsupported dtype uint16"):
        mx.run(m, "linear_train_step", [x.view(np.uint16), w, dy])
    with pytest.raises(mx.MLIRError, match="argument 0 of 'linear_train_step' must be "
                       "32x64xbf16, given 32x64xf16"):
        mx.run(m, "linear_train_step", [x.astype(np.float16), w, dy])
    with pytest.raises(ValueError, match=r"gpu must be in \[0, 2\*\*31\), got -1"):
        mx.run(m, "linear_train_step", [x, w, dy], gpu=-1)
    with pytest.raises(ValueError, match=r"gpu must be in \[0, 2\*\*31\), got 1099511627776"):
        mx.cuda_available(2**40)
    with pytest.raises(TypeError, match="module must be an mxfp8train Module, got str"):
        mx.run("not a module", "linear_train_step", [x, w, dy])
    with pytest.raises(TypeError, match="entry must be a str, got None"):
        mx.run(m, None, [x, w, dy])
    with pytest.raises(TypeError, match="module must be an mxfp8train Module, got str"):
        mx.compare("not a module")
    with pytest.raises(ValueError, match=r"seed must be in \[0, 2\*\*64\), got -1"):
        mx.compare(m, seed=-1)
    with pytest.raises(TypeError, match="inputs must be a sequence of arrays"):
        mx.run(m, "linear_train_step", "xyz")
    with pytest.raises(TypeError, match="pipeline must be a str, got None"):
        m.clone().run_pipeline(None)
    with pytest.raises(ValueError, match="unknown device 'tpu'"):
        mx.run(m, "linear_train_step", [x, w, dy], device="tpu")


def test_division_by_zero_is_an_error():
    """SIGFPE in the compiled code raises in Python; the process and the
    module go on (lib/Support/TrapGuard.cpp)."""
    m = mx.Module.parse("""
func.func @divide(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %r = arith.divsi %a, %b : tensor<4xi32>
  return %r : tensor<4xi32>
}""")
    a = np.array([7, 9, -10, 20], dtype=np.int32)
    with pytest.raises(mx.MLIRError, match=r"'divide' trapped on the CPU \(SIGFPE\): "
                       "an integer division by zero"):
        mx.run(m, "divide", [a, np.array([1, 0, 3, 7], dtype=np.int32)])
    (r,) = mx.run(m, "divide", [a, np.array([1, -2, 3, 7], dtype=np.int32)])
    assert r.tolist() == [7, -4, -3, 2]


def test_failed_assertion_is_an_error():
    """A cf.assert that fails ends the call with MLIRError (until session 34
    its abort() ended the Python process); the module still runs."""
    m = mx.Module.parse("""
    func.func @f(%a: tensor<2xi1>) -> tensor<2xi1> {
      %c0 = arith.constant 0 : index
      %x = tensor.extract %a[%c0] : tensor<2xi1>
      cf.assert %x, "input must be true"
      return %a : tensor<2xi1>
    }""")
    with pytest.raises(mx.MLIRError, match="'f' failed an assertion on the CPU"):
        mx.run(m, "f", [np.zeros(2, np.bool_)])
    (r,) = mx.run(m, "f", [np.ones(2, np.bool_)])
    assert r.dtype == np.bool_ and r.tolist() == [True, True]


def test_cuda_device():
    ok, reason = mx.cuda_available()
    m = builders.linear(32, 64, 32, bias=False)
    rng = np.random.default_rng(0)
    inputs = [normal(rng, (32, 64), 1), normal(rng, (32, 64), 0.02), normal(rng, (32, 32), 1)]
    if not ok:
        assert reason
        with pytest.raises(mx.MLIRError, match="no CUDA GPU: "):
            mx.run(m, "linear_train_step", inputs, device="cuda")
        return
    cpu = mx.run(m, "linear_train_step", inputs, device="cpu")
    gpu = mx.run(m, "linear_train_step", inputs, device="cuda")
    for c, g in zip(cpu, gpu):
        np.testing.assert_allclose(f64(g), f64(c), rtol=2.0**-7, atol=1e-6)
