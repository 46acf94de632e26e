#!/usr/bin/env bash
# One batched session on the GPU machine: unpacks the binaries built here (a tarball made by
# `scripts/gpu-batch.sh pack BUILD_DIR`), runs the GPU tests and the requested benchmarks, and
# writes logs and JSON into OUT. Each step has its own time limit so one slow step cannot eat
# the whole device session.
# usage: scripts/gpu-batch.sh pack [BUILD_DIR]            (here: writes BUILD_DIR/final/bin.tar.xz)
#        BATCH_DEADLINE=S: no step starts, or runs, past S seconds (so the archive is written
#        before the device call's own limit)
#        scripts/gpu-batch.sh run OUT STEP...              (there; STEP: tests, eig-d, eig-all,
#                                                           profile, pdl-off, symv, eig-dd)
set -uo pipefail
cmd=${1:?usage: gpu-batch.sh pack|run ...}
shift
if [ "$cmd" = pack ]; then
  build=${1:-build}
  mkdir -p "$build/final/stage"
  # PACK_ONLY="bin/eigsolve tests/test_gpu_symm ...": only these (the device call carries 64 MiB
  # with the tree; the whole list is ~62 MB)
  for b in ${PACK_ONLY:-bin/eigsolve tests/test_gpu_symv tests/test_gpu_tridiag tests/test_gpu_bisection \
           tests/test_gpu_back_transform tests/test_gpu_arith tests/test_gpu_residuals tests/test_gpu_invit \
           tests/test_gpu_symm tests/test_gpu_bulge_chase tests/test_gpu_two_stage \
           bin/bench_eig bin/bench_tridiag bin/bench_symm bin/bench_bulge}; do
    [ -x "$build/$b" ] && strip -o "$build/final/stage/$(basename "$b")" "$build/$b"
  done
  tar -C "$build/final/stage" -cJf "$build/final/bin.tar.xz" .
  rm -rf "$build/final/stage"
  ls -la "$build/final/bin.tar.xz"
  exit 0
