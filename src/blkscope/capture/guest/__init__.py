"""The emulated guest testbed: a Debian kernel under qemu TCG with an initramfs carrying the tools.

The guest gives what this host lacks: f2fs, and blktrace with debugfs (no lockdown inside). build.py makes the
kernel and initramfs from Debian packages, init.sh runs one experiment inside, testbed.py boots it from the
host (capture/run_guest.py is the orchestrator's guest path)."""
