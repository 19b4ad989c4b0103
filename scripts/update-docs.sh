#!/usr/bin/env bash
#===- update-docs.sh - refresh the checked-in generated reference ----------===#
#
# Builds the target mxfp8train-doc (mlir-tblgen's doc generators over our
# .td files, cmake/MXFP8TrainDocs.cmake) and replaces docs/reference/ with
# the pages of the build tree. Run it after changing a summary, description
# or option in ODS; test/docs/reference.test fails until it is run.
# Environment: BUILD_DIR (default: build).
#
#===------------------------------------------------------------------------===#
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${BUILD_DIR:-$root/build}"

ninja -C "$build_dir" mxfp8train-doc
rm -rf "$root/docs/reference"
mkdir -p "$root/docs/reference"
cp "$build_dir"/docs/reference/*.md "$root/docs/reference/"
echo "update-docs.sh: docs/reference/ now holds $(ls "$root/docs/reference" | wc -l) pages"
