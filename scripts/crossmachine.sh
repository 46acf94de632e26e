#!/usr/bin/env bash
# Solve a fixed set of problems and print one "name digest" line each (for cross-machine checks).
# usage: crossmachine.sh EIGSOLVE MATRICES_DIR WORKDIR THREADS [DEVICE]
#        DEVICE: cpu, cuda or auto (the default: the GPU where there is one); the digests must
#        not depend on it, nor on THREADS or the machine.
set -euo pipefail
exe=$1 m=$2 w=$3 t=$4 dev=${5:-auto}
mkdir -p "$w"
"$exe" generate random --n 700 -o "$w/r700.mtx"
"$exe" generate random --n 300 --complex -o "$w/c300.mtx"
"$exe" generate hadamard --n 256 --spectrum wide -o "$w/h256.mtx"
run() { local name=$1; shift; "$exe" "$@" -q -t "$t" --device "$dev" -o "$w/$name.txt"; echo "$name $(sha256sum < "$w/$name.txt" | cut -c1-16)"; }
# eigenvectors too (the canonical inverse iteration and back-transformation): one digest each
runv() { local name=$1; shift; run "$name" "$@" --vectors-output "$w/${name}_z.mtx" >/dev/null; echo "${name}_vectors $(sha256sum < "$w/${name}_z.mtx" | cut -c1-16)"; }
run 494_bus_d $m/494_bus.mtx
run 494_bus_s $m/494_bus.mtx -p s
run 1138_bus_d $m/1138_bus.mtx
run primme_z $m/primme_HA_hermitian245.mtx
run primme_c $m/primme_HA_hermitian245.mtx -p c
run bcsstk01_dd $m/bcsstk01.mtx -p dd
run lund_b_dd $m/lund_b.mtx -p dd
run r700_d $w/r700.mtx
run r700_s $w/r700.mtx -p s
run c300_z $w/c300.mtx
run h256_d $w/h256.mtx
run h256_dd $w/h256.mtx -p dd
run bcsstk01_vec_d $m/bcsstk01.mtx --vectors-output "$w/bcsstk01_z.mtx"
echo "bcsstk01_vectors $(sha256sum < "$w/bcsstk01_z.mtx" | cut -c1-16)"
runv v494_bus_s $m/494_bus.mtx -p s
runv v1138_bus_d $m/1138_bus.mtx
runv vprimme_c $m/primme_HA_hermitian245.mtx -p c
runv vprimme_z $m/primme_HA_hermitian245.mtx
runv vbcsstk01_dd $m/bcsstk01.mtx -p dd
runv vr700_d $w/r700.mtx
runv vc300_z $w/c300.mtx
