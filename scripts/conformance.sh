#!/usr/bin/env bash
# Runs ../shared/conformance/run.sh over every op family and fails unless
# every case passes, apart from the known failures listed (with reasons) in
# scripts/conformance-known-failures.txt.
#   scripts/conformance.sh [--all] [--bin DIR]
# --all runs the known failures too. Needs ../shared beside the checkout;
# without it, says so and exits 77 (CTest's skip status for this test).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
conf=$root/../shared/conformance
bin=$root/build/bin
all=0
while [ $# -gt 0 ]; do
  case "$1" in
    --all) all=1; shift ;;
    --bin) bin=$2; shift 2 ;;
    *) echo "usage: $0 [--all] [--bin DIR]" >&2; exit 2 ;;
  esac
done
if [ ! -d "$conf" ]; then
  echo "conformance: skipped: $conf not found (the project's shared/ folder beside the checkout)"
  exit 77
fi
only=.
if [ $all = 0 ]; then
  # Known failures (with their reasons) are left out of the verdict.
  skip=$(grep -v '^#' "$root/scripts/conformance-known-failures.txt" | grep . | paste -sd'|')
  names=$(awk -F'\t' -v skip="^(${skip:-^})\$" \
            'NR > 1 && $1 !~ skip { print $1 }' "$conf/manifest.tsv" \
          | sed 's/\./\\./g' | paste -sd'|')
  only="^($names)\$"
fi
out=$(HLO_RUN="$bin/hlo-run" "$conf/run.sh" --only "$only" 2>&1)
echo "$out"
line=$(grep '^conformance:' <<<"$out" | tail -1)
[[ "$line" =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ crashed ]] || exit 1
p=${BASH_REMATCH[1]}; f=${BASH_REMATCH[2]}; c=${BASH_REMATCH[3]}
echo "$p passed, $((f + c)) failed"
[ "$f" = 0 ] && [ "$c" = 0 ]
