"""The published numbers of the five studies we build on (as their write-ups state them, or read off their
screenshots), in one place, rendered as macros so the paper types none of them by hand. Source:
the studies' summaries in the project's design notes (STUDIES.md)."""

from __future__ import annotations

from blkscope.paper.latex import fmt_float, fmt_int

# name -> (value, decimals); names become \Lit<Name> macros
PUBLISHED: dict[str, tuple[float, int]] = {
    # 1. SSD workload analysis (Cassandra and RocksDB on ext4, f2fs, btrfs)
    "SsdDeviceGb": (470, 0),
    "SsdRecords": (250e6, 0),
    "SsdOperations": (1e9, 0),
    "SsdThreadsCassandra": (32, 0),
    "SsdThreadsRocksdb": (16, 0),
    "SsdTraceGbMax": (219, 0),
    "SsdTraceHoursMax": (15.86, 2),
    "SsdOverheadCassandraLo": (24, 0),
    "SsdOverheadCassandraHi": (36, 0),
    "SsdOverheadRocksdbBtrfs": (36, 0),
    "SsdSpeedupRocksdbFTwofs": (12, 0),
    "SsdSpeedupRocksdbExtFour": (17, 0),
    "SsdZipfianConstant": (0.99, 2),
    "SsdYcsbVersion": (0.15, 2),
    "SsdCassandraVersion": (3.11, 2),
    # 2. ext4 vs xfs for Cassandra commitlogs (CentOS 7.5, read off the screenshots)
    "ClOpsXfsSsd": (6527, 0),
    "ClOpsExtFourSsd": (23279, 0),
    "ClOpsXfsNvme": (6534, 0),
    "ClOpsExtFourNvme": (25651, 0),
    "ClMsXfs": (4.9, 1),
    "ClMsExtFour": (1.3, 1),
    "ClOpsXfsLzFour": (24474, 0),
    "ClOpsExtFourLzFour": (24553, 0),
    "ClAquExtFour": (1.43, 2),
    "ClAquXfs": (0.45, 2),
    "ClSegmentMb": (32, 0),
    "ClSyncS": (10, 0),
    "ClWrites": (2_000_000, 0),
    "ClCassandraVersion": (3.11, 2),
    "ClCentosVersion": (7.5, 1),
    "ClUbuntuVersion": (18.04, 2),
    "ClThreadsLo": (32, 0),
    "ClThreadsHi": (64, 0),
    # 3. Filesystem guide for Cassandra operators
    "GuideZfsAmpLo": (2, 0),
    "GuideZfsAmpHi": (3, 0),
    # 5. xfs vs ext4 for MySQL replication storage
    "MyThreads": (4, 0),
    "MyRaidLevel": (10, 0),
    "MyReqXfsSmall": (4005.66, 2),
    "MyReqExtFourSmall": (3754.66, 2),
    "MyReqXfsLarge": (4126.06, 2),
    "MyReqExtFourLarge": (3160.26, 2),
    "MyVolumeSmallTb": (2, 0),
    "MyVolumeLargeTb": (27, 0),
}


def value(name: str) -> float:
    """One published number, by its macro name (without `Lit`): the claims table reads them from here."""
    return float(PUBLISHED[name][0])


def macros() -> dict[str, str]:
    return {f"Lit{k}": fmt_int(v) if d == 0 else fmt_float(v, d) for k, (v, d) in PUBLISHED.items()}