fi
out=${1:?OUT}
shift
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$(mktemp -d)
tar -C "$bin" -xJf "$here/build/final/bin.tar.xz"
mkdir -p "$bin/tests" "$out"
mv "$bin"/test_gpu_* "$bin/tests/" 2>/dev/null
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv >"$out/gpu.txt" 2>&1
deadline=${BATCH_DEADLINE:-100000}  # seconds from the start after which no step runs
step() {  # step NAME LIMIT_S COMMAND...
  local name=$1 lim=$2
  shift 2
  local left=$((deadline - SECONDS))
  if [ "$left" -lt 20 ]; then
    echo "step $name: skipped (deadline)" | tee -a "$out/steps.txt"
    return
  fi
  [ "$lim" -gt "$left" ] && lim=$left
  local t0=$SECONDS
  timeout "$lim" "$@" >"$out/$name.log" 2>&1
  echo "step $name: rc=$? $((SECONDS - t0)) s" | tee -a "$out/steps.txt"
}
es="$bin/eigsolve"
for s in "$@"; do
  case $s in
    tests) mkdir -p "$out/t"; step tests 300 "$here/scripts/gpu-tests.sh" "$bin" "$out/t" ;;
    tests-pipeline) mkdir -p "$out/t"
      step tests-pipeline 300 env EIGSOLVE_REQUIRE_GPU=1 "$bin/tests/test_gpu_tridiag" ;;
    graphs-off) step graphs-off 200 env EIGSOLVE_GPU_GRAPHS=0 "$es" bench eig -p d --sizes 8192,16384 --runs 2 --check-cpu-max 0 --host-input-max 0 ;;
    profile16k) step profile16k 200 env EIGSOLVE_GPU_PROFILE=1 "$es" bench eig -p d --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0 ;;
    eig-16k) step eig-16k 300 "$es" bench eig -p s,c,z --sizes 16384 --runs 2 --host-input-max 0 --json "$out/eig-scz.json" ;;
    eig-dd16k) step eig-dd16k 240 "$es" bench eig -p dd --sizes 4096,16384 --runs 1 --host-input-max 0 --json "$out/eig-dd.json" ;;
    symv3) step symv3 300 "$es" bench symv -p all --sizes 8192,16384,32768 --runs 3 --json "$out/symv.json" ;;
    large) step large 560 "$es" bench eig -p d --sizes 32768 --runs 1 --check-cpu-max 0 --host-input-max 0 --json "$out/eig-d32k.json" ;;
    large-s) step large-s 560 "$es" bench eig -p s --sizes 50000 --runs 1 --check-cpu-max 0 --host-input-max 0 --json "$out/eig-s50k.json" ;;
    tests-tridiag) mkdir -p "$out/t"; step tests-tridiag 200 env EIGSOLVE_REQUIRE_GPU=1 "$bin/tests/test_gpu_tridiag" ;;
    coop-on) step coop-on 200 env EIGSOLVE_GPU_COOP=1 "$es" bench eig -p d --sizes 4096,8192,16384 --runs 3 --check-cpu-max 0 --host-input-max 0 ;;
    eig-v16k) step eig-v16k 300 "$es" bench eig -p d --sizes 16384 --vectors --runs 1 --check-cpu-max 0 --host-input-max 0 --json "$out/eig-v16k.json" ;;
    cli-v) # stage times of --device cuda --vectors on random matrices (generated there)
      step cli-v 300 bash -c "for n in 8192 16384; do '$es' generate random --n \$n -o /tmp/r\$n.npy >/dev/null && EIGSOLVE_GPU_PROFILE=1 '$es' /tmp/r\$n.npy --device cuda --vectors -o /tmp/w\$n.txt --report /tmp/rep\$n.json && cp /tmp/rep\$n.json '$out/'; done" ;;
    coop-off) step coop-off 200 env EIGSOLVE_GPU_COOP=0 "$es" bench eig -p d --sizes 4096,8192,16384 --runs 3 --check-cpu-max 0 --host-input-max 0 ;;
    fork-off) step fork-off 200 env EIGSOLVE_GPU_FORK=0 "$es" bench eig -p d --sizes 8192,16384 --runs 2 --check-cpu-max 0 --host-input-max 0 ;;
    cli) step cli 60 bash -c "EIGSOLVE_GPU_PROFILE=1 '$es' '$here/tests/data/matrices/bcsstk13.mtx' --device cuda -o /tmp/es-a.txt && '$es' '$here/tests/data/matrices/494_bus.mtx' --device auto --vectors -o /tmp/es-b.txt --vectors-output /tmp/es-b.mtx && '$es' '$here/tests/data/matrices/494_bus.mtx' --device cpu --vectors -o /tmp/es-c.txt --vectors-output /tmp/es-c.mtx && cmp /tmp/es-b.txt /tmp/es-c.txt && cmp /tmp/es-b.mtx /tmp/es-c.mtx && echo 'cli: cuda == cpu, values and vectors'" ;;
    fused-off) step fused-off 200 env EIGSOLVE_GPU_FUSED=0 "$es" bench eig -p d --sizes 8192,16384 --runs 2 --check-cpu-max 0 ;;
    eig-d) step eig-d 240 "$es" bench eig -p d --sizes 4096,8192,16384 --runs 3 --json "$out/eig-d.json" ;;
    eig-all) step eig-all 300 "$es" bench eig -p s,c,z --sizes 8192,16384 --runs 2 --json "$out/eig-scz.json" ;;
    eig-v) step eig-v 240 "$es" bench eig -p d,z --sizes 4096,8192 --vectors --runs 1 --json "$out/eig-v.json" ;;
    eig-dd) step eig-dd 240 "$es" bench eig -p dd --sizes 8192,16384 --runs 1 --json "$out/eig-dd.json" ;;
    profile) step profile 200 env EIGSOLVE_GPU_PROFILE=1 "$es" bench eig -p d,z --sizes 8192 --runs 1 --check-cpu-max 0 ;;
    pdl-off) step pdl-off 200 env EIGSOLVE_GPU_PDL=0 "$es" bench eig -p d --sizes 8192,16384 --runs 2 --check-cpu-max 0 ;;
    cpu-bench) # issue 9 item 8: ours vs LAPACKE on 2 host cores of the (otherwise idle) GPU host
      step cpu-bench 560 bash -c "for p in s d c z; do taskset -c 0,1 '$bin/bench_eig' values \$p 2 3 2048; taskset -c 0,1 '$bin/bench_eig' values \$p 2 2 4096; done" ;;
    cpu-tridiag) step cpu-tridiag 300 bash -c "taskset -c 0,1 '$bin/bench_tridiag' --threads 2 --reps 3 --sizes 2048,4096 --sz-sizes 2048,4096 --dd-sizes 256; for v in 1 0; do echo EIGSOLVE_HEMV_PERMUTE=\$v; EIGSOLVE_HEMV_PERMUTE=\$v taskset -c 0,1 '$bin/bench_tridiag' --threads 2 --sizes '' --dd-sizes '' --sz-sizes '' --hemv-sizes 2048,4096 --sz-prec c --reps 7; done" ;;
    tests-2stage) mkdir -p "$out/t"  # the two-stage reduction's pieces and the whole, bitwise against the CPU
      step tests-2stage 300 bash -c "rc=0; for n in test_gpu_symm test_gpu_bulge_chase test_gpu_two_stage; do EIGSOLVE_REQUIRE_GPU=1 timeout 140 '$bin'/tests/\$n --gtest_output=json:'$out'/t/\$n.json > '$out'/t/\$n.log 2>&1 || { rc=1; echo FAILED \$n; }; tail -n 3 '$out'/t/\$n.log; done; exit \$rc" ;;
    bench-2stage) # the two-stage pieces' standalone timings, then bench eig with the two-stage reduction against cuSOLVER
      step bench-2stage 400 bash -c "timeout 90 '$bin'/bench_symm --sizes 2048,4096,8192,16384 --k 32 --prec s,d,c,z,dd --runs 3; timeout 90 '$bin'/bench_bulge --sizes 4096,16384 --b 32 --prec s,d,z,dd --runs 3; timeout 200 '$es' bench eig --reduction two-stage -p s,d,c,z,dd --sizes 4096,16384 --runs 1 --check-cpu-max 2048 --host-input-max 0 --json '$out'/eig-2stage.json" ;;
    chase-ab) # the device bulge chase: registers path (default) against the previous one (EIGSOLVE_GPU_BULGE_REG=0)
      step chase-ab 200 bash -c "for v in 1 0; do echo EIGSOLVE_GPU_BULGE_REG=\$v; EIGSOLVE_GPU_BULGE_REG=\$v timeout 90 '$bin'/bench_bulge --sizes 4096,16384 --b 32 --prec s,d,z,dd --runs 3; done" ;;
    profile-2s) # where the two-stage time goes (steps serialised), d z dd at 16384
      step profile-2s 200 env EIGSOLVE_GPU_PROFILE=1 "$es" bench eig --reduction two-stage -p d,z,dd --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0 ;;
    eig-2s) step eig-2s 300 "$es" bench eig --reduction two-stage -p s,d,c,z,dd --sizes 4096,16384 --runs 2 --check-cpu-max 0 --host-input-max 16384 --json "$out/eig-2stage.json" ;;
    la-ab) # the next panel's QR beside the update (default) against in order (EIGSOLVE_GPU_LOOKAHEAD=0)
      step la-ab 120 bash -c "for v in 0 1; do echo EIGSOLVE_GPU_LOOKAHEAD=\$v; EIGSOLVE_GPU_LOOKAHEAD=\$v '$es' bench eig --reduction two-stage -p s,d --sizes 16384 --runs 2 --check-cpu-max 0 --host-input-max 0; done" ;;
    large-2s) step large-2s 200 "$es" bench eig --reduction two-stage -p d --sizes 32768 --runs 1 --check-cpu-max 0 --host-input-max 0 --json "$out/eig-d32k-2stage.json" ;;
    profile-d) step profile-d 60 env EIGSOLVE_GPU_PROFILE=1 "$es" bench eig --reduction two-stage -p d --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0 ;;
    eig-2s16k) step eig-2s16k 200 "$es" bench eig --reduction two-stage -p s,d,c,z,dd --sizes 16384 --runs 2 --check-cpu-max 0 --host-input-max 0 --json "$out/eig-2stage-16k.json" ;;
    symm-all) step symm-all 150 "$bin/bench_symm" --sizes 4096,16384 --k 32 --prec d,z,s,c --runs 3 --all-configs ;;
    qr1-ab) # the panel QR as one kernel per panel (default) against two kernels per column (EIGSOLVE_GPU_QR1=0)
      step qr1-ab 120 bash -c "for v in 0 1; do echo EIGSOLVE_GPU_QR1=\$v; EIGSOLVE_GPU_QR1=\$v '$es' bench eig --reduction two-stage -p s,d --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0; done" ;;
    cross) # session 16: one-stage against two-stage eigenvalues from 2048 to 12288 (the crossover n for --reduction auto), cuSOLVER in the same process
      step cross 420 bash -c "for r in one-stage two-stage; do echo == \$r; '$es' bench eig --reduction \$r -p s,d,c,z --sizes 2048,3072,4096,6144,8192,12288 --runs 2 --check-cpu-max 0 --host-input-max 0 --json '$out'/cross-\$r.json; '$es' bench eig --reduction \$r -p dd --sizes 2048,4096,8192 --runs 1 --check-cpu-max 0 --host-input-max 0 --json '$out'/cross-dd-\$r.json; done" ;;
    tests-2sv) mkdir -p "$out/t"  # session 16: the two-stage eigenvectors' pieces and the whole, bitwise against the CPU
      step tests-2sv 300 bash -c "rc=0; for n in test_gpu_two_stage_vectors test_gpu_bulge_chase test_gpu_two_stage test_gpu_back_transform; do [ -x '$bin'/tests/\$n ] || { echo MISSING \$n; rc=1; continue; }; EIGSOLVE_REQUIRE_GPU=1 timeout 150 '$bin'/tests/\$n --gtest_output=json:'$out'/t/\$n.json > '$out'/t/\$n.log 2>&1 || { rc=1; echo FAILED \$n; }; tail -n 3 '$out'/t/\$n.log; done; exit \$rc" ;;
    cli-2sv) # session 16: the CLI with two-stage vectors, --device cuda against cpu (values and vectors files), s d z dd on shared matrices, stage times
      step cli-2sv 200 bash -c "m='$here/tests/data/matrices'; for pm in d:494_bus z:494_bus s:bcsstk13 dd:494_bus d:bcsstk13; do p=\${pm%%:*}; f=\$m/\${pm#*:}.mtx; for dv in cuda cpu; do '$es' \$f -p \$p --reduction two-stage --device \$dv --vectors -o /tmp/w-\$dv.txt --vectors-output /tmp/v-\$dv.npy --report /tmp/r-\$dv.json 2>&1 | grep -E 'time:|residuals:' | sed \"s/^/\$pm \$dv: /\"; done; cmp /tmp/w-cuda.txt /tmp/w-cpu.txt && cmp /tmp/v-cuda.npy /tmp/v-cpu.npy && echo \"\$pm: two-stage vectors cuda == cpu (values and vectors files)\" || echo \"\$pm: DIFFERENT\"; done" ;;
    eig-v2s) # session 16: eigenvectors with the default (auto: two-stage at 16384) against cuSOLVER ?syevd('V'), d at 8192 too
      step eig-v2s 360 bash -c "EIGSOLVE_GPU_PROFILE=1 '$es' bench eig -p d --sizes 8192,16384 --vectors --runs 1 --check-cpu-max 0 --host-input-max 0 --json '$out'/eig-v-d.json; '$es' bench eig -p s,c,z --sizes 16384 --vectors --runs 1 --check-cpu-max 0 --host-input-max 0 --json '$out'/eig-v-scz.json" ;;
    eig-v1s) step eig-v1s 120 "$es" bench eig --reduction one-stage -p d --sizes 16384 --vectors --runs 1 --check-cpu-max 0 --host-input-max 0 --json "$out/eig-v-d-1s.json" ;;
    q2-ab) # session 16: where the two-stage vectors' time goes: the back-transformation overlapping phase B (default) or after it, Q2/Q1 kernel split, Q2 warps capped; d (and z) 16384
      step q2-ab 330 bash -c "for e in EIGSOLVE_GPU_PROFILE=1 'EIGSOLVE_GPU_PROFILE=1 EIGSOLVE_GPU_BT_OVERLAP=0' EIGSOLVE_GPU_BT_OVERLAP=0 EIGSOLVE_GPU_Q2_WARPS=264 'EIGSOLVE_GPU_Q2_WARPS=528'; do echo \"== \$e\"; env \$e '$es' bench eig -p d --sizes 16384 --vectors --runs 1 --check-cpu-max 0 --host-input-max 0 2>&1 | grep -E 'vectors on the device|back-transformation \\(|inverse iteration \\(|^eigsolve d|^d '; done; echo '== z, EIGSOLVE_GPU_PROFILE=1 EIGSOLVE_GPU_BT_OVERLAP=0'; EIGSOLVE_GPU_PROFILE=1 EIGSOLVE_GPU_BT_OVERLAP=0 '$es' bench eig -p z --sizes 16384 --vectors --runs 1 --check-cpu-max 0 --host-input-max 0 2>&1 | grep -E 'vectors on the device|back-transformation \\(|inverse iteration \\(|^eigsolve z|^z '" ;;
    eig-1s) step eig-1s 120 "$es" bench eig -p s,d --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0 --json "$out/eig-1stage.json" ;;
    tests-symv) mkdir -p "$out/t"
      step tests-symv 300 env EIGSOLVE_REQUIRE_GPU=1 "$bin/tests/test_gpu_symv" --gtest_output=json:"$out/t/test_gpu_symv.json" ;;
    tests-fast) mkdir -p "$out/t"  # every GPU test binary but test_gpu_invit (minutes of host references)
      step tests-fast 300 bash -c "rc=0; for t in '$bin'/tests/test_gpu_*; do case \$t in *invit*) continue;; esac; n=\$(basename \$t); EIGSOLVE_REQUIRE_GPU=1 \$t --gtest_output=json:'$out'/t/\$n.json > '$out'/t/\$n.log 2>&1 || { rc=1; echo FAILED \$n; }; done; exit \$rc" ;;
    tests-invit) mkdir -p "$out/t"
      step tests-invit 300 env EIGSOLVE_REQUIRE_GPU=1 "$bin/tests/test_gpu_invit" --gtest_output=json:"$out/t/test_gpu_invit.json" ;;
    cli-vb) # device phase B (EIGSOLVE_GPU_INVIT_B=1) against the host's: same vectors, stage times
      step cli-vb 300 bash -c "for n in 8192 16384; do '$es' generate random --n \$n -o /tmp/r\$n.npy >/dev/null; for b in 1 0; do EIGSOLVE_GPU_INVIT_B=\$b EIGSOLVE_GPU_PROFILE=1 '$es' /tmp/r\$n.npy --device cuda --vectors -o /tmp/w\$n-\$b.txt --vectors-output /tmp/v\$n-\$b.npy; done; cmp /tmp/v\$n-1.npy /tmp/v\$n-0.npy && echo \"n=\$n: device phase B == host phase B (vectors file)\"; rm -f /tmp/v\$n-*.npy; done" ;;
    crossmachine) # the digests of scripts/crossmachine.sh on this host: CPU 16 and 1 threads, and the GPU
      step crossmachine 200 bash -c "for c in 'cpu 16' 'cpu 1' 'cuda 16'; do set -- \$c; '$here/scripts/crossmachine.sh' '$es' '$here/tests/data/matrices' /tmp/cm-\$1-\$2 \$2 \$1 > '$out'/digests-\$1-t\$2.txt; done; md5sum '$out'/digests-*.txt" ;;
    eig-z16k) step eig-z16k 200 "$es" bench eig -p z --sizes 16384 --runs 2 --host-input-max 0 --json "$out/eig-z16k.json" ;;
    symv-all) step symv-all 300 "$es" bench symv -p all --sizes 1024,2048,4096,8192,16384,32768 --runs 5 --json "$out/symv.json" ;;
    cpu-s) step cpu-s 240 bash -c "for a in 0 1; do echo EIGSOLVE_NO_AVX512=\$a; EIGSOLVE_NO_AVX512=\$a taskset -c 0,1 '$bin/bench_tridiag' --threads 2 --reps 3 --sizes '' --dd-sizes '' --sz-sizes 2048,4096 --sz-prec s; EIGSOLVE_NO_AVX512=\$a taskset -c 0,1 '$bin/bench_tridiag' --threads 2 --reps 7 --sizes '' --dd-sizes '' --sz-sizes '' --hemv-sizes 2048,4096 --sz-prec sdc; done; taskset -c 0,1 '$bin/bench_eig' values s 2 3 2048 4096; taskset -c 0,1 '$bin/bench_eig' values d 2 3 2048 4096" ;;
    ncu) # hardware counters (Nsight Compute) of device phase B's step 2, the back-transformation and the SYMV, d n = 8192
      step ncu 300 bash -c "'$es' generate random --n 8192 -o /tmp/r8192.npy >/dev/null; S='--clock-control none --set full --print-summary none'; EIGSOLVE_GPU_INVIT_B=1 ncu \$S -k regex:step2_wave --launch-skip 100 -c 2 '$es' /tmp/r8192.npy --device cuda --vectors -o /tmp/ncu1.txt; ncu \$S -k regex:'step1_kernel|step3_kernel|sum_kernel' --launch-skip 900 -c 3 '$es' /tmp/r8192.npy --device cuda --vectors -o /tmp/ncu2.txt; ncu \$S -k regex:symv_tiles --launch-skip 200 -c 2 '$es' /tmp/r8192.npy --device cuda -o /tmp/ncu3.txt" ;;
    shift-ab) # SYMV shifted 16-byte loads (default) against narrow loads where the trailing matrix is off a 16-byte line
      step shift-ab 400 bash -c "for v in 0 1; do echo EIGSOLVE_GPU_SYMV_SHIFT=\$v; EIGSOLVE_GPU_SYMV_SHIFT=\$v '$es' bench symv -p s,d,c --sizes 16384 --runs 3 --json '$out'/symv-shift\$v.json; EIGSOLVE_GPU_SYMV_SHIFT=\$v '$es' bench eig -p s,d,c --sizes 16384 --runs 2 --check-cpu-max 0 --host-input-max 0 --json '$out'/eig-shift\$v.json; done" ;;
    tests-invit-d) mkdir -p "$out/t"  # double and float cases of test_gpu_invit (cluster phase B forced too)
      step tests-invit-d 300 env EIGSOLVE_REQUIRE_GPU=1 "$bin/tests/test_gpu_invit" --gtest_filter='GpuInvit/1.*' --gtest_output=json:"$out/t/test_gpu_invit_d.json" ;;
    invit-cluster) # device phase B: single CTA (CLUSTER=0), clusters of 8 (default), 16, and the st.async exchange; same vectors files
      step invit-cluster 300 bash -c "for n in 8192 16384; do '$es' generate random --n \$n -o /tmp/r\$n.npy >/dev/null; for c in 0 8 16 tx; do case \$c in 0) e='EIGSOLVE_GPU_INVIT_CLUSTER=0';; 8) e='EIGSOLVE_GPU_INVIT_CLUSTER=8';; 16) e='EIGSOLVE_GPU_INVIT_CLUSTER=16';; tx) e='EIGSOLVE_GPU_INVIT_CLUSTER_TX=1';; esac; echo \"== n=\$n \$e\"; env \$e EIGSOLVE_GPU_PROFILE=1 timeout 120 '$es' /tmp/r\$n.npy --device cuda --vectors -o /tmp/w.txt --vectors-output /tmp/v\$n-\$c.npy 2>&1 | grep -v 'gpu profile'; cmp /tmp/v\$n-0.npy /tmp/v\$n-\$c.npy && echo \"n=\$n \$c: same vectors file as CLUSTER=0\"; done; rm -f /tmp/v\$n-*.npy; done" ;;
    symv-sd) step symv-sd 200 "$es" bench symv -p s,d --sizes 4096,16384 --runs 5 --json "$out/symv-sd.json" ;;
    bt-ab) # device back-transformation: automatic / sweep / segments (EIGSOLVE_GPU_BT_SWEEP), same vectors files; z 8192
      step bt-ab 300 bash -c "for n in 8192 16384; do '$es' generate random --n \$n -o /tmp/r\$n.npy >/dev/null; for b in auto 1 0; do echo \"== d n=\$n EIGSOLVE_GPU_BT_SWEEP=\$b\"; if [ \$b = auto ]; then e=EIGSOLVE_X=0; else e=EIGSOLVE_GPU_BT_SWEEP=\$b; fi; env \$e EIGSOLVE_GPU_PROFILE=1 '$es' /tmp/r\$n.npy --device cuda --vectors -o /tmp/w.txt --vectors-output /tmp/v\$n-\$b.npy 2>&1 | grep -v 'gpu profile'; cmp /tmp/v\$n-auto.npy /tmp/v\$n-\$b.npy && echo \"n=\$n \$b: same vectors file\"; done; rm -f /tmp/v\$n-*.npy; done; '$es' generate random --n 8192 --complex -o /tmp/z8192.npy >/dev/null && EIGSOLVE_GPU_PROFILE=1 '$es' /tmp/z8192.npy --precision z --device cuda --vectors -o /tmp/w.txt 2>&1 | grep -v 'gpu profile'" ;;
    cli-s) # float with vectors on the device: stage times (is device phase A slow in float?)
      step cli-s 200 bash -c "'$es' generate random --n 8192 -o /tmp/r8192.npy >/dev/null; for p in s d; do EIGSOLVE_GPU_PROFILE=1 '$es' /tmp/r8192.npy --precision \$p --device cuda --vectors -o /tmp/w.txt 2>&1 | grep -v 'gpu profile'; done" ;;
    eig-all16k) step eig-all16k 300 "$es" bench eig -p s,d,c,z --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0 --json "$out/eig-all16k.json" ;;
    cpu-s3) # issue 9: float tridiagonalization and solve against LAPACKE on 2 host cores, 3 rounds
      step cpu-s3 200 bash -c "for r in 1 2 3; do echo round \$r; taskset -c 0,1 '$bin/bench_tridiag' --threads 2 --reps 3 --sizes '' --dd-sizes '' --sz-sizes 2048,4096 --sz-prec s; done; taskset -c 0,1 '$bin/bench_eig' values s 2 3 2048 4096" ;;
    fetch-ab) # bench eig --vectors with the reflectors fetched plainly / through pinned chunks (EIGSOLVE_GPU_STAGED_FETCH)
      step fetch-ab 300 bash -c "for v in 0 1; do echo EIGSOLVE_GPU_STAGED_FETCH=\$v; EIGSOLVE_GPU_STAGED_FETCH=\$v '$es' bench eig -p d --sizes 16384 --vectors --runs 1 --check-cpu-max 0 --host-input-max 0; done" ;;
    cpu-s2) step cpu-s2 200 bash -c "for r in 1 2 3; do for a in 0 1; do echo round \$r EIGSOLVE_NO_AVX512=\$a; EIGSOLVE_NO_AVX512=\$a taskset -c 0,1 '$bin/bench_tridiag' --threads 2 --reps 3 --sizes '' --dd-sizes '' --sz-sizes 2048,4096 --sz-prec s; done; done; taskset -c 0,1 '$bin/bench_eig' values s 2 3 4096" ;;
    tune) step tune 400 "$es" tune symv --runs 3 --sizes 1024,1536,2048,3072,4096,6144,8192,12288,16384,24576,32768 -o "$out/sm_90.json" ;;
    ncu-z) # hardware counters of the SYMV kernels at n = 16384: z (xs load path) against d
      step ncu-z 300 bash -c "S='--clock-control none --set full --print-summary none'; for p in z d; do echo \"== \$p\"; ncu \$S -k regex:'symv_tiles|symv_rowsums' -c 4 '$es' bench symv -p \$p --sizes 16384 --runs 1; done" ;;
    invit-f) # why the float cases of test_gpu_invit are slow: per-call stage times of LargeRandom, float then double
      step invit-f 240 bash -c "for f in 0 1; do EIGSOLVE_GPU_PROFILE=1 EIGSOLVE_REQUIRE_GPU=1 timeout 150 '$bin/tests/test_gpu_invit' --gtest_filter=GpuInvit/\$f.LargeRandom; done" ;;
    resident-ab) # vectors resident on the device (default) against the host route (EIGSOLVE_GPU_RESIDENT=0): bench eig d 16384, then CLI stage times and the vectors files compared (d 8192, z 4096)
      step resident-ab 400 bash -c "for v in 1 0; do echo EIGSOLVE_GPU_RESIDENT=\$v; EIGSOLVE_GPU_RESIDENT=\$v '$es' bench eig -p d --sizes 16384 --vectors --runs 1 --check-cpu-max 0 --host-input-max 0 --json '$out'/eig-v16k-res\$v.json; done; '$es' generate random --n 8192 -o /tmp/r8192.npy >/dev/null; '$es' generate random --n 4096 --complex -o /tmp/z4096.npy >/dev/null; for f in r8192 z4096; do p=d; [ \$f = z4096 ] && p=z; for v in 1 0; do echo \"== \$f EIGSOLVE_GPU_RESIDENT=\$v\"; EIGSOLVE_GPU_RESIDENT=\$v EIGSOLVE_GPU_PROFILE=1 '$es' /tmp/\$f.npy --precision \$p --device cuda --vectors -o /tmp/w.txt --vectors-output /tmp/v-\$f-\$v.npy 2>&1 | grep -v 'gpu profile'; done; cmp /tmp/v-\$f-1.npy /tmp/v-\$f-0.npy && echo \"\$f: resident == host route (vectors file)\"; done" ;;
    zxs-ab) # helper-18's z HEMV kernel (EIGSOLVE_GPU_SYMV_ZXS=1|2|3) against today's xs kernel (0): bench symv z, then the z eigenvalues at 16384
      step zxs-ab 300 bash -c "for m in 0 1 2 3; do echo EIGSOLVE_GPU_SYMV_ZXS=\$m; EIGSOLVE_GPU_SYMV_ZXS=\$m '$es' bench symv -p z --sizes 4096,16384 --runs 5 --json '$out'/symv-zxs\$m.json; done; for m in 0 1 2; do echo EIGSOLVE_GPU_SYMV_ZXS=\$m; EIGSOLVE_GPU_SYMV_ZXS=\$m '$es' bench eig -p z --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0 --json '$out'/eig-z16k-zxs\$m.json; done" ;;
    tune-z) # re-tune complex double only (after the zxs kernel became the default); merged into the table here
      step tune-z 240 "$es" tune symv -p z --runs 3 --sizes 1024,1536,2048,3072,4096,6144,8192,12288,16384,24576,32768 -o "$out/sm_90-z.json" ;;
    alt-ab) # alternating sweep directions (EIGSOLVE_GPU_SYMV_ALT=1, default) against every sweep first to last (0): eigenvalues d 4096..16384, s/c/z 16384
      step alt-ab 400 bash -c "for v in 0 1; do echo EIGSOLVE_GPU_SYMV_ALT=\$v; EIGSOLVE_GPU_SYMV_ALT=\$v '$es' bench eig -p d --sizes 4096,8192,16384 --runs 3 --check-cpu-max 0 --host-input-max 0 --json '$out'/eig-d-alt\$v.json; EIGSOLVE_GPU_SYMV_ALT=\$v '$es' bench eig -p s,c,z --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0 --json '$out'/eig-scz-alt\$v.json; done" ;;
    profile-alt) # per-step split (steps serialised) of d 16384 and dd 8192, sweep directions alternating and not
      step profile-alt 300 bash -c "for v in 0 1; do for p in d:16384 dd:8192; do echo \"== EIGSOLVE_GPU_SYMV_ALT=\$v \$p\"; EIGSOLVE_GPU_SYMV_ALT=\$v EIGSOLVE_GPU_PROFILE=1 '$es' bench eig -p \${p%%:*} --sizes \${p##*:} --runs 1 --check-cpu-max 0 --host-input-max 0 2>&1 | tail -n 12; done; done" ;;
    ncu-v16k) # hardware counters at d 16384 with vectors: phase A of the inverse iteration, back-transformation steps 1 and 3
      step ncu-v16k 420 bash -c "'$es' generate random --n 16384 -o /tmp/r16384.npy >/dev/null; S='--clock-control none --set full --print-summary none'; ncu \$S -k regex:phase_a_kernel -c 1 '$es' /tmp/r16384.npy --device cuda --vectors -o /tmp/ncu1.txt; ncu \$S -k regex:'step1_kernel|step3_kernel' --launch-skip 40 -c 2 '$es' /tmp/r16384.npy --device cuda --vectors -o /tmp/ncu2.txt" ;;
    ddxs-ab) # helper-20's dd SYMV kernel (EIGSOLVE_GPU_SYMV_DDXS=2|4: every dd config) against today's (0): bench symv dd, then the dd eigenvalues at 16384
      step ddxs-ab 420 bash -c "for m in 0 2 4; do echo EIGSOLVE_GPU_SYMV_DDXS=\$m; EIGSOLVE_GPU_SYMV_DDXS=\$m '$es' bench symv -p dd --sizes 4096,16384 --runs 5 --json '$out'/symv-ddxs\$m.json; done; for m in 0 2 4; do echo EIGSOLVE_GPU_SYMV_DDXS=\$m; EIGSOLVE_GPU_SYMV_DDXS=\$m '$es' bench eig -p dd --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0 --json '$out'/eig-dd16k-ddxs\$m.json; done" ;;
    ncu-q2) # session 17: hardware counters (Nsight Compute, full set) of the two-stage back-transformation's q2_kernel, d n = 8192 with vectors (third launch of eight)
      step ncu-q2 240 bash -c "'$es' generate random --n 8192 -o /tmp/r8192.npy >/dev/null; EIGSOLVE_GPU_PROFILE=1 '$es' /tmp/r8192.npy --device cuda --vectors --reduction two-stage -o /tmp/w.txt 2>&1 | grep -E 'Q2|time:'; cd /tmp && nsys profile -o /tmp/nsys-q2 --force-overwrite true -t cuda '$es' /tmp/r8192.npy --device cuda --vectors --reduction two-stage -o /tmp/w.txt >/dev/null 2>&1; nsys stats -q -r cuda_gpu_kern_sum -f csv /tmp/nsys-q2.nsys-rep | cut -c1-200 | head -n 30; ncu --clock-control none --set full --import-source no --print-summary none -k regex:q2 -c 1 '$es' /tmp/r8192.npy --device cuda --vectors --reduction two-stage -o /tmp/w.txt" ;;
    ncu-q2s) # session 17: q2_kernel's stall reasons and per-SASS-instruction samples (source page), d n = 8192 with vectors, all columns in one launch
      step ncu-q2s 240 bash -c "'$es' generate random --n 8192 -o /tmp/r8192.npy >/dev/null; ncu --clock-control none --section WarpStateStats --section SourceCounters --section SchedulerStats --section InstructionStats --section ComputeWorkloadAnalysis --import-source no -k regex:q2 -c 1 -o /tmp/q2rep '$es' /tmp/r8192.npy --device cuda --vectors --reduction two-stage -o /tmp/w.txt >/dev/null 2>&1; ncu -i /tmp/q2rep.ncu-rep --page details --print-details all > '$out'/ncu-q2-details.txt 2>&1; ncu -i /tmp/q2rep.ncu-rep --page source --csv --print-source sass > '$out'/ncu-q2-sass.csv 2>&1; ls -la '$out'/ncu-q2-*" ;;
    tests-q2) mkdir -p "$out/t"  # session 17: the Q2 kernel (two columns per lane) and the two-stage pipeline with vectors, bitwise against the CPU
      step tests-q2 200 bash -c "rc=0; for n in test_gpu_two_stage_vectors test_gpu_two_stage; do EIGSOLVE_REQUIRE_GPU=1 timeout 150 '$bin'/tests/\$n --gtest_output=json:'$out'/t/\$n.json > '$out'/t/\$n.log 2>&1 || { rc=1; echo FAILED \$n; }; tail -n 3 '$out'/t/\$n.log; done; exit \$rc" ;;
    q2-cols) # session 17: Q2 kernel time, the binary before (eigsolve-old) against this one, one and two columns per lane (EIGSOLVE_GPU_Q2_COLS); back-transformation after the inverse iteration; values and vectors files compared; d and s at 16384, c and z at 8192
      step q2-cols 330 bash -c "tar -C '$bin' -xJf '$here/build/final/old.tar.xz'; for pn in d:16384 s:16384 c:8192 z:8192; do p=\${pn%%:*}; n=\${pn#*:}; '$es' generate random --n \$n -o /tmp/r.npy >/dev/null; for v in 'eigsolve-old 1' 'eigsolve 1' 'eigsolve 2'; do set -- \$v; [ \$p = z ] && [ \$2 = 2 ] && continue; echo \"== \$p \$n \$1 COLS=\$2\"; EIGSOLVE_GPU_Q2_COLS=\$2 EIGSOLVE_GPU_PROFILE=1 EIGSOLVE_GPU_BT_OVERLAP=0 '$bin'/\$1 /tmp/r.npy -p \$p --device cuda --vectors --reduction two-stage -o /tmp/w-\$1-\$2.txt --vectors-output /tmp/v-\$1-\$2.npy 2>&1 | grep -E 'Q2|time:|rror'; done; ok=1; n2=0; for f in /tmp/v-eigsolve-*.npy /tmp/w-eigsolve-*.txt; do n2=\$((n2+1)); case \$f in *.npy) cmp /tmp/v-eigsolve-old-1.npy \$f || ok=0;; *) cmp /tmp/w-eigsolve-old-1.txt \$f || ok=0;; esac; done; echo \"\$p \$n: \$n2 files\"; [ \$ok = 1 ] && echo \"\$p \$n: same values and vectors files\" || echo \"\$p \$n: DIFFERENT\"; rm -f /tmp/v-*.npy /tmp/w-*.txt; done" ;;
    eig-v2s-ds) # session 17: two-stage eigenvectors d and s at 16384 against cuSOLVER ?syevd('V'), and d with the one-stage (the default with vectors)
      step eig-v2s-ds 300 bash -c "'$es' bench eig --reduction two-stage -p d,s --sizes 16384 --vectors --runs 1 --check-cpu-max 0 --host-input-max 0 --json '$out'/eig-v2s-ds.json; '$es' bench eig --reduction one-stage -p d --sizes 16384 --vectors --runs 1 --check-cpu-max 0 --host-input-max 0 --json '$out'/eig-v1s-d.json" ;;
    eig-dz) # session 17: default eigenvalues d and z at 16384 against cuSOLVER (after the chase's negations went through neg_rounded)
      step eig-dz 150 "$es" bench eig -p d,z --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0 --json "$out/eig-dz16k.json" ;;
    tests-s17) mkdir -p "$out/t"  # session 17: the Q2 kernel, the two-stage pipeline, the device chase (negations through neg_rounded) and the structured-zero cases, bitwise against the CPU
      step tests-s17 300 bash -c "rc=0; for nf in test_gpu_two_stage_vectors:'*' test_gpu_two_stage:'*' test_gpu_bulge_chase:'*' test_gpu_arith:'*' test_gpu_back_transform:'*StructuredZeros*' test_gpu_tridiag:'*StructuredZeros*'; do n=\${nf%%:*}; f=\${nf#*:}; [ -x '$bin'/tests/\$n ] || { echo MISSING \$n; rc=1; continue; }; EIGSOLVE_REQUIRE_GPU=1 timeout 150 '$bin'/tests/\$n --gtest_filter=\"\$f\" --gtest_output=json:'$out'/t/\$n.json > '$out'/t/\$n.log 2>&1 || { rc=1; echo FAILED \$n; }; echo \$n; tail -n 3 '$out'/t/\$n.log; done; exit \$rc" ;;
    q2-final) # session 17: Q2 kernel time of this binary (back-transformation after the inverse iteration), d and s at 16384, c, z and dd at 8192; d also with two columns per lane (EIGSOLVE_GPU_Q2_COLS=2), its files compared
      step q2-final 300 bash -c "for pn in d:16384 s:16384 c:8192 z:8192 dd:4096; do p=\${pn%%:*}; n=\${pn#*:}; '$es' generate random --n \$n -o /tmp/r.npy >/dev/null; for c in 1 2; do [ \$p != d ] && [ \$c = 2 ] && continue; echo \"== \$p \$n COLS=\$c\"; EIGSOLVE_GPU_Q2_COLS=\$c EIGSOLVE_GPU_PROFILE=1 EIGSOLVE_GPU_BT_OVERLAP=0 '$es' /tmp/r.npy -p \$p --device cuda --vectors --reduction two-stage -o /tmp/w-\$c.txt --vectors-output /tmp/v-\$c.npy 2>&1 | grep -E 'Q2|time:|rror|residuals'; done; [ \$p = d ] && { cmp /tmp/w-1.txt /tmp/w-2.txt && cmp /tmp/v-1.npy /tmp/v-2.npy && echo 'd: COLS=1 and COLS=2 same values and vectors files' || echo 'd: COLS DIFFERENT'; }; rm -f /tmp/v-*.npy /tmp/w-*.txt; done" ;;
    tests-s18) mkdir -p "$out/t"  # session 18: stage 1's c/z signed-zero fix (eaf7d3c) on both panel paths, the one-stage structured zeros, the chase and Q2 after the neg_rounded commits; bitwise against the CPU
      step tests-s18 420 bash -c "rc=0; for nf in test_gpu_two_stage:'*' test_gpu_two_stage:'*StructuredZeros*':QR1 test_gpu_tridiag:'*StructuredZeros*' test_gpu_bulge_chase:'*Structured*' test_gpu_two_stage_vectors:'*'; do n=\${nf%%:*}; r=\${nf#*:}; f=\${r%%:*}; e=; tag=\$n; case \$r in *:QR1) e=EIGSOLVE_GPU_QR1=0; tag=\$n-qr1;; esac; [ -x '$bin'/tests/\$n ] || { echo MISSING \$n; rc=1; continue; }; env \$e EIGSOLVE_REQUIRE_GPU=1 timeout 200 '$bin'/tests/\$n --gtest_filter=\"\$f\" --gtest_output=json:'$out'/t/\$tag.json > '$out'/t/\$tag.log 2>&1 || { rc=1; echo FAILED \$tag; }; echo \$tag \$e; tail -n 3 '$out'/t/\$tag.log; done; exit \$rc" ;;
    q2-c) # session 18: Q2 kernel time of complex float at 8192 with the corrected body length, and dd at 4096 (values and vectors written as .mtx)
      step q2-c 200 bash -c "for pn in c:8192 dd:4096; do p=\${pn%%:*}; n=\${pn#*:}; '$es' generate random --n \$n -o /tmp/r.npy >/dev/null; echo \"== \$p \$n\"; EIGSOLVE_GPU_PROFILE=1 EIGSOLVE_GPU_BT_OVERLAP=0 '$es' /tmp/r.npy -p \$p --device cuda --vectors --reduction two-stage -o /tmp/w.txt --vectors-output /tmp/v.mtx 2>&1 | grep -E 'Q2|time:|rror|residuals'; rm -f /tmp/v.mtx /tmp/w.txt; done" ;;
    ncu-dd) # session 18: where dd's stage 1 goes: Nsight Compute (full set, SASS samples) on the dd SYMM kernel (bench_symm m = 8192, k = 32) and on one dd rank-2k launch of the two-stage reduction (n = 8192)
      step ncu-dd 400 bash -c "S='--clock-control none --set full --import-source no'; ncu \$S -k regex:symm_kernel -c 1 -o /tmp/ddsymm '$bin'/bench_symm --sizes 8192 --k 32 --prec dd --runs 1 > '$out'/ncu-dd-run1.txt 2>&1; '$es' generate random --n 8192 -o /tmp/r8192.npy >/dev/null; ncu \$S -k regex:rank2k --launch-skip 20 -c 1 -o /tmp/ddr2k '$es' /tmp/r8192.npy -p dd --device cuda --reduction two-stage -o /tmp/w.txt > '$out'/ncu-dd-run2.txt 2>&1; for r in ddsymm ddr2k; do ncu -i /tmp/\$r.ncu-rep --page details --print-details all > '$out'/ncu-\$r-details.txt 2>&1; ncu -i /tmp/\$r.ncu-rep --page source --csv --print-source sass > '$out'/ncu-\$r-sass.csv 2>&1; done; ls -la '$out'/ncu-*" ;;
    tests-symm) mkdir -p "$out/t"  # session 18: the canonical SYMM, every configuration (the dd candidates and the chunk chains' first madd included), bitwise against the CPU reference
      step tests-symm 300 bash -c "EIGSOLVE_REQUIRE_GPU=1 '$bin'/tests/test_gpu_symm --gtest_output=json:'$out'/t/test_gpu_symm.json > '$out'/t/test_gpu_symm.log 2>&1; rc=\$?; tail -n 3 '$out'/t/test_gpu_symm.log; exit \$rc" ;;
    symm-dd) # session 18: every dd SYMM configuration's time (k = 32), m = 2048 .. 16384
      step symm-dd 200 "$bin/bench_symm" --sizes 2048,4096,8192,12288,16384 --k 32 --prec dd --runs 3 --all-configs ;;
    eig-dd-ab) # session 18: dd eigenvalues at 16384 (two-stage) with the SYMM configuration picked by the table (default) and forced (EIGSOLVE_SYMM_CONFIG), steps serialised for the SYMM's share; values files compared
      step eig-dd-ab 330 bash -c "'$es' generate random --n 16384 -o /tmp/r.npy >/dev/null; for c in def \${SYMM_CONFIGS:-3 5}; do e=; [ \$c != def ] && e=EIGSOLVE_SYMM_CONFIG=\$c; echo \"== config \$c\"; env \$e '$es' /tmp/r.npy -p dd --device cuda -o /tmp/w-\$c.txt 2>&1 | grep -E 'time:|rror'; env \$e EIGSOLVE_GPU_PROFILE=1 '$es' /tmp/r.npy -p dd --device cuda -o /tmp/p-\$c.txt 2>&1 | grep -iE 'symm|rank|panel|chase|time:|rror' | head -n 12; cmp /tmp/w-def.txt /tmp/w-\$c.txt && echo \"config \$c: same values file\"; done" ;;
    resid-dd) mkdir -p "$out/t"  # session 18: the dd residuals on the device (helper-53) against the host's, then the CLI's stage times with dd vectors (write: helper-54's writer)
      step resid-dd 300 bash -c "EIGSOLVE_REQUIRE_GPU=1 '$bin'/tests/test_gpu_residuals --gtest_output=json:'$out'/t/test_gpu_residuals.json > '$out'/t/test_gpu_residuals.log 2>&1 || echo FAILED test_gpu_residuals; tail -n 3 '$out'/t/test_gpu_residuals.log; for n in 1024 4096; do '$es' generate random --n \$n -o /tmp/r.npy >/dev/null; for h in 1 0; do [ \$n = 4096 ] && [ \$h = 0 ] && continue; echo \"== dd n=\$n EIGSOLVE_GPU_RESIDUALS=\$h\"; EIGSOLVE_GPU_RESIDUALS=\$h '$es' /tmp/r.npy -p dd --device cuda --vectors -o /tmp/w.txt --vectors-output /tmp/v.mtx 2>&1 | grep -E 'time:|residuals|rror'; done; done; rm -f /tmp/v.mtx" ;;
    final-s18) mkdir -p "$out/t"  # session 18's last run: the dd two-stage pipeline bitwise against the CPU with dd's new SYMM pick; the CLI's dd values and vectors --device cuda against cpu (one- and two-stage); the dd eigenvalues at 4096 and 16384 (bench eig)
      step final-s18 400 bash -c "EIGSOLVE_REQUIRE_GPU=1 '$bin'/tests/test_gpu_two_stage --gtest_filter='*/4.*' --gtest_output=json:'$out'/t/test_gpu_two_stage-dd.json > '$out'/t/test_gpu_two_stage-dd.log 2>&1 || echo FAILED test_gpu_two_stage dd; tail -n 2 '$out'/t/test_gpu_two_stage-dd.log; '$es' generate random --n 700 -o /tmp/r7.npy >/dev/null; for red in one-stage two-stage; do for dev in cuda cpu; do '$es' /tmp/r7.npy -p dd --reduction \$red --device \$dev --vectors -o /tmp/w-\$dev.txt --vectors-output /tmp/v-\$dev.mtx 2>&1 | grep -E 'time:|residuals|rror'; done; cmp /tmp/w-cuda.txt /tmp/w-cpu.txt && cmp /tmp/v-cuda.mtx /tmp/v-cpu.mtx && echo \"cli dd \$red: cuda == cpu, values and vectors files\" || echo \"cli dd \$red: DIFFERENT\"; done; '$es' bench eig -p dd --sizes 4096,16384 --runs 1 --check-cpu-max 0 --host-input-max 0 --json '$out'/eig-dd.json" ;;
    ncu-next) # session 18: data for the next session: Nsight Compute (full set, SASS samples) on the back-transformation's step 1 and step 3 kernels (d 16384 with vectors: Q1 of the two-stage and Q of the one-stage) and on a full-size dd rank-2k launch (n = 16384)
      step ncu-next 420 bash -c "S='--clock-control none --set full --import-source no'; '$es' generate random --n 16384 -o /tmp/r16.npy >/dev/null; ncu \$S -k regex:'step1_kernel|step3_kernel' --launch-skip 40 -c 2 -o /tmp/bt '$es' /tmp/r16.npy --device cuda --vectors --reduction one-stage -o /tmp/w.txt > '$out'/ncu-bt-run.txt 2>&1; ncu \$S -k regex:rank2k --launch-skip 2 -c 1 -o /tmp/r2k '$es' /tmp/r16.npy -p dd --device cuda --reduction two-stage -o /tmp/w2.txt > '$out'/ncu-r2k-run.txt 2>&1; for r in bt r2k; do ncu -i /tmp/\$r.ncu-rep --page details --print-details all > '$out'/ncu-\$r-details.txt 2>&1; ncu -i /tmp/\$r.ncu-rep --page source --csv --print-source sass 2>&1 | xz -c > '$out'/ncu-\$r-sass.csv.xz; done; ls -la '$out'/ncu-*" ;;
    symv-ddz) mkdir -p "$out/t"  # session 18: the dd SYMV with the transposed chains' first madd through madd_zero: test_gpu_symv (every configuration, every precision), then bench symv dd and z (z: the same code as before, a control)
      step symv-ddz 420 bash -c "EIGSOLVE_REQUIRE_GPU=1 timeout 300 '$bin'/tests/test_gpu_symv --gtest_output=json:'$out'/t/test_gpu_symv.json > '$out'/t/test_gpu_symv.log 2>&1 || echo FAILED test_gpu_symv; tail -n 3 '$out'/t/test_gpu_symv.log; '$es' bench symv -p dd,z --sizes 4096,8192,16384 --runs 5 --json '$out'/symv-ddz.json" ;;
    ncu-bt) # hardware counters of the back-transformation's step 1 and step 3 kernels, d 16384 with vectors
      step ncu-bt 420 bash -c "'$es' generate random --n 16384 -o /tmp/r16384.npy >/dev/null; S='--clock-control none --set full --print-summary none'; ncu \$S -k regex:'step1_kernel|step3_kernel' --launch-skip 40 -c 2 '$es' /tmp/r16384.npy --device cuda --vectors -o /tmp/ncu2.txt" ;;
    eig-final) # the eigenvalue table at 16384 (s, d, c, z against cuSOLVER; dd)
      step eig-final 300 bash -c "'$es' bench eig -p s,d,c,z --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0 --json '$out'/eig-16k.json; '$es' bench eig -p dd --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0 --json '$out'/eig-dd16k.json" ;;
    tests-ov) mkdir -p "$out/t"  # session 9: the back-transformation overlapping phase B, the tridiagonalization in every precision
      step tests-ov 300 bash -c "for t in 'test_gpu_invit:*FinishedColumns*' 'test_gpu_tridiag:*Overlap*:GpuTridiag/*'; do b=\${t%%:*}; f=\${t#*:}; EIGSOLVE_REQUIRE_GPU=1 '$bin/tests/'\$b --gtest_filter=\"\$f\" --gtest_output=json:'$out/t/'\$b.json > '$out/t/'\$b.log 2>&1; echo \"\$b rc=\$?\"; tail -n 3 '$out/t/'\$b.log; done" ;;
    overlap-ab) # the back-transformation overlapping phase B (EIGSOLVE_GPU_BT_OVERLAP=1, default) against after it (0): CLI stage times and the files, d 16384 and z 8192; bench eig --vectors d 16384
      step overlap-ab 300 bash -c "'$es' generate random --n 16384 -o /tmp/r16384.npy >/dev/null; '$es' generate random --n 8192 --complex -o /tmp/z8192.npy >/dev/null; for fp in r16384:d z8192:z; do f=\${fp%%:*}; p=\${fp#*:}; for v in 1 0; do echo \"== \$f EIGSOLVE_GPU_BT_OVERLAP=\$v\"; EIGSOLVE_GPU_BT_OVERLAP=\$v EIGSOLVE_GPU_PROFILE=1 '$es' /tmp/\$f.npy --precision \$p --device cuda --vectors -o /tmp/w\$v.txt --vectors-output /tmp/v\$v.npy 2>&1 | grep -E 'vectors on the device|inverse iteration \\(|time:|digest'; done; cmp /tmp/v0.npy /tmp/v1.npy && cmp /tmp/w0.txt /tmp/w1.txt && echo \"\$f: overlap == after (values and vectors files)\"; done; for v in 1 0; do echo EIGSOLVE_GPU_BT_OVERLAP=\$v; EIGSOLVE_GPU_BT_OVERLAP=\$v '$es' bench eig -p d --sizes 16384 --vectors --runs 1 --check-cpu-max 0 --host-input-max 0 --json '$out'/eig-v16k-ov\$v.json 2>&1 | grep -E '^d '; done" ;;
    b3-ab) # helper-26's phase B with two columns in flight (EIGSOLVE_GPU_INVIT_B3=1, opt-in) against the default: its tests (double), then d 16384 stage times without and with the overlap, files compared
      step b3-ab 300 bash -c "EIGSOLVE_REQUIRE_GPU=1 '$bin/tests/test_gpu_invit' --gtest_filter='GpuInvit/1.*' | tail -n 3; [ -f /tmp/r16384.npy ] || '$es' generate random --n 16384 -o /tmp/r16384.npy >/dev/null; for o in 0 1; do for v in 0 1; do echo \"== EIGSOLVE_GPU_BT_OVERLAP=\$o EIGSOLVE_GPU_INVIT_B3=\$v\"; EIGSOLVE_GPU_BT_OVERLAP=\$o EIGSOLVE_GPU_INVIT_B3=\$v EIGSOLVE_GPU_PROFILE=1 '$es' /tmp/r16384.npy --device cuda --vectors -o /tmp/w\$v.txt --vectors-output /tmp/v\$v.npy 2>&1 | grep -E 'step 2|vectors on the device|inverse iteration \\('; done; cmp /tmp/v0.npy /tmp/v1.npy && cmp /tmp/w0.txt /tmp/w1.txt && echo \"overlap \$o: B3 == default (values and vectors files)\"; done" ;;
    profile-dd16k) # per-step split (steps serialised) of the tridiagonalization, dd and d at 16384
      step profile-dd16k 300 bash -c "for p in dd d; do EIGSOLVE_GPU_PROFILE=1 '$es' bench eig -p \$p --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0 2>&1 | grep -v '^ *$'; done" ;;
    dl-ab) # session 10: the vectors downloaded group by group beside the back-transformation (EIGSOLVE_GPU_DOWNLOAD_OVERLAP=1, default) against after it (0): CLI stage times and files, d 16384; bench eig --vectors d 16384
      step dl-ab 300 bash -c "[ -f /tmp/r16384.npy ] || '$es' generate random --n 16384 -o /tmp/r16384.npy >/dev/null; for v in 0 1; do echo \"== EIGSOLVE_GPU_DOWNLOAD_OVERLAP=\$v\"; EIGSOLVE_GPU_DOWNLOAD_OVERLAP=\$v EIGSOLVE_GPU_PROFILE=1 '$es' /tmp/r16384.npy --device cuda --vectors -o /tmp/w\$v.txt --vectors-output /tmp/v\$v.npy 2>&1 | grep -E 'step 2|vectors on the device|inverse iteration \\(|time:'; done; cmp /tmp/v0.npy /tmp/v1.npy && cmp /tmp/w0.txt /tmp/w1.txt && echo 'download overlap: same files'; for v in 0 1; do echo \"== bench EIGSOLVE_GPU_DOWNLOAD_OVERLAP=\$v\"; EIGSOLVE_GPU_DOWNLOAD_OVERLAP=\$v '$es' bench eig -p d --sizes 16384 --vectors --runs 2 --check-cpu-max 0 --host-input-max 0 --json '$out'/eig-v16k-dl\$v.json; done" ;;
    symv-dd) step symv-dd 200 "$es" bench symv -p dd --sizes 4096,8192,16384,32768 --runs 5 --json "$out/symv-dd.json" ;;
    final-s10) # session 10's last run: the dd device code after the revert (arith, SYMV, pipeline), the vectors' knobs with B3 (cluster size, group size), Nsight on the dd SYMV kernel
      mkdir -p "$out/t"
      step dd-tests 90 bash -c "for t in 'test_gpu_arith:*' 'test_gpu_symv:GpuSymv/4.*:GpuSymvDdxs.*' 'test_gpu_tridiag:GpuTridiag/4.*'; do b=\${t%%:*}; f=\${t#*:}; EIGSOLVE_REQUIRE_GPU=1 '$bin/tests/'\$b --gtest_filter=\"\$f\" 2>&1 | tail -n 2; done"
      step knobs 120 bash -c "'$es' generate random --n 16384 -o /tmp/r16384.npy >/dev/null; for e in EIGSOLVE_X=0 EIGSOLVE_GPU_INVIT_CLUSTER=8 EIGSOLVE_GPU_BT_CHUNK=1024 EIGSOLVE_GPU_BT_CHUNK=4096; do echo \"== \$e\"; env \$e EIGSOLVE_GPU_PROFILE=1 '$es' /tmp/r16384.npy --device cuda --vectors -o /tmp/w.txt 2>&1 | grep -E 'step 2|vectors on the device'; done"
      step ncu-dd 120 bash -c "ncu --clock-control none --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats -k regex:symv_tiles_ddxs --launch-skip 2 -c 1 '$es' bench symv -p dd --sizes 16384 --runs 1" ;;
    ddxs5-ab) # helper-28's dd SYMV with two transposed chains in flight (EIGSOLVE_GPU_SYMV_DDXS=5, opt-in) against the default (4): its bitwise tests, bench symv dd, the dd eigenvalues at 16384
      step ddxs5-ab 420 bash -c "EIGSOLVE_REQUIRE_GPU=1 '$bin/tests/test_gpu_symv' --gtest_filter='GpuSymvDdxs.*:GpuSymv/4.*' | tail -n 3; for m in 4 5; do echo EIGSOLVE_GPU_SYMV_DDXS=\$m; EIGSOLVE_GPU_SYMV_DDXS=\$m '$es' bench symv -p dd --sizes 4096,16384 --runs 5 --json '$out'/symv-ddxs\$m.json; done; for m in 4 5; do echo EIGSOLVE_GPU_SYMV_DDXS=\$m; EIGSOLVE_GPU_SYMV_DDXS=\$m '$es' bench eig -p dd --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0 --json '$out'/eig-dd16k-ddxs\$m.json; done" ;;
    resid-ab) # the device residuals' uploads through pinned chunks (EIGSOLVE_GPU_RESIDUALS_STAGED=1, opt-in) against plain copies: test_gpu_residuals, then the CLI's residuals time at d 16384 with vectors
      step resid-ab 200 bash -c "EIGSOLVE_REQUIRE_GPU=1 '$bin/tests/test_gpu_residuals' | tail -n 2; [ -f /tmp/r16384.npy ] || '$es' generate random --n 16384 -o /tmp/r16384.npy >/dev/null; for v in 0 1; do echo EIGSOLVE_GPU_RESIDUALS_STAGED=\$v; EIGSOLVE_GPU_RESIDUALS_STAGED=\$v '$es' /tmp/r16384.npy --device cuda --vectors -o /tmp/w\$v.txt 2>&1 | grep -E 'time:|residual'; done" ;;
    nsys-d16k) # per-kernel GPU time (Nsight Systems' kernel summary) of bench eig d 16384: where the tridiagonalization's time goes, unserialised
      step nsys-d16k 240 bash -c "command -v nsys >/dev/null || { echo 'no nsys'; exit 3; }; cd /tmp && nsys profile -o /tmp/nsys-d16k --force-overwrite true -t cuda '$es' bench eig -p d --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0 && nsys stats -q -r cuda_gpu_kern_sum -f csv /tmp/nsys-d16k.nsys-rep | cut -c1-220 | head -n 40" ;;
    ncu-symv-d) # hardware counters of the d SYMV's two kernels (tiles, row sums) at 16384
      step ncu-symv-d 200 bash -c "ncu --clock-control none --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats -k regex:'symv_tiles|symv_rowsums' --launch-skip 4 -c 2 '$es' bench symv -p d --sizes 16384 --runs 3" ;;
    bt-chunk) # the back-transformation's column groups (EIGSOLVE_GPU_BT_CHUNK) small enough for Z to stay in L2: d 16384 stage times
      step bt-chunk 200 bash -c "[ -f /tmp/r16384.npy ] || '$es' generate random --n 16384 -o /tmp/r16384.npy >/dev/null; for e in EIGSOLVE_X=0 EIGSOLVE_GPU_BT_CHUNK=256 EIGSOLVE_GPU_BT_CHUNK=512; do echo \"== \$e\"; env \$e EIGSOLVE_GPU_PROFILE=1 '$es' /tmp/r16384.npy --device cuda --vectors -o /tmp/w.txt 2>&1 | grep -E 'step 2|vectors on the device|back-trans'; done" ;;
    ncu-symv-cz) # the SYMV's two kernels (tiles, row sums) in c and z at 16384: DRAM share, occupancy
      step ncu-symv-cz 200 bash -c "for p in c z; do echo \"== \$p\"; ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats -k regex:'symv_tiles|symv_rowsums' --launch-skip 4 -c 2 '$es' bench symv -p \$p --sizes 16384 --runs 3; done" ;;
    ncu-dd-panel) # the per-column kernels of the dd tridiagonalization (n = 8192, around column 1250): duration, pipes, occupancy
      step ncu-dd-panel 200 bash -c "ncu --clock-control none --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --metrics smsp__pcsamp_warps_issue_stalled_no_instructions,smsp__average_warp_latency_issue_stalled_no_instruction -k regex:'colupd|sumsq|larfg_finish|panel_w_alpha|panel_dots|symv_rowsums' --launch-skip 7500 -c 6 '$es' bench eig -p dd --sizes 8192 --runs 1 --check-cpu-max 0 --host-input-max 0" ;;
    c3-ab) # complex float's plain 4-tile SYMV kernels at 3 blocks per SM (EIGSOLVE_GPU_SYMV_C3=1, session 11's opt-in, the default since session 12) against unbounded (0): its bitwise test, bench symv c, the c eigenvalues at 16384
      step c3-ab 300 bash -c "EIGSOLVE_REQUIRE_GPU=1 '$bin/tests/test_gpu_symv' --gtest_filter='GpuSymvC3.*' | tail -n 3; for v in 0 1; do echo EIGSOLVE_GPU_SYMV_C3=\$v; EIGSOLVE_GPU_SYMV_C3=\$v '$es' bench symv -p c --sizes 4096,8192,16384,32768 --runs 5 --json '$out'/symv-c3\$v.json; done; for v in 0 1; do echo EIGSOLVE_GPU_SYMV_C3=\$v; EIGSOLVE_GPU_SYMV_C3=\$v '$es' bench eig -p c --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0 2>&1 | grep -E '^c '; done" ;;
    r2k-ab) # session 12: the 8x4 rank-2k kernel of s, d, c (EIGSOLVE_GPU_RANK2K=1, default) against the 4x4 one (0): eigenvalues at 16384, then the per-step split (steps serialised) with z
      step r2k-ab 300 bash -c "for v in 0 1; do echo EIGSOLVE_GPU_RANK2K=\$v; EIGSOLVE_GPU_RANK2K=\$v '$es' bench eig -p s,d,c --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0 --json '$out'/eig-r2k\$v.json 2>&1 | grep -E '^(s|d|c) '; done; for v in 0 1; do echo EIGSOLVE_GPU_RANK2K=\$v; EIGSOLVE_GPU_RANK2K=\$v EIGSOLVE_GPU_PROFILE=1 '$es' bench eig -p s,d,c,z --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0 2>&1 | grep -E 'gpu profile|^(s|d|c|z) '; done" ;;
    tune-c) # session 12: re-tune complex float with its 3-blocks-per-SM kernels (the default now); then the c eigenvalues at 16384 with that table (EIGSOLVE_SYMV_TABLE) against the checked-in one
      step tune-c 300 "$es" tune symv -p c --runs 3 --sizes 1024,1536,2048,3072,4096,6144,8192,12288,16384,24576,32768 -o "$out/sm_90-c.json"
      step c-table-ab 120 bash -c "for t in '' '$out/sm_90-c.json'; do echo \"EIGSOLVE_SYMV_TABLE=\$t\"; EIGSOLVE_SYMV_TABLE=\$t '$es' bench eig -p c --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0 2>&1 | grep -E '^c '; EIGSOLVE_SYMV_TABLE=\$t '$es' bench symv -p c --sizes 4096,8192,16384 --runs 5 2>&1 | grep -E 'tuned|sweep c.*tuned'; done" ;;
    z-r2k-ab) # session 12: complex double's rank-2k kernel bounded to 2 blocks per SM (default) against unbounded (EIGSOLVE_GPU_RANK2K=0): z eigenvalues at 16384, then the per-step split
      step z-r2k-ab 150 bash -c "for v in 0 1; do echo EIGSOLVE_GPU_RANK2K=\$v; EIGSOLVE_GPU_RANK2K=\$v '$es' bench eig -p z --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0 2>&1 | grep -E '^z '; done; EIGSOLVE_GPU_PROFILE=1 '$es' bench eig -p s,d,z --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0 2>&1 | grep -E 'gpu profile'" ;;
    tests-rest) mkdir -p "$out/t"  # the GPU test binaries other than symv, tridiag and invit
      step tests-rest 200 bash -c "rc=0; for t in '$bin'/tests/test_gpu_*; do case \$t in *invit*|*symv*|*tridiag*) continue;; esac; n=\$(basename \$t); EIGSOLVE_REQUIRE_GPU=1 \$t --gtest_output=json:'$out'/t/\$n.json > '$out'/t/\$n.log 2>&1 || { rc=1; echo FAILED \$n; }; tail -n 1 '$out'/t/\$n.log; done; exit \$rc" ;;
    trace-16k) # session 12 (run in session 13): the unserialised per-kernel split of the last timed solve (EIGSOLVE_GPU_TRACE=1, CUPTI loaded at run time): s, d, z at 16384, dd at 8192, d with vectors at 16384
      step trace-16k 300 bash -c "EIGSOLVE_GPU_TRACE=1 '$es' bench eig -p s,d,z --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0; EIGSOLVE_GPU_TRACE=1 '$es' bench eig -p dd --sizes 8192 --runs 1 --check-cpu-max 0 --host-input-max 0; EIGSOLVE_GPU_TRACE=1 '$es' bench eig -p d --sizes 16384 --vectors --runs 1 --check-cpu-max 0 --host-input-max 0" ;;
    rowsw-ab) # session 13: the SYMV's row sums and K5 in one kernel (EIGSOLVE_GPU_ROWS_W=1, default) against the SYMV's own row sums, then K5 (0): eigenvalues s, d at 16384, dd at 8192
      step rowsw-ab 200 bash -c "for v in 0 1; do echo EIGSOLVE_GPU_ROWS_W=\$v; EIGSOLVE_GPU_ROWS_W=\$v '$es' bench eig -p s,d --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0 2>&1 | grep -E '^(s|d) '; EIGSOLVE_GPU_ROWS_W=\$v '$es' bench eig -p dd --sizes 8192 --runs 1 --check-cpu-max 0 --host-input-max 0 2>&1 | grep -E '^dd '; done" ;;
    k12-ab) # session 13 (run in session 14): K1 with K2's partials unscaled (EIGSOLVE_GPU_K12=1, opt-in) against K1 + K2 (0): its bitwise tests, eigenvalues s, d, z at 16384
      step k12-ab 300 bash -c "EIGSOLVE_REQUIRE_GPU=1 '$bin/tests/test_gpu_tridiag' --gtest_filter='GpuTridiag/*' | tail -n 3; for v in 0 1; do echo EIGSOLVE_GPU_K12=\$v; EIGSOLVE_GPU_K12=\$v '$es' bench eig -p s,d,z --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0 2>&1 | grep -E '^(s|d|z) '; done" ;;
    k12-bench) # session 14: k12-ab's A/B without its tests (they passed in r1)
      step k12-bench 240 bash -c "for v in 0 1; do echo EIGSOLVE_GPU_K12=\$v; EIGSOLVE_GPU_K12=\$v '$es' bench eig -p s,d,z --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0 2>&1 | grep -E '^(s|d|z) '; done; EIGSOLVE_GPU_K12=1 EIGSOLVE_GPU_TRACE=1 '$es' bench eig -p d --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0 2>&1 | head -n 24" ;;
    hoist-ab) # session 14: K1's row and broadcast operands, K2's and K3's shares of x and K45's first chunk of partials loaded up front (this binary) against the binary before (build/final/old.tar.xz: eigsolve-old); then c and dd at 16384 (the final table)
      step hoist-ab 330 bash -c "tar -C '$bin' -xJf '$here/build/final/old.tar.xz' && for b in eigsolve-old eigsolve; do echo \$b; j=; [ \$b = eigsolve ] && j='--json $out/eig-sdz16k.json'; '$bin/'\$b bench eig -p s,d,z --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0 \$j 2>&1 | grep -E '^(s|d|z) '; done; '$es' bench eig -p c --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0 --json '$out'/eig-c16k.json; '$es' bench eig -p dd --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0 --json '$out'/eig-dd16k.json" ;;
    trace-d) # session 13: the per-kernel split (CUPTI) of d at 16384 only
      step trace-d 120 bash -c "EIGSOLVE_GPU_TRACE=1 '$es' bench eig -p d --sizes 16384 --runs 1 --check-cpu-max 0 --host-input-max 0" ;;
    symv-z) step symv-z 120 "$es" bench symv -p z --sizes 4096,16384 --runs 5 --json "$out/symv-z.json" ;;
    symv) step symv 300 "$es" bench symv -p all --sizes 4096,8192,16384,32768 --runs 5 --json "$out/symv.json" ;;
    *) echo "unknown step $s" | tee -a "$out/steps.txt" ;;
  esac
done
# The device tool brings back only a few files: everything travels as one archive, with the
# step list and the logs' last lines on stdout.
if [ -d "$out/t" ]; then
  grep -h "tests from\\|PASSED\\|FAILED" "$out"/t/*.log >"$out/tests-summary.txt" 2>/dev/null
fi
cat "$out/steps.txt"
for f in "$out"/*.log "$out/tests-summary.txt"; do
  [ -f "$f" ] && { echo "== $(basename "$f")"; tail -n 25 "$f"; }
done
(cd "$out" && tar -czf "results-$(date +%H%M%S).tar.gz" --exclude='results-*.tar.gz' \
  $(ls | grep -v '^results-') && ls | grep -v '^results-' | xargs rm -rf)
