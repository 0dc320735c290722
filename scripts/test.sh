#!/usr/bin/env bash
# Set up .venv (scripts/setup.sh, with torch for the training tests and the learning
# environments' extra for theirs), then run every stage,
# each reported whatever the others did, and exit non-zero if any failed:
#   pytest    the test suite but its slow tests, on 2 worker processes (pytest-xdist, a
#             module's tests on one worker), under 10 minutes on 2 free cores
#             (arguments go to pytest);
#   slow      the tests marked slow (minutes each: training, isolation, ...);
#   verdicts  review's verdicts on the worked game never contradict each other under seeds
#             1..5 (about 1.5 min);
#   wheel     the package as users install it (scripts/wheel_check.sh: a wheel in a fresh
#             virtual environment, run from outside the clone).
# CI (.ci/run) sets HYPOTHESIS_PROFILE=ci: the property tests draw the same examples every run.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test,train,envs || { echo "test.sh: set-up failed" >&2; exit 1; }
failed=()
stage() {
    local name=$1; shift
    local start=$SECONDS
    echo "== $name" >&2
    if "$@"; then echo "== $name: passed ($((SECONDS - start)) s)" >&2
    else echo "== $name: FAILED ($((SECONDS - start)) s)" >&2; failed+=("$name"); fi
}
tests() { .venv/bin/python -m pytest -q "$@"; local rc=$?; [ $rc -eq 5 ] && rc=0; return $rc; }  # 5: none chosen
stage pytest   tests -m "not slow" -n 2 --dist loadfile --durations=10 "$@"
stage slow     tests -m slow "$@"
stage verdicts .venv/bin/python benchmarks/bench_verdicts.py --record docs/examples/seed-003.scopa
stage wheel    bash scripts/wheel_check.sh
if [ ${#failed[@]} -gt 0 ]; then echo "test.sh: failed: ${failed[*]}" >&2; exit 1; fi
echo "test.sh: every stage passed" >&2
