#!/bin/bash
# performance.sh: regenerates docs/performance.md's figures in one command.
#
#   bash tests/benchmarks/performance.sh BUILD_DIR DATA_DIR
#
# Runs every benchmark of BUILD_DIR with --json into DATA_DIR (on the GPU
# machine: bash .gpu/enter bash tests/benchmarks/performance.sh build perf-data;
# the Python peers run in .gpu/venv-gi, beside CuPy and cuda-python, when it
# is there), then, where matplotlib is installed, draws the plots and
# rewrites the page's tables (tests/benchmarks/plot-performance.py); where it
# is not, it says the command that does that from DATA_DIR on another machine.
# A benchmark that cannot run here (no GPU, no peer) is reported and left out.
set -uo pipefail
build=${1:?usage: performance.sh BUILD_DIR DATA_DIR}
data=${2:?usage: performance.sh BUILD_DIR DATA_DIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$data"

run() {
  local name=$1; shift
  echo "== $name: $*"
  "$@" --json "$data/$name.json"
  local status=$?
  [ $status = 0 ] || echo "== $name exited $status: its figures are left out"
}

bench=$build/tests/benchmarks
run compile "$bench/bench-compile"
run launch "$bench/bench-launch"
run completion "$bench/bench-completion"
run copy "$bench/bench-copy"
run alloc "$bench/bench-alloc"
run all-reduce "$bench/bench-all-reduce"
python_with_peers=/usr/bin/python3
[ -x .gpu/venv-gi ] || [ -f .gpu/venv-gi ] && python_with_peers="bash .gpu/venv-gi"
export CUGI_BENCH_RAW_LAUNCH="$bench/libbench-raw-launch.so"
run peers $python_with_peers "$here/bench_peers.py"
run alloc-py $python_with_peers "$here/bench_alloc.py"
run all-reduce-py $python_with_peers "$here/bench_all_reduce.py"
command -v gjs >/dev/null && run gjs gjs "$here/bench_gjs_launch.js"

plot="/usr/bin/python3 $here/plot-performance.py $data"
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  $plot
else
  echo "== no matplotlib here: draw the plots where it is installed with: $plot"
fi
