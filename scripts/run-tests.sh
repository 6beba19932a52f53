#!/bin/sh
# Runs every test suite registered with CTest (unit, lit, equivalence) and ends
# with one line of counts. Exit status is non-zero when anything failed.
#   scripts/run-tests.sh [BUILD_DIR]
set -u
BUILD=${1:-build}
JOBS=$(nproc 2>/dev/null || echo 2)
rm -f "$BUILD/test-results.xml" "$BUILD/test/lit-results.xml"
ctest --test-dir "$BUILD" --output-on-failure -j "$JOBS" --output-junit test-results.xml
status=$?
python3 "$(dirname "$0")/summarize-tests.py" "$BUILD/test-results.xml" "$BUILD/test/lit-results.xml" || status=1
exit $status
