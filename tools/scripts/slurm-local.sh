#!/usr/bin/env bash
# A real one-node Slurm on this machine, for running `mill-tb plan` Makefiles through srun and
# `mill-match` shards as an sbatch array the way a cluster would.
#
#   tools/scripts/slurm-local.sh start   # install slurm-wlm and munge if missing, configure, start
#   tools/scripts/slurm-local.sh status  # sinfo
#   tools/scripts/slurm-local.sh stop    # stop the daemons this script started
#
# It needs root (apt-get, /etc/slurm, the daemons). The node gets this machine's cores and its
# memory less 1 GiB; state and logs live under $SLURM_LOCAL_DIR (default /tmp/slurm-local).
set -euo pipefail
DIR=${SLURM_LOCAL_DIR:-/tmp/slurm-local}
CONF=/etc/slurm/slurm.conf

install() {
  if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null
  fi
}

configure() {
  local host cpus mem
  host=$(hostname -s)
  cpus=$(nproc)
  mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024 ))
  mkdir -p "$DIR"/{state,spool,log} /etc/slurm
  cat > "$CONF" <<CONF
# Written by tools/scripts/slurm-local.sh: one node, this machine.
ClusterName=millstone-local
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
MinJobAge=60
KillWait=5
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
  mkdir -p /etc/munge /var/run/munge /var/log/munge /var/lib/munge
  if [ ! -s /etc/munge/munge.key ]; then
    dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none
  fi
  chown -R munge:munge /etc/munge /var/run/munge /var/log/munge /var/lib/munge 2>/dev/null || true
  chmod 400 /etc/munge/munge.key
}

start() {
  install
  configure
  pgrep -x munged >/dev/null || runuser -u munge -- /usr/sbin/munged --force
  pgrep -x slurmctld >/dev/null || /usr/sbin/slurmctld
  pgrep -x slurmd >/dev/null || /usr/sbin/slurmd
  # The node is usable once sinfo calls it idle (or mixed, with jobs of an earlier run).
  for _ in $(seq 1 60); do
    if sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
      sinfo
      return 0
    fi
    sleep 1
  done
  echo "slurm-local: the node did not become idle; logs in $DIR/log" >&2
  sinfo >&2 || true
  return 1
}

stop() {
  for d in slurmd slurmctld; do
    pkill -x "$d" 2>/dev/null || true
  done
  pkill -x munged 2>/dev/null || true
  for _ in $(seq 1 20); do
    pgrep -x slurmd >/dev/null || pgrep -x slurmctld >/dev/null || return 0
    sleep 0.5
  done
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) sinfo ;;
  *) echo "usage: $0 start|status|stop" >&2; exit 2 ;;
esac
