#!/usr/bin/env bash
# A one-host SLURM cluster for the tests: munged, slurmctld and slurmd from Debian's packages
# (deps/debian-slurm.txt), started by hand (no systemd) from a private state directory, stopped by PID.
# Usage: scripts/slurm-local.sh up|down|status|env [STATE_DIR]     (root; STATE_DIR defaults to build/slurm-local)
#
# No accounting (AccountingStorageType=accounting_storage/none, no slurmdbd): profiles/slurm asks the
# Snakemake plugin to read job states with squeue, which needs only slurmctld (see profiles/slurm/config.yaml).
# Outside STATE_DIR this touches one path: the /run/slurm/conf link (what slurmd makes on a configless node),
# because the plugin's job step strips SLURM_CONF before its nested srun, which must still find our slurm.conf.
set -euo pipefail

cmd=${1:-status}
STATE=$(realpath -m "${2:-${SLURM_LOCAL_DIR:-build/slurm-local}}")
CONF=$STATE/etc/slurm.conf
SOCK=$STATE/munge/munge.socket
RUNLINK=/run/slurm/conf
# not the default ports 6817/6818, so a host's own SLURM (if any) is never reached by mistake
CTLD_PORT=${SLURM_LOCAL_CTLD_PORT:-16817}
SLURMD_PORT=${SLURM_LOCAL_SLURMD_PORT:-16818}
WAIT_S=${SLURM_LOCAL_WAIT_S:-30}  # how long each daemon may take to come up
export SLURM_CONF=$CONF

die() { echo "slurm-local: $*" >&2; exit 1; }

pid_alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# stop one daemon by the PID in its pid file: TERM, then KILL after 10 s
stop_pid() {
  local pidfile=$1 pid
  [ -s "$pidfile" ] || return 0
  pid=$(cat "$pidfile")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
}

wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...: by the clock (a client may block for seconds per try)
  local t=$1 what=$2 end; shift 2
  end=$((SECONDS + t))
  while [ $SECONDS -lt $end ]; do timeout 5 "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
  die "$what did not come up within ${t}s (logs: $STATE/log)"
}

write_conf() {
  local host node
  host=$(hostname -s)
  # the node as slurmd sees it (CPUs, sockets, cores, RealMemory), so the node is never drained for a mismatch
  read -r -a node < <(slurmd -C | head -1)
  cat > "$CONF" <<EOF
# written by scripts/slurm-local.sh: a one-host cluster in $STATE
ClusterName=blkscope-local
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SOCK
StateSaveLocation=$STATE/ctld
SlurmdSpoolDir=$STATE/slurmd
SlurmctldPidFile=$STATE/run/slurmctld.pid
SlurmdPidFile=$STATE/run/slurmd.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.log
# no cgroups (containers and CI VMs often have none writable) and no accounting daemon
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
# finished jobs stay visible to squeue this long: the plugin's squeue status mode needs >= 3x its first poll
MinJobAge=600
SlurmctldTimeout=30
SlurmdTimeout=30
${node[*]} NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
}

up() {
  [ "$(id -u)" -eq 0 ] || die "needs root (slurmd runs jobs as their user)"
  for b in munged slurmctld slurmd sbatch squeue; do command -v "$b" >/dev/null || die "missing $b (deps/debian-slurm.txt)"; done
  [ ! -e /etc/slurm/slurm.conf ] || die "/etc/slurm/slurm.conf exists: this host has its own SLURM; not mixing the two"
  if [ -e "$RUNLINK" ] && [ "$(readlink "$RUNLINK")" != "$STATE/etc" ]; then
    die "$RUNLINK exists and is not ours ($(readlink "$RUNLINK")): another SLURM node runs here"
  fi
  pid_alive "$STATE/run/slurmctld.pid" && die "already up in $STATE"
  # whatever fails or interrupts from here on stops what was started
  trap 'exit 130' INT TERM
  trap 'rc=$?; [ $rc -eq 0 ] || down >&2; exit $rc' EXIT
  rm -rf "$STATE"
  mkdir -p "$STATE"/{etc,munge,ctld,slurmd,run,log}
  chmod 700 "$STATE/munge"
  # a fresh key per cluster: 1 KiB of random bytes, as mungekey makes
  head -c 1024 /dev/urandom > "$STATE/munge/munge.key"
  chmod 400 "$STATE/munge/munge.key"
  write_conf
  munged --force --key-file="$STATE/munge/munge.key" --socket="$SOCK" --pid-file="$STATE/run/munged.pid" \
    --log-file="$STATE/log/munged.log" --seed-file="$STATE/munge/munged.seed"
  wait_for "$WAIT_S" munged munge --socket="$SOCK" -n
  if [ ! -d "$(dirname "$RUNLINK")" ]; then mkdir -p "$(dirname "$RUNLINK")"; touch "$STATE/run/made-run-slurm"; fi
  ln -sfn "$STATE/etc" "$RUNLINK"
  slurmctld -f "$CONF"
  wait_for "$WAIT_S" slurmctld scontrol ping
  slurmd -f "$CONF"
  # the node is idle once slurmd has registered
  wait_for $((2 * WAIT_S)) "slurmd (node idle)" bash -c "sinfo -h -N -o %t | grep -qx idle"
  trap - EXIT INT TERM
  echo "slurm-local: up in $STATE (export SLURM_CONF=$CONF)"
}

down() {
  if pid_alive "$STATE/run/slurmctld.pid"; then
    # cancel our jobs first, so their slurmstepd processes end by themselves
    timeout 10 scancel --full --quiet --user=root 2>/dev/null || true
    local end=$((SECONDS + 20))
    while [ $SECONDS -lt $end ]; do
      [ -z "$(timeout 5 squeue -h -t RUNNING,COMPLETING,PENDING 2>&1)" ] && break
      sleep 0.5
    done
  fi
  stop_pid "$STATE/run/slurmd.pid"
  stop_pid "$STATE/run/slurmctld.pid"
  stop_pid "$STATE/run/munged.pid"
  if [ -L "$RUNLINK" ] && [ "$(readlink "$RUNLINK")" = "$STATE/etc" ]; then rm -f "$RUNLINK"; fi
  if [ -e "$STATE/run/made-run-slurm" ]; then rmdir "$(dirname "$RUNLINK")" 2>/dev/null || true; rm -f "$STATE/run/made-run-slurm"; fi
  echo "slurm-local: down ($STATE)"
}

status() {
  local rc=0
  for d in munged slurmctld slurmd; do
    if pid_alive "$STATE/run/$d.pid"; then echo "$d: running (pid $(cat "$STATE/run/$d.pid"))"; else echo "$d: stopped"; rc=1; fi
  done
  [ $rc -eq 0 ] && sinfo
  return $rc
}

case "$cmd" in
  up) up ;;
  down) down ;;
  status) status ;;
  env) echo "export SLURM_CONF=$CONF" ;;
  *) die "usage: $0 up|down|status|env [STATE_DIR]" ;;
esac
