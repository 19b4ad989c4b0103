#!/usr/bin/env bash
# A stand-in for build/bin/mxfp8-run in main-job.test: prints its arguments
# and, for a module with token-group ends, those ends (the MoE step as
# resized); exits with $FAKE_RC_LLAMA / $FAKE_RC_MOE (default 0) by module.
echo "fake mxfp8-run $*"
case "$1" in
  *deepseek*)
    grep -o 'dense<\[[0-9, ]*\]> : tensor<8xi32>' "$1" | sed 's/^/  offs /'
    grep -o '%x: tensor<[0-9x]*bf16>' "$1" | sed 's/^/  /'
    exit "${FAKE_RC_MOE:-0}" ;;
  *) exit "${FAKE_RC_LLAMA:-0}" ;;
esac
