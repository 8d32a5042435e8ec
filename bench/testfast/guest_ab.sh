#!/usr/bin/env bash
# A/B of one emulated-guest capture (tests/test_capture_guest_root.py::test_tiny_guest_capture: fio randrw on
# f2fs, 2 s) between two checkouts, each with its own build/guest (init.sh is in the initramfs) from one kernel
# .deb. Per run: the test's wall and CPU, the guest's milestones (guest uptime s) and qemu's start and end.
# Usage (root, under /work/locks/cpu): bench/testfast/guest_ab.sh A_CHECKOUT B_CHECKOUT LINUX_IMAGE_DEB [ARMS]
# ARMS: the order, default "A B B A"; basetemps go to ${OUT:-/var/tmp/guest-ab}/ARM-N.
set -u
A=$(realpath "$1") B=$(realpath "$2") DEB=$(realpath "$3") OUT=${OUT:-/var/tmp/guest-ab}
source /work/main/.venv/bin/activate
export BLKSCOPE_NATIVE=${BLKSCOPE_NATIVE:-/work/main/native/target/testing/blkscope-native}
export BLKSCOPE_SAMPLES=${BLKSCOPE_SAMPLES:-/work/shared/samples}
for d in "$A" "$B"; do
  [ -f "$d/build/guest/manifest.json" ] || (cd "$d" && PYTHONPATH=$d/src python -m blkscope.capture.guest.build \
    -o build/guest --deb "$DEB" >/dev/null)
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%T)"
i=0
for arm in ${4:-A B B A}; do
  i=$((i + 1)); d=$([ "$arm" = A ] && echo "$A" || echo "$B"); bt=$OUT/$arm-$i; rm -rf "$bt"
  (cd "$d" && PYTHONPATH=$d/src /usr/bin/time -f "$arm $i %e s wall %U user %S sys" pytest -q -p no:cacheprovider \
    tests/test_capture_guest_root.py -k test_tiny_guest_capture --basetemp="$bt" 2>&1 | tail -2)
  y=$(find "$bt" -name run.yaml | head -1)
  echo "$arm $i $(sed -n '/times_uptime_s/,/times_utc/p' "$y" | tr -s ' \n' ' ') $(grep -h 'qemu_.*_utc' "$y" | tr -d '\n')"
done
echo "load $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%T)"
