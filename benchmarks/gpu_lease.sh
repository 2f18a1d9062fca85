#!/bin/bash
# One device lease, as one call: the machine's facts, the GPU campaign, the GPU tests and `trainprobe check`,
# packed into $OUT (at most 8 files come back, 16 MiB each). Run from the repository root on the
# device machine:  bash benchmarks/gpu_lease.sh
# Each step has its own time limit, and the campaign is packed as soon as it ends: a lease can run out.
set -u
export PYTHONPATH="$PWD" PYTHONUNBUFFERED=1
OUT="${OUT:-/tmp/lease-out}"
W=/tmp/lease
mkdir -p "$W" "$OUT"
SECONDS_PER_RUN="${SECONDS_PER_RUN:-30}"

{
  date -u
  nvidia-smi
  python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.get_device_name(0))"
  python3 -m pip list 2>/dev/null | grep -i -E "^(torch|torchvision|nvidia-ml-py|psutil|jinja2|click|transformers|lightning|accelerate) "
  nproc
} > "$W/env.txt" 2>&1

ONLY="${ONLY:-}"
CAMPAIGN_SECONDS="${CAMPAIGN_SECONDS:-470}"
timeout "$CAMPAIGN_SECONDS" python3 benchmarks/gpu_campaign.py --out "$W/campaign" --seconds-per-run "$SECONDS_PER_RUN" \
  ${ONLY:+--only "$ONLY"} > "$W/campaign.txt" 2>&1
echo "exit $?" >> "$W/campaign.txt"
# Packed at once: whatever comes after may run out of the lease.
cp "$W"/*.txt "$OUT"/
(cd "$W" && tar czf "$OUT/records.tgz" --exclude='profile.pt.trace.json.gz' --exclude='report.html' campaign)
(cd "$W" && tar cf - campaign/*/profile.pt.trace.json.gz 2>/dev/null | split -b 15m -a 1 - "$OUT/traces.tar.")

# The probe's own cost a step on this machine, as in benchmarks/overhead.py but on the GPU: the whole probe,
# its hooks alone and its samplers alone, then where the hooks' time goes (cProfile of the hooks-only A/B).
mkdir -p "$W/overhead"
# OVERHEAD_PARTS="all" keeps the lease short when the hooks' split was measured on an earlier lease.
for part in ${OVERHEAD_PARTS:-all hooks samplers}; do
  only=""; [ "$part" != all ] && only="--only $part"
  timeout "${AB_SECONDS:-60}" python3 benchmarks/workloads/inprocess_ab.py --model mlp --device "${AB_DEVICE:-cuda}" \
    --pairs 40 --steps 40 $only > "$W/overhead/ab_mlp_$part.json" 2> "$W/overhead/ab_mlp_$part.err"
done
[ "${OVERHEAD_PARTS:-all hooks samplers}" = all ] || timeout "${AB_SECONDS:-60}" python3 benchmarks/workloads/inprocess_ab.py --model tiny --device "${AB_DEVICE:-cuda}" \
  --pairs 40 --steps 40 > "$W/overhead/ab_tiny_all.json" 2> "$W/overhead/ab_tiny_all.err"
[ "${OVERHEAD_PARTS:-all hooks samplers}" = all ] || timeout "${AB_SECONDS:-60}" python3 -m cProfile -o "$W/overhead/ab_mlp_hooks.prof" benchmarks/workloads/inprocess_ab.py \
  --model mlp --device "${AB_DEVICE:-cuda}" --pairs 20 --steps 40 --only hooks > /dev/null 2> "$W/overhead/prof.err"
(cd "$W" && tar czf "$OUT/overhead.tgz" overhead)

timeout "${TESTS_SECONDS:-100}" python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gpu.py > "$OUT/pytest-gpu.txt" 2>&1
echo "exit $?" >> "$OUT/pytest-gpu.txt"

# CHECK_SECONDS=0 leaves `trainprobe check` out (its code unchanged since a lease that ran it).
if [ "${CHECK_SECONDS:-90}" != 0 ]; then
  timeout "${CHECK_SECONDS:-90}" python3 -m trainprobe check > "$OUT/check.txt" 2>&1
  echo "exit $?" >> "$OUT/check.txt"
fi
ls -la "$OUT"
