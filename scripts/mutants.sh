#!/usr/bin/env bash
# Mutation testing of kollide's primitive, narrow-phase and BVH code (see CONTRIBUTING.md):
# cargo-mutants mutates each function in turn and runs the tests of that area against it; a
# mutant that survives shows a missing test.
#
#   scripts/mutants.sh AREA [cargo-mutants options...]
#
# AREA is primitive, narrow or bvh. Each mutant runs the library's unit tests and the
# integration suites that exercise the area, with the property suites scaled down to a tenth
# (KOLLIDE_CASES=0.1, overridable): a full area still takes hours on 2 cores, so pass
# `--shard K/N` to run a slice, `--list` to only list the mutants. Results land in
# mutants.out/ (git-ignored). Installs cargo-mutants when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

area=${1:?usage: scripts/mutants.sh primitive|narrow|bvh [cargo-mutants options...]}
shift
harness_args=()
case "$area" in
    primitive) tests=(props_primitive props_ray props_tri_tri props_bounds props_polygon2d ray_watertight) ;;
    # At a tenth of its cases the point-projection suite draws shapes the full run does not, and
    # meets the known GJK accuracy limit of issue 30: skipped, or every mutant would count as
    # caught.
    narrow)
        tests=(convex_shapes gjk_epa convex_mesh pair_contract query_matrix)
        harness_args=(--skip point_projection_matches_the_reference_distance)
        ;;
    bvh) tests=(mesh_queries ray_watertight mesh_mesh convex_mesh) ;;
    *) echo "unknown area $area: primitive, narrow or bvh" >&2; exit 2 ;;
esac

if ! cargo mutants --version >/dev/null 2>&1; then
    cargo install cargo-mutants --locked
fi

export KOLLIDE_CASES=${KOLLIDE_CASES:-0.1}
export QUERY_MATRIX_CASES=${QUERY_MATRIX_CASES:-100}
# Timeouts: a mutant that makes a loop endless is stopped after three times the unmutated test
# time (and never before 60 s), counted as caught by a timeout.
targets=(--cargo-test-arg=--lib)
trailing=()
if [ ${#harness_args[@]} -gt 0 ]; then
    trailing=(-- -- "${harness_args[@]}")
fi
for t in "${tests[@]}"; do
    targets+=("--cargo-test-arg=--test=$t")
done
exec cargo mutants \
    --package kollide \
    --all-features \
    --file "crates/kollide/src/$area/**" \
    --timeout-multiplier 3 \
    --minimum-test-timeout 60 \
    "${targets[@]}" \
    "$@" \
    "${trailing[@]}"
