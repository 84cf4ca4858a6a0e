#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ for SECONDS each, one after the other, or FUZZ_JOBS at a
# time (FUZZ_JOBS=2 on a free 2-core machine halves the wall time).
#
#   scripts/fuzz.sh SECONDS [TARGET...]
#
# Installs what is missing: the nightly toolchain (rustup) and cargo-fuzz. Seeds the loader
# targets' corpora from assets/ when they are empty. Corpora (fuzz/corpus/TARGET) and crash
# artifacts (fuzz/artifacts/TARGET) are git-ignored. Exits non-zero if any target crashed,
# printing the target and the artifact; reproduce one with
#   cargo +nightly fuzz run TARGET fuzz/artifacts/TARGET/crash-...
set -euo pipefail

seconds=${1:?usage: scripts/fuzz.sh SECONDS [TARGET...]}
shift
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root/fuzz"

if ! rustup toolchain list | grep -q '^nightly'; then
    rustup toolchain install nightly --profile minimal
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    cargo +nightly install cargo-fuzz --locked
fi

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo +nightly fuzz list)
fi

# Loader targets start from the vendored parser cases and the small meshes (< 200 kB).
seed() {
    local target=$1 ext=$2 dir="corpus/$1"
    mkdir -p "$dir"
    if [ -z "$(ls -A "$dir")" ]; then
        find "$root/assets" -maxdepth 3 -type f -iname "*.$ext" -size -200k -exec cp {} "$dir/" \;
        find "$root/assets/parser_cases/invalid" -type f -iname "*.$ext" -exec cp {} "$dir/" \;
    fi
}
seed load_obj obj
seed load_stl stl
seed load_ply ply
seed load_off off

cargo +nightly fuzz build

# One target's run; returns non-zero on a crash.
run() {
    local target=$1 log="artifacts/$1/last-run.log"
    mkdir -p "artifacts/$target" "corpus/$target"
    # -timeout: an input running longer than 60 s counts as a crash (a hang). The fuzz build has
    # the address sanitizer and debug assertions, several times slower than a release build: a
    # 3,500-triangle soup of long crossing triangles (a corrupted OBJ) takes 8 s of CPU in the
    # self-intersection search of its first solid query there.
    if cargo +nightly fuzz run "$target" -- -max_total_time="$seconds" -timeout=60 >"$log" 2>&1; then
        echo "== $target: $(grep -E '^Done [0-9]+ runs' "$log" || tail -n 1 "$log")"
    else
        echo "!! $target crashed; log: fuzz/$log"
        grep -E 'Test unit written to|SUMMARY|panicked at' "$log" | sed 's/^/   /' || tail -n 20 "$log"
        return 1
    fi
}

# FUZZ_JOBS targets run at once (default 1: the machines this runs on are small and shared).
jobs=${FUZZ_JOBS:-1}
failed=0
for target in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
        wait -n || failed=1
    done
    echo "-- $target: ${seconds} s"
    run "$target" &
done
while [ "$(jobs -rp | wc -l)" -gt 0 ]; do
    wait -n || failed=1
done
exit $failed
