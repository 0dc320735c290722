#!/usr/bin/env bash
# Print the Numba cache folder for the current kernel sources. Numba keys a
# cached kernel on its own file only, not on what it inlined from other
# files; a folder per version of kernels/ keeps stale code from ever loading.
cd "$(dirname "$0")/.."
echo "$PWD/.venv/numba-cache/$(cat kernels/*.py | sha256sum | cut -c1-16)"
