#!/usr/bin/env bash
# Runs libFuzzer targets built in .build-fuzz (docs/fuzzing.md).
#   Fuzz/run.sh replay TARGET…          every checked-in corpus file once (-runs=0)
#   Fuzz/run.sh fuzz SECONDS TARGET…     each target for SECONDS, one after another
# Fails on any crash, hang (-timeout=5) or memory blow-up (-rss_limit_mb=2048); prints, per
# target, the inputs executed, libFuzzer's final coverage and the log's path. Leak detection is
# off: Swift packs enum payload pointers with spare bits, which LeakSanitizer takes for leaks.
set -uo pipefail
cd "$(dirname "$0")/.."
# FUZZ_BIN: where the targets are (the Makefile passes the release build for `make fuzz`).
bin=${FUZZ_BIN:-.build-fuzz/debug}
work=${FUZZ_WORK:-.build-fuzz/work}
mode=$1; shift
if [ "$mode" = fuzz ]; then seconds=$1; shift; fi
export ASAN_OPTIONS=detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}
failed=0
printf '%-16s %12s %8s %8s  %s\n' target inputs cov ft result
for target in "$@"; do
    mkdir -p "$work/$target/corpus" "$work/$target/artifacts"
    log="$work/$target/$mode.log"
    if [ "$mode" = replay ]; then
        "$bin/$target" -runs=0 -timeout=5 -rss_limit_mb=2048 -print_final_stats=1 \
            -artifact_prefix="$work/$target/artifacts/" "Fuzz/Corpus/$target" >"$log" 2>&1
    else
        "$bin/$target" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -print_final_stats=1 \
            -artifact_prefix="$work/$target/artifacts/" "$work/$target/corpus" "Fuzz/Corpus/$target" >"$log" 2>&1
    fi
    status=$?
    inputs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
    if [ $status -eq 0 ]; then result=ok; else result="FAILED (exit $status; see $log)"; failed=1; fi
    printf '%-16s %12s %8s %8s  %s\n' "$target" "${inputs:-?}" "${cov:-?}" "${ft:-?}" "$result"
    if [ $status -ne 0 ]; then grep -m5 -E 'ERROR|Fatal error|fuzz invariant|Test unit written' "$log"; fi
done
exit $failed
