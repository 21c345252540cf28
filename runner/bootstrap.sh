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
WATCHER=""
finish() {
  [ -n "$WATCHER" ] && kill "$WATCHER" 2>/dev/null
  log "bootstrap done; halting"
  upload "$LOG_URL" "$LOG" || true
  shutdown -h now
}
trap finish EXIT

log "bootstrap started on $(hostname)"
# A spot instance gets a two-minute notice before EC2 reclaims it (IMDSv2 spot/instance-action answers then): the
# notice goes to the file the bench checks once a block of steps, and it stops with the steps it has.
export PLANNER_INTERRUPT_FILE="$WORK/interruption.txt"
IMDS="${PLANNER_IMDS_URL:-http://169.254.169.254}"
watch_spot() {
  while sleep "${PLANNER_IMDS_POLL_SECONDS:-5}"; do
    token=$(curl -fsS -m 2 -X PUT -H "X-aws-ec2-metadata-token-ttl-seconds: 21600" "$IMDS/latest/api/token") || continue
    action=$(curl -fsS -m 2 -H "X-aws-ec2-metadata-token: $token" "$IMDS/latest/meta-data/spot/instance-action") || continue
    [ -n "$action" ] || continue
    echo "spot interruption notice: $action" > "$PLANNER_INTERRUPT_FILE.tmp" && mv "$PLANNER_INTERRUPT_FILE.tmp" "$PLANNER_INTERRUPT_FILE"
    log "spot interruption notice: $action"
    return
  done
}
if [ "__SPOT__" = "1" ]; then watch_spot & WATCHER=$!; fi
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
