#!/bin/bash
shutdown -h +__DEADMAN_MINUTES__
# ^ The dead-man switch, the first command on purpose: whatever happens below (a hung bench, a lost
# network, a planner that was killed), the instance halts within __DEADMAN_MINUTES__ minutes, and
# InstanceInitiatedShutdownBehavior=terminate turns that halt into termination.
#
# cloud-planner bench bootstrap: run __RUN_ID__, target __LABEL__. Rendered by runner/aws.py.
# The instance has no credentials and no role: it reads and writes only through the presigned URLs
# below, which expire at the run's deadline.
set -u
BUNDLE_URL='__BUNDLE_URL__'
JOB_URL='__JOB_URL__'
RESULT_URL='__RESULT_URL__'
LOG_URL='__LOG_URL__'
WORK="${PLANNER_WORKDIR:-/opt/cloud-planner}"
mkdir -p "$WORK" && cd "$WORK" || exit 1
LOG="$WORK/log.txt"
log() { echo "[planner $(date -u +%H:%M:%S)] $*" >> "$LOG"; }
fetch() { curl -fsS --retry 5 --retry-delay 2 --retry-all-errors -o "$2" "$1"; }
upload() { curl -fsS --retry 5 --retry-delay 2 --retry-all-errors -X PUT --upload-file "$2" "$1"; }
finish() {
  log "bootstrap done; halting"
  upload "$LOG_URL" "$LOG" || true
  shutdown -h now
}
trap finish EXIT

log "bootstrap started on $(hostname)"
fetch "$BUNDLE_URL" bundle.zip || { log "could not download the bench bundle"; exit 1; }
fetch "$JOB_URL" job.json || { log "could not download the job"; exit 1; }

PY=""
for candidate in /opt/pytorch/bin/python /opt/conda/envs/pytorch/bin/python python3 python; do
  if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c "import torch" >/dev/null 2>&1; then
    PY="$candidate"; break
  fi
done
if [ -z "$PY" ]; then
  log "no Python with torch found; installing torch with pip"
  python3 -m pip install -q torch >> "$LOG" 2>&1 && PY=python3
fi
if [ -z "$PY" ]; then log "no Python with torch; giving up"; exit 1; fi

"$PY" -c "import zipfile; zipfile.ZipFile('bundle.zip').extractall('bundle')" >> "$LOG" 2>&1 || { log "bad bundle"; exit 1; }
log "running the bench with $PY (timeout __BENCH_TIMEOUT__ s)"
(cd bundle && timeout --kill-after=10 __BENCH_TIMEOUT__ "$PY" -m runner.bench ../job.json ../result.json >> "$LOG" 2>&1)
status=$?
log "bench exited with status $status"
if [ -f result.json ]; then
  upload "$RESULT_URL" result.json || log "could not upload the result"
fi
