#!/bin/bash
# `--algorithm auto` over every finite binary32 input of exp (but the largest, which
# --to excludes), K = 24, all breakpoints. The range is run in pieces so that progress and the
# cost of each region show: the two wide parts |x| >= 2^-47 (overflow, underflow and ordinary
# binades: seconds), then |x| < 2^-47 binade by binade, where every input is hard, then the
# subnormals. Writes pieces.txt (from, to, inputs, hard, exact, seconds, output lines) in the
# current directory; output is counted, not kept (it is 1.3e9 lines).
# Usage: cargo build --release -p tmd && cp target/release/tmd DIR/ && cd DIR && bash .../bench-binary32-exp.sh
cd "${1:-.}"
run() {
  local s n t
  s=$(date +%s.%N); n=$(./tmd search exp --format binary32 --from "$1" --to "$2" -q --stats stats.json | wc -l)
  t=$(date +%s.%N)
  python3 -c "import json;d=json.load(open('stats.json'));print('$1','$2',d['inputs'],d['hard'],d['exact'],round($t-$s,2),$n)" >> pieces.txt
}
run "-0x1.fffffep+127" "-0x1p-47"
run "0x1p-47" "0x1.fffffep+127"
for e in $(seq 47 125); do
  run "-0x1p-$e" "-0x1p-$((e+1))"
  run "0x1p-$((e+1))" "0x1p-$e"
done
run "-0x1p-126" "0x1p-126"
echo DONE >> pieces.txt
