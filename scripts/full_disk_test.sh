#!/usr/bin/env bash
# Every output path on a full file system (a file-size limit, `ulimit -f`):
# the tool exits 1 naming the file and the reason, leaves no file (or
# temporary) behind, and an existing file keeps its old contents.
#   scripts/full_disk_test.sh [BIN_DIR]
set -uo pipefail
bin=$(cd "${1:-build/bin}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
printf 'HloModule big\n\nENTRY e {\n  ROOT i = f32[8192] iota(), iota_dimension=0\n}\n' > big.hlo
# A module whose text, JSON and dot are all over the limit: many named instructions.
{
  printf 'HloModule wide\n\nENTRY e {\n  p = f32[4] parameter(0)\n'
  for i in $(seq 1 200); do printf '  n%d = f32[4] negate(p)\n' "$i"; done
  printf '  ROOT t = (f32[4]'; for i in $(seq 2 200); do printf ', f32[4]'; done
  printf ') tuple(n1'; for i in $(seq 2 200); do printf ', n%d' "$i"; done
  printf ')\n}\n'
} > wide.hlo
# A tuple result whose first .npy fits and whose second does not: neither stays.
printf 'HloModule pair\n\nENTRY e {\n  a = f32[16] iota(), iota_dimension=0\n  b = f32[8192] iota(), iota_dimension=0\n  ROOT t = (f32[16], f32[8192]) tuple(a, b)\n}\n' > pair.hlo
printf 'HloModule feed\n\nENTRY e {\n  t = token[] after-all()\n  d = f32[8192] iota(), iota_dimension=0\n  ROOT o = token[] outfeed(d, t), outfeed_shape=f32[8192]\n}\n' > feed.hlo
passed=0; failed=0
# expect NAME PATH_LEFT_ALONE CMD...: the command must fail with "cannot write: File too large"
# and leave nothing but what was there before.
expect() {
  local name=$1; shift
  mkdir -p out && rm -rf out/* && echo old > out/keep.txt
  (ulimit -f 4; "$@") > stdout.txt 2> stderr.txt
  local rc=$?
  local left; left=$(cd out && ls -A | grep -v '^keep.txt$' || true)
  if [ $rc -ne 1 ]; then
    echo "FAIL $name: exit $rc, expected 1"; failed=$((failed + 1))
  elif ! grep -q "cannot write: File too large" stderr.txt; then
    echo "FAIL $name: no reason in: $(head -c 300 stderr.txt)"; failed=$((failed + 1))
  elif [ -n "$left" ]; then
    echo "FAIL $name: left behind: $left"; failed=$((failed + 1))
  elif [ "$(cat out/keep.txt)" != old ]; then
    echo "FAIL $name: an existing file changed"; failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
}
expect "hlo-opt -o" "$bin/hlo-opt" wide.hlo -o out/r.hlo
expect "hlo-opt -o over a file" "$bin/hlo-opt" wide.hlo -o out/keep.txt
expect "hlo-opt --emit=json" "$bin/hlo-opt" wide.hlo --emit=json -o out/r.json
expect "hlo-opt --emit=dot" "$bin/hlo-opt" wide.hlo --emit=dot -o out/r.dot
expect "hlo-opt --dump-dir" "$bin/hlo-opt" wide.hlo --passes=dce --dump-dir out
expect "hlo-run -o text" "$bin/hlo-run" big.hlo -o out/r.txt
expect "hlo-run -o npy" "$bin/hlo-run" big.hlo --output-format=npy -o out
expect "hlo-run -o npy tuple" "$bin/hlo-run" pair.hlo --output-format=npy -o out
expect "hlo-run --outfeed" "$bin/hlo-run" feed.hlo --outfeed out/feed.txt
echo "full-disk: $passed passed, $failed failed"
[ $failed -eq 0 ]
