#!/usr/bin/env bash
# Mutation testing of kollide's primitive, narrow-phase and BVH code (see CONTRIBUTING.md):
# cargo-mutants mutates each function in turn and runs the kollide package's tests against it; a
# mutant that survives shows a missing test. Takes hours; extra arguments go to `cargo mutants`
# (for example `--list` to only list the mutants, `--shard 1/4` to run a quarter).
#
# Needs `cargo install cargo-mutants --locked`.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! cargo mutants --version >/dev/null 2>&1; then
    echo "cargo-mutants is missing: cargo install cargo-mutants --locked" >&2
    exit 1
fi

# --test-package kollide: only the kollide package's tests judge a mutant (not the CLI's, the
# bench's or the testkit's). Timeouts: a mutant that makes a loop endless is stopped after three
# times the unmutated test time (and never before 60 s), counted as caught by a timeout.
exec cargo mutants \
    --package kollide \
    --test-package kollide \
    --file 'crates/kollide/src/primitive/**' \
    --file 'crates/kollide/src/narrow/**' \
    --file 'crates/kollide/src/bvh/**' \
    --timeout-multiplier 3 \
    --minimum-test-timeout 60 \
    "$@"
