#!/usr/bin/env bash
# New hard cases of sin and cos on [2^11, 2^12) in binary64, where CORE-MATH's lists stop, at
# K = 43 with every breakpoint, kept in data/new-cases/FUNC/ as one .wc file per piece of 2^42
# inputs (x from 2048 + 2i to 2048 + 2(i + 1)); data/new-cases/README.md lists what is done.
#
#   bash scripts/new-data.sh next FUNC           the next piece of FUNC: "FROM TO"
#   bash scripts/new-data.sh run FUNC [BACKEND]  search it here (journaled in target/new-data,
#                                                so a killed run resumes), then add it
#   bash scripts/new-data.sh add FILE.wc...      add finished pieces (a GPU run's, say)
#   bash scripts/new-data.sh table               the README's table of pieces, on stdout
# run and add rewrite that table in data/new-cases/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=data/new-cases
bits=43

# The ranges searched, from the pieces' headers ("# inputs searched: [FROM, TO), K = 43, ...").
ranges() {
  local func=$1
  for f in "$dir/$func"/*.wc; do
    [ -e "$f" ] || continue
    sed -n 's/^# inputs searched: \[\([^,]*\), \([^)]*\)).*/\1 \2/p' "$f"
  done
}

next_piece() {
  local func=$1
  ranges "$func" | python3 -c '
import sys
ends = [float.fromhex(line.split()[1]) for line in sys.stdin if line.strip()]
start = max(ends, default=2048.0)
# 2^42 inputs of quantum 2^-41: x advances by 2 (exact in binary64 up to 4096).
if start >= 4096.0:
    sys.exit("the binade [2^11, 2^12) is done")
short = lambda x: __import__("re").sub(r"\.?0*p", "p", x.hex())
print(short(start), short(start + 2.0))
'
}

add_piece() {
  local file=$1
  local header func from to
  header=$(head -2 "$file")
  func=$(sed -n '1s/^# hard-to-round cases of \([a-z0-9]*\) in binary64$/\1/p' <<<"$header")
  read -r from to <<<"$(sed -n 's/^# inputs searched: \[\([^,]*\), \([^)]*\)), K = 43, breakpoints all$/\1 \2/p' <<<"$header")"
  if [ -z "$func" ] || [ -z "${to:-}" ]; then
    echo "new-data.sh: $file is not a binary64 piece at K = 43 with every breakpoint" >&2
    exit 2
  fi
  grep -q '^# found by tmd .*(commit [0-9a-f]*)' "$file" || {
    echo "new-data.sh: $file was made by a binary built from a dirty tree or without a commit" >&2
    exit 2
  }
  mkdir -p "$dir/$func"
  [ "$file" -ef "$dir/$func/$from-$to.wc" ] || cp "$file" "$dir/$func/$from-$to.wc"
  echo "added $dir/$func/$from-$to.wc"
}

table() {
  echo "| function | inputs searched (complete) | cases | made by |"
  echo "| --- | --- | --- | --- |"
  for f in "$dir"/*/*.wc; do
    [ -e "$f" ] || continue
    local func range cases made
    func=$(basename "$(dirname "$f")")
    range=$(sed -n 's/^# inputs searched: \(\[[^)]*)\).*/\1/p' "$f")
    cases=$(grep -vc '^#' "$f" || true)
    made=$(sed -n 's/^# found by \(tmd [^;]*\);.*/\1/p' "$f")
    # Keyed by function and the range's start, for sort; the key is cut off after.
    echo "$func $(python3 -c "print(float.fromhex('$(sed 's/^\[\([^,]*\),.*/\1/' <<<"$range")'))") | $func | $range | $cases | $made, $(sed -n 's/^# made //p' "$f") |"
  done | sort -k1,1 -k2,2g | cut -d' ' -f3-
}

# The README's table, between its two marker lines.
write_table() {
  table >target/new-data-table.md
  python3 - "$dir/README.md" target/new-data-table.md <<'PY'
import sys
readme, table = sys.argv[1], open(sys.argv[2]).read()
text = open(readme).read()
head, rest = text.split("<!-- pieces: written by scripts/new-data.sh -->\n", 1)
_, tail = rest.split("<!-- end of pieces -->\n", 1)
open(readme, "w").write(head + "<!-- pieces: written by scripts/new-data.sh -->\n" + table
                        + "<!-- end of pieces -->\n" + tail)
PY
}

case "${1:-}" in
  next) next_piece "$2" ;;
  run)
    func=$2
    backend=${3:-cpu}
    read -r from to <<<"$(next_piece "$func")"
    journal=target/new-data/j-$func-$from
    mkdir -p "$journal"
    out=target/new-data/$func-$from-$to.wc
    cargo build --release -p tmd
    target/release/tmd search "$func" --from "$from" --to "$to" --bits $bits --breakpoints all \
      --backend "$backend" --resume "$journal" --out "$out"
    add_piece "$out"
    write_table
    ;;
  add)
    shift
    for f in "$@"; do add_piece "$f"; done
    write_table
    ;;
  table) table ;;
  *)
    sed -n '2,10p' "$0" >&2
    exit 2
    ;;
esac
