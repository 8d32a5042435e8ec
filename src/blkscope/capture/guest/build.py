"""Build the guest: a Debian kernel package's vmlinuz, and an initramfs with its modules, the tools and init.sh.

`python -m blkscope.capture.guest.build -o build/guest` (the experiments rule `guest_build`) writes
vmlinuz, initramfs.cpio and manifest.json there. The kernel package is the one Debian's linux-image-amd64
currently depends on (apt-cache), fetched with `apt-get download`; the tools are this host's Debian binaries
with the shared libraries ldd names, so guest and host run the same fio, blktrace, sysbench and mkfs builds."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from blkscope.capture.guest import cpio

# Modules the experiment needs; build.py adds what they depend on. Generic crypto, not the -intel variants:
# TCG's default CPU model lacks the instructions those need.
MODULES = ("virtio_pci", "virtio_blk", "ext4", "xfs", "btrfs", "f2fs")
# softdep names (crypto aliases) -> the module providing them
SOFTDEPS = {
    "crypto-crc32c": "crc32c_generic",
    "crc32c": "crc32c_generic",
    "crc32": "crc32_generic",
    "blake2b-256": "blake2b_generic",
    "xxhash64": "xxhash_generic",
    "sha256": "sha256_generic",
}
TOOLS = {  # tool -> how it prints its version
    "fio": ["--version"],
    "blktrace": ["-V"],
    "iostat": ["-V"],
    "mkfs.ext4": ["-V"],
    "mkfs.xfs": ["-V"],
    "mkfs.btrfs": ["--version"],
    "mkfs.f2fs": ["-V"],
    "sysbench": ["--version"],  # the journal writer and the Java payload come per run, on the exchange disk
    "filefrag": ["-V"],  # each file's extents at the end of a Cassandra run (capture/extents.py)
}
BUSYBOX = Path("/bin/busybox")  # Debian busybox-static: no libraries needed
EXTRA_FILES = ("/etc/mke2fs.conf",)
INIT = Path(__file__).with_name("init.sh")


def kernel_package() -> str:
    """The linux-image-6.1.0-N-amd64 that Debian's linux-image-amd64 depends on today."""
    names: list[str] = []
    for attempt in range(2):
        out = subprocess.run(["apt-cache", "depends", "linux-image-amd64"], capture_output=True, text=True)
        names = re.findall(r"Depends: (linux-image-\S+-amd64)\b", out.stdout)
        if names or attempt or os.geteuid() != 0:
            break
        subprocess.run(["apt-get", "update", "-q"], check=True)  # a fresh machine has no package lists yet
    if not names:
        raise RuntimeError("apt-cache depends linux-image-amd64 names no linux-image-*-amd64 (apt-get update?)")
    return names[0]


