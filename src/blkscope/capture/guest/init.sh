#!/bin/busybox sh
# PID 1 of the blkscope guest: one experiment, then power off.
# /dev/vda: the run's scratch disk (formatted here). /dev/vdb: the exchange disk; the host put a tar at its start
# with the workload's steps (prepare.sh, untraced; run.sh, traced; optionally finish.sh, after tracing) and what
# they need (fio job, journal binary, Java payload), and this script overwrites it with a tar of the results (no
# filesystem needed on it).
# Run parameters come base64-encoded on the kernel command line (blkscope=...), as shell assignments.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs -o size=512m tmp /tmp
OUT=/tmp/out
mkdir -p $OUT /in /mnt/fs

log() { echo "blkscope-guest: $*"; }
finish() {
    log "finish rc=$1"
    echo "$1" > $OUT/status
    dmesg > $OUT/dmesg.txt
    tar -cf /dev/vdb -C $OUT . && sync
    poweroff -f
}
# name, guest wall clock (busybox date has whole seconds only), guest uptime in s (10 ms resolution)
stamp() { echo "$1 $(date -u +%Y-%m-%dT%H:%M:%SZ) $(cut -d' ' -f1 /proc/uptime)" >> $OUT/times.txt; }

# Modules in dependency order (build.py resolved it on the host).
for m in $(cat /modules.order); do
    insmod "/lib/modules/$m" || { log "insmod $m failed"; finish 10; }
done
for i in $(seq 50); do [ -b /dev/vda ] && [ -b /dev/vdb ] && break; sleep 0.1; done
[ -b /dev/vda ] && [ -b /dev/vdb ] || { log "virtio disks missing"; finish 11; }

sed -n 's/.*blkscope=\([^ ]*\).*/\1/p' /proc/cmdline | base64 -d > /params.sh || finish 12
. /params.sh
cp /params.sh $OUT/params.sh
# The input tar's own length (IN_BYTES, from the host): busybox tar reads its input to the end after the archive's
# end, which on the whole 640 MiB disk is 1.3 M reads of 512 bytes, some 18 s of an emulated CPU's boot
if [ -n "$IN_BYTES" ]; then
    head -c "$IN_BYTES" /dev/vdb | tar -xf - -C /in || { log "no input tar on /dev/vdb"; finish 13; }
else
    tar -xf /dev/vdb -C /in || { log "no input tar on /dev/vdb"; finish 13; }
fi
stamp boot

log "+ mkfs.$FS $MKFS_OPTS /dev/vda"
# shellcheck disable=SC2086 # options are word lists by design
mkfs.$FS $MKFS_OPTS /dev/vda > $OUT/mkfs.txt 2>&1 || { cat $OUT/mkfs.txt; finish 20; }
log "+ mount -t $FS ${MOUNT_OPTS:+-o $MOUNT_OPTS} /dev/vda /mnt/fs"
mount -t "$FS" ${MOUNT_OPTS:+-o "$MOUNT_OPTS"} /dev/vda /mnt/fs || finish 21
grep ' /mnt/fs ' /proc/mounts > $OUT/mount.txt

export BLKSCOPE_DIR=/mnt/fs BLKSCOPE_RUNTIME=$RUNTIME BLKSCOPE_SEED=$SEED
# Lay out the workload's files (or load its data) before tracing, so the trace holds the workload, not its set-up.
log "+ sh /in/prepare.sh"
(cd /mnt/fs && sh -e /in/prepare.sh) > $OUT/prepare.txt 2>&1 || { cat $OUT/prepare.txt; finish 22; }
sync -f /mnt/fs
stamp prepared

S_TIME_FORMAT=ISO LC_ALL=C iostat -x -t -y -o JSON 1 vda > $OUT/iostat.json 2> $OUT/iostat.err &
IOSTAT=$!
if [ "$TRACED" = 1 ]; then
    mkdir -p $OUT/blktrace
    blktrace -d /dev/vda -D $OUT/blktrace -o vda -b "$BT_BUF_KB" -n "$BT_NBUF" > $OUT/blktrace.log 2>&1 &
    BT=$!
    # blktrace opens one file per CPU once its relay buffers are set up: wait for them, not a fixed time.
    for i in $(seq 100); do [ "$(ls $OUT/blktrace | wc -l)" -ge "$(nproc)" ] && break; sleep 0.1; done
    kill -0 $BT 2>/dev/null || { cat $OUT/blktrace.log; finish 30; }
fi

stamp workload_start
log "+ sh /in/run.sh (runtime $RUNTIME s)"
(cd /mnt/fs && sh -e /in/run.sh) > $OUT/run.txt 2>&1
WL_RC=$?
stamp workload_end
# Still traced: sync makes the filesystem write what the workload deferred, then completions land.
sync -f /mnt/fs
sleep "$SETTLE_S"
stamp settled

if [ -n "$BT" ]; then
    kill -INT $BT
    wait $BT
    echo $? > $OUT/blktrace.rc
fi
kill -INT $IOSTAT
wait $IOSTAT
# A workload's untraced last step (a server's files recorded, then the server stopped), before the unmount;
# also after a failed run (the server is stopped all the same); its failure fails a run that succeeded.
if [ -f /in/finish.sh ]; then
    log "+ sh /in/finish.sh"
    (cd /mnt/fs && sh -e /in/finish.sh) > $OUT/finish.txt 2>&1 || { cat $OUT/finish.txt; [ "$WL_RC" = 0 ] && WL_RC=40; }
    stamp finished
fi
umount /mnt/fs || log "umount failed"

{
    echo "kernel: $(uname -r)"
    echo "kernel_version: $(uname -v)"
    echo "fio: $(fio --version)"
    echo "blktrace: $(blktrace -V 2>&1 | head -1)"
    echo "iostat: $(iostat -V 2>&1 | head -1)"
    echo "busybox: $(busybox 2>&1 | head -1)"
    echo "sysbench: $(sysbench --version 2>&1)"
    echo "filefrag: $(filefrag -V 2>&1 | head -1)"
    [ -x /in/bin/journal ] && echo "journal: $(/in/bin/journal --version 2>&1)"
    [ -x /in/java/jre/bin/java ] && echo "java: $(LD_LIBRARY_PATH=/in/java/native /in/java/jre/bin/java -version 2>&1 | head -1)"
    echo "cpus: $(nproc)"
    echo "mem_kb: $(sed -n 's/MemTotal: *\([0-9]*\).*/\1/p' /proc/meminfo)"
} > $OUT/versions.txt
finish $WL_RC
