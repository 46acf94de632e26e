#!/bin/bash
# usage: scripts/cli-vectors-vs-cpu.sh ES "N ..." "REDUCTION:PRECISION ..." [VAR=VALUE ...]
# For each order N a random matrix (eigsolve generate random), and for each reduction and
# precision the eigenvalues and eigenvectors through the CLI on the CPU and on the GPU (the GPU
# run with the given environment): the values files and the vectors files must be byte-identical.
# One line per case; exit 1 if any differs (gpu-batch.sh's device steps).
es=$1 sizes=$2 cases=$3
shift 3
tag=${*:+ $*}
rc=0
for n in $sizes; do
  "$es" generate random --n "$n" -o /tmp/g.npy >/dev/null
  for rp in $cases; do
    r=${rp%%:*} p=${rp#*:}
    "$es" /tmp/g.npy -p "$p" --device cpu --reduction "$r" --vectors -o /tmp/c.txt \
      --vectors-output /tmp/cv.mtx >/dev/null 2>&1
    env "$@" "$es" /tmp/g.npy -p "$p" --device cuda --reduction "$r" --vectors -o /tmp/g.txt \
      --vectors-output /tmp/gv.mtx >/dev/null 2>&1
    if [ -s /tmp/cv.mtx ] && cmp -s /tmp/c.txt /tmp/g.txt && cmp -s /tmp/cv.mtx /tmp/gv.mtx; then
      echo "$r $p n=$n$tag: GPU values and vectors == CPU"
    else
      rc=1
      echo "FAILED $r $p n=$n$tag"
    fi
    rm -f /tmp/cv.mtx /tmp/gv.mtx
  done
done
exit $rc
