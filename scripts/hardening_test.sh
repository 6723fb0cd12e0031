#!/usr/bin/env bash
# Hostile input that golden files cannot express, each under a memory
# limit and 10 s: endless inputs (/dev/zero, a FIFO, standard input) for the
# module and for --input under 1 GB (`ulimit -v 1000000`: the reader stops
# at half of it), and more devices than threads can be made for
# (--replicas 1000, a 4,096-device Shardy mesh) under 4 GB.
# Each must exit 1 (hlo-check: 2, FileCheck's status for an input it
# cannot read) within the time with a message naming what is wrong
# ("PATH: error: ..."), not crash (bad_alloc, std::system_error abort).
#   scripts/hardening_test.sh [BIN_DIR]
# Skipped (exit 77) for an ASan build: its shadow memory cannot start under
# `ulimit -v` (nor `ulimit -d`), and without a limit the input bound is half
# of the machine's memory. The bounded reader runs under ASan in the unit
# tests ([golden] ReadFile of /dev/zero, [read_file]).
set -uo pipefail
bin=$(cd "${1:-build/bin}" && pwd)
if grep -q __asan_init "$bin/hlo-run"; then
  echo "hardening: skipped: $bin is built with ASan, which cannot run under ulimit -v"
  exit 77
fi
work=$(mktemp -d)
writer=
trap '[ -n "$writer" ] && kill "$writer" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work"
printf 'HloModule p\n\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT n = f32[4] negate(p)\n}\n' > p.hlo
printf 'HloModule r\n\nENTRY e {\n  p = f32[4] iota(), iota_dimension=0\n  ROOT n = f32[4] negate(p)\n}\n' > r.hlo
# A manual computation over 4,096 devices: one thread each.
{
  printf 'HloModule m, frontend_attributes={xla.sdy.meshes={mesh = #sdy.mesh<["x"=4096]>}}\n\n'
  printf 'xla.sdy.manual_computation_body.1 {\n  p = f32[1] parameter(0)\n  ROOT t = (f32[1]) tuple(p)\n}\n\n'
  printf 'ENTRY main {\n  a = f32[4096] iota(), iota_dimension=0\n'
  printf '  l = f32[1] custom-call(a), custom_call_target="xla.sdy.GlobalToLocalShape", frontend_attributes={xla.sdy.in_shardings="#sdy.sharding_per_value<[<@mesh, [{\\"x\\"}]>]>",xla.sdy.manual_axes="#sdy<manual_axes{\\"x\\"}>"}\n'
  printf '  c = (f32[1]) call(l), to_apply=xla.sdy.manual_computation_body.1\n  g = f32[1] get-tuple-element(c), index=0\n'
  printf '  ROOT r = f32[4096] custom-call(g), custom_call_target="xla.sdy.LocalToGlobalShape", frontend_attributes={xla.sdy.manual_axes="#sdy<manual_axes{\\"x\\"}>",xla.sdy.out_shardings="#sdy.sharding_per_value<[<@mesh, [{\\"x\\"}]>]>"}\n}\n'
} > mesh4096.hlo
passed=0; failed=0
# expect NAME PATTERN CMD...: exit 1 (${status} when set) within 10 s under
# the memory limit (${vmem} KiB when set, else 1 GB), standard error
# matching PATTERN (grep -E). Under 4 GB the endless reads stopped at 2 GB,
# 9-10 s on a 2-vCPU machine: past the 10 s when ctest ran tests beside
# them. 1 GB stops them at 512 MB.
expect() {
  local name=$1 pattern=$2 want=${status:-1} kib=${vmem:-1000000}; shift 2
  local start=$SECONDS
  (ulimit -v "$kib"; timeout 10 "$@") > stdout.txt 2> stderr.txt < "${stdin:-/dev/null}"
  local rc=$? took=$((SECONDS - start))
  if [ $rc -ne "$want" ]; then
    echo "FAIL $name: exit $rc after ${took} s, expected $want: $(head -c 300 stderr.txt)"
    failed=$((failed + 1))
  elif ! grep -qE "$pattern" stderr.txt; then
    echo "FAIL $name: stderr does not match '$pattern': $(head -c 300 stderr.txt)"
    failed=$((failed + 1))
  else
    echo "ok $name (${took} s): $(head -n 1 stderr.txt | head -c 200)"
    passed=$((passed + 1))
  fi
}
limit='exceeds the input limit of [0-9]+ bytes|does not fit in memory'
expect "hlo-run /dev/zero" "^/dev/zero: error: cannot read: .*($limit)" "$bin/hlo-run" /dev/zero
expect "hlo-opt /dev/zero" "^/dev/zero: error: cannot read: .*($limit)" "$bin/hlo-opt" /dev/zero
stdin=/dev/zero expect "hlo-opt - < /dev/zero" "^<stdin>: error: cannot read: .*($limit)" "$bin/hlo-opt" -
expect "hlo-run --input /dev/zero" "^/dev/zero: error: parameter 0 'p' \(f32\[4\]\): cannot read: .*($limit)" \
  "$bin/hlo-run" p.hlo --input /dev/zero
printf 'CHECK: x\n' > c.txt
status=2 expect "hlo-check /dev/zero" "^/dev/zero: error: cannot read: .*($limit)" \
  "$bin/hlo-check" /dev/zero
status=2 expect "hlo-check --input-file /dev/zero" "^/dev/zero: error: cannot read: .*($limit)" \
  "$bin/hlo-check" c.txt --input-file /dev/zero
status=2 stdin=/dev/zero expect "hlo-check < /dev/zero" "^<stdin>: error: cannot read: .*($limit)" \
  "$bin/hlo-check" c.txt
mkfifo feed.npy
cat /dev/zero > feed.npy 2>/dev/null & writer=$!
expect "hlo-run --input FIFO.npy" "^feed.npy: error: parameter 0 'p' \(f32\[4\]\): cannot read: .*($limit)" \
  "$bin/hlo-run" p.hlo --input feed.npy
kill "$writer" 2>/dev/null; wait "$writer" 2>/dev/null; writer=
vmem=4000000 expect "hlo-run --replicas 1000 (fibers)" "error: .*cannot map a stack for each of the 1000 devices" \
  "$bin/hlo-run" r.hlo --replicas 1000
vmem=4000000 expect "hlo-run --replicas 1000 (threads)" "error: .*cannot start a thread for each of the 1000 devices" \
  "$bin/hlo-run" r.hlo --replicas 1000 --device-scheduling threads
vmem=4000000 expect "hlo-run 4096-device mesh" "mesh4096.hlo:[0-9]+:[0-9]+: error: .*cannot map a stack for each of the 4096 devices" \
  "$bin/hlo-run" mesh4096.hlo
echo "hardening: $passed passed, $failed failed"
[ $failed -eq 0 ]
