# -*- Python -*-
# lit configuration of the mxfp8train tests.

import os
import re

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "MXFP8TRAIN"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".py", ".c", ".test"]
config.excludes = ["CMakeLists.txt", "README.md", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mxfp8train_obj_root, "test")

config.environment["FILECHECK_OPTS"] = "-enable-var-scope --allow-unused-prefixes=false"
config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%PYTHON", config.python_executable))
config.substitutions.append(("%mxfp8train_src_root", config.mxfp8train_src_root))
config.substitutions.append(("%mxfp8train_obj_root", config.mxfp8train_obj_root))
# The libraries built here, and MLIR's (the runner utilities).
config.substitutions.append(
    ("%mxfp8train_lib_dir", os.path.join(config.mxfp8train_obj_root, "lib"))
)
config.substitutions.append(
    ("%mlir_lib_dir", os.path.join(os.path.dirname(config.llvm_tools_dir), "lib"))
)
if os.path.exists(os.path.join(config.mxfp8train_obj_root, "lib",
                               "libMXFP8TrainPlugin.so")):
    config.available_features.add("mlir-opt-plugin")
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%ninja", config.make_program))
# The compilers that built the tree (a downstream build uses them too).
config.substitutions.append(("%c_compiler", config.c_compiler))
config.substitutions.append(("%cxx_compiler", config.cxx_compiler))
# A sanitizer build's -fsanitize flags (empty otherwise): programs that a
# test compiles against the build tree link the sanitizer runtimes with them.
config.substitutions.append(
    ("%sanitizer_flags",
     " ".join(re.findall(r"-f(?:no-)?sanitize=\S+", config.cxx_flags))))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
# An AddressSanitizer build reserves terabytes of address space for its
# shadow memory: tests that lower RLIMIT_AS cannot run there.
if "-fsanitize=address" in config.cxx_flags:
    config.available_features.add("asan")
# `not` at the start of a RUN line is found through PATH.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.mxfp8train_tools_dir, config.llvm_tools_dir]
tools = [
    "mxfp8-compile",
    "mxfp8-launch",
    "mxfp8-opt",
    "mxfp8-run",
    "mxfp8train-capi-compare-test",
    "mxfp8train-capi-convert-test",
    "mxfp8train-capi-dialect-test",
    "mxfp8train-capi-run-test",
    "mxfp8train-execution-tests",
    "mxfp8train-gemm-tiling-tests",
    "mxfp8train-launch-tests",
    "mxfp8train-runtime-tests",
    "mxfp8train-support-tests",
    "mxfp8train-tma-test-module",
    "mlir-opt",
    "mlir-runner",
    "mlir-translate",
    "llc",
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# ptxas (CUDA toolkit) assembles the GPU kernels' PTX; tests that need it say
# `REQUIRES: ptxas` and are UNSUPPORTED where the toolkit is absent.
cuda_home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
ptxas = os.path.join(cuda_home, "bin", "ptxas")
if os.path.exists(ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
    config.substitutions.append(("%cuda_home", cuda_home))
