#===- bench/device/launch-build.sh - shared by the device scripts -----------===#
#
# Sourced by run-aot-checks.sh and step-bench.sh (bash) on the GPU machine:
#   build_launch ROOT BUILD_DIR LOG_PREFIX
#       builds the runtime and mxfp8-launch (tools/mxfp8-launch, no MLIR;
#       ninja when found) into BUILD_DIR, logs in LOG_PREFIX.{configure,build}.log;
#       on failure prints their tails and returns 1
#   link_object OBJECT LIB RUNTIME_LIB
#       links an mxfp8-compile object into a shared library against
#       libmxfp8train_runtime in RUNTIME_LIB ($CXX, default g++)
#
#===------------------------------------------------------------------------===#

build_launch() {
  local root="$1" build="$2" logs="$3" generator=()
  command -v ninja > /dev/null && generator=(-G Ninja)
  echo "== build: runtime + mxfp8-launch ($build)"
  if ! { cmake "${generator[@]}" -S "$root/tools/mxfp8-launch" -B "$build" \
           -DCMAKE_BUILD_TYPE=Release > "$logs.configure.log" 2>&1 &&
         cmake --build "$build" -j "$(nproc 2>/dev/null || echo 4)" \
           > "$logs.build.log" 2>&1; }; then
    tail -n 30 "$logs.configure.log" "$logs.build.log" 2>/dev/null
    return 1
  fi
}

link_object() {
  "${CXX:-g++}" -shared -o "$2" "$1" -Wl,-Bsymbolic \
    -L"$3" -lmxfp8train_runtime -Wl,-rpath,"$3"
}
