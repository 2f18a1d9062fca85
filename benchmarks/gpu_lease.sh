#!/bin/bash
# One device lease, as one call: the machine's facts, `trainprobe check`, the GPU campaign and the GPU
# tests, packed into $OUT (at most 8 files come back, 16 MiB each). Run from the repository root on the
# device machine:  bash benchmarks/gpu_lease.sh
# Each step has its own time limit so that the packing at the end always happens.
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

timeout 60 python3 -m trainprobe check > "$W/check.txt" 2>&1
echo "exit $?" >> "$W/check.txt"

timeout 470 python3 benchmarks/gpu_campaign.py --out "$W/campaign" --seconds-per-run "$SECONDS_PER_RUN" \
  > "$W/campaign.txt" 2>&1
echo "exit $?" >> "$W/campaign.txt"

timeout 100 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_gpu.py > "$W/pytest-gpu.txt" 2>&1
echo "exit $?" >> "$W/pytest-gpu.txt"

cp "$W"/*.txt "$OUT"/
# Records, summaries and logs in one archive; the traces (the big part) in parts of at most 15 MiB.
(cd "$W" && tar czf "$OUT/records.tgz" --exclude='profile.pt.trace.json.gz' --exclude='report.html' campaign)
(cd "$W" && tar cf - campaign/*/profile.pt.trace.json.gz 2>/dev/null | split -b 15m -a 1 - "$OUT/traces.tar.")
ls -la "$OUT"
