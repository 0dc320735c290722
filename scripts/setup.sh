#!/usr/bin/env bash
# Create .venv (if missing) and install scopa-sim with its test extras into it.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
    python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e ".[test]"

# Numba caches a compiled kernel per source file, but not what it inlined from
# other files: when any kernel source changes, drop the kernel caches.
stamp=$(cat kernels/*.py | sha256sum | cut -c1-16)
if [ "$(cat .venv/.kernels-stamp 2>/dev/null)" != "$stamp" ]; then
    rm -rf kernels/__pycache__ analysis/__pycache__
    echo "$stamp" > .venv/.kernels-stamp
fi