def download(package: str, dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    subprocess.run(["apt-get", "download", "-q", package], cwd=dest, check=True)
    return next(dest.glob(f"{package}_*.deb"))


def _modinfo(ko: Path) -> tuple[list[str], list[str]]:
    """depends= and softdep pre: names from a module's .modinfo strings."""
    data = ko.read_bytes()
    deps = [d for m in re.findall(rb"\0depends=([^\0]*)", data) for d in m.decode().split(",") if d]
    soft = [s for m in re.findall(rb"\0softdep=pre: ([^\0]*)", data) for s in m.decode().split()]
    return deps, soft


def module_order(moddir: Path, wanted: tuple[str, ...] = MODULES) -> list[Path]:
    """Module files (relative to moddir) for `wanted` and everything they need, dependencies first."""
    builtin = {Path(line).stem.replace("-", "_") for line in (moddir / "modules.builtin").read_text().split()}
    files = {p.stem.replace("-", "_"): p for p in (moddir / "kernel").rglob("*.ko")}
    order: list[Path] = []
    seen: set[str] = set()

    def visit(name: str, optional: bool = False) -> None:
        name = SOFTDEPS.get(name, name).replace("-", "_")
        if name in seen or name in builtin:
            return
        seen.add(name)
        if name not in files:
            if optional:  # a softdep the kernel can do without (it falls back to another implementation)
                return
            raise RuntimeError(f"module {name} is neither built in nor in {moddir}")
        deps, soft = _modinfo(files[name])
        for s in soft:
            visit(s, optional=True)
        for d in deps:
            visit(d)
        order.append(files[name].relative_to(moddir))

    for w in wanted:
        visit(w)
    return order


def libraries(binary: str) -> list[Path]:
    """Shared libraries (and the loader) ldd lists for binary."""
    out = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout
    libs = re.findall(r"=> (/\S+)", out) + re.findall(r"^\s*(/\S+ld-linux\S*)", out, re.M)
    return sorted({Path(p) for p in libs})


def _copy(src: Path, root: Path) -> None:
    """Copy src to the same absolute path under root, following symlinks (the loader looks up by name)."""
    dst = root / src.relative_to("/")
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(src.resolve(), dst)


def _version(tool: str, args: list[str]) -> str | None:
    p = subprocess.run([tool, *args], capture_output=True, text=True)
    lines = [ln.strip() for ln in (p.stdout + p.stderr).splitlines() if ln.strip()]
    return lines[0] if lines else None


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def build(outdir: Path, deb: Path | None = None, package: str | None = None) -> dict:
    outdir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="guest-build-", dir=outdir) as tmp:
        t = Path(tmp)
        if deb is None:
            package = package or kernel_package()
            deb = download(package, outdir)
        pkgroot, root = t / "pkg", t / "root"
        subprocess.run(["dpkg-deb", "-x", str(deb), str(pkgroot)], check=True)
        (kver,) = [p.name for p in (pkgroot / "lib/modules").iterdir()]
        moddir = pkgroot / "lib/modules" / kver
        shutil.copy2(next((pkgroot / "boot").glob("vmlinuz-*")), outdir / "vmlinuz")

        for d in ("bin", "dev", "proc", "sys", "tmp", "mnt", "in", "usr/bin", "usr/sbin", "sbin"):
            (root / d).mkdir(parents=True, exist_ok=True)
        order = module_order(moddir)
        for rel in order:
            (root / "lib/modules" / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(moddir / rel, root / "lib/modules" / rel)
        (root / "modules.order").write_text("".join(f"{rel}\n" for rel in order))

        shutil.copy2(BUSYBOX, root / "bin/busybox")
        tools: dict[str, dict] = {}
        libs: set[Path] = set()
        for tool, vargs in TOOLS.items():
            path = shutil.which(tool)
            if path is None:
                raise RuntimeError(f"{tool} not found on this host (see deps/debian-capture.txt)")
            real = Path(path).resolve()
            _copy(Path(path), root)
            libs.update(libraries(path))
            tools[tool] = {"path": path, "sha256": _sha256(real), "version": _version(tool, vargs)}
        for lib in sorted(libs):
            _copy(lib, root)
        for extra in EXTRA_FILES:
            _copy(Path(extra), root)
        shutil.copy2(INIT, root / "init")
        (root / "init").chmod(0o755)
        n = cpio.write_tree(root, outdir / "initramfs.cpio")

    manifest = {
        "kernel_package": deb.name.split("_")[0],
        "kernel_deb": deb.name,
        "kernel_deb_sha256": _sha256(deb),
        "kernel_release": kver,
        "vmlinuz_sha256": _sha256(outdir / "vmlinuz"),
        "initramfs_sha256": _sha256(outdir / "initramfs.cpio"),
        "initramfs_entries": n,
        "init_sha256": _sha256(INIT),
        "modules": [str(p) for p in order],
        "busybox": _version(str(BUSYBOX), []),
        "tools": tools,
        "libraries": [str(p) for p in sorted(libs)],
    }
    (outdir / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m blkscope.capture.guest.build", description=__doc__.split("\n")[0])
    p.add_argument("-o", "--outdir", type=Path, required=True, help="where vmlinuz, initramfs.cpio, manifest go")
    p.add_argument("--deb", type=Path, help="a linux-image-*-amd64 .deb already at hand (default: apt-get download)")
    p.add_argument("--package", help="kernel package name (default: what linux-image-amd64 depends on)")
    a = p.parse_args(argv)
    try:
        m = build(a.outdir, a.deb, a.package)
    except (RuntimeError, subprocess.CalledProcessError, OSError) as e:
        print(f"blkscope guest build: error: {e}", file=sys.stderr)
        return 1
    print(
        f"guest {m['kernel_release']}: {len(m['modules'])} modules, {len(m['tools'])} tools, "
        f"{m['initramfs_entries']} initramfs entries -> {a.outdir}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
