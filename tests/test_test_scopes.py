"""The scopes tests/conftest.py gives pytest-xdist: the hardware modules share one, the rest are their own, and
the long ones start first."""

from conftest import LONGEST_FIRST, ROOT, rank, scope


def test_hardware_modules_share_one_scope():
    hardware = ["tests/test_cassandra_root.py::test_x", "tests/test_capture_guest_root.py::test_y[a-b]",
                "tests/test_device_cap_root.py::t", "tests/test_memory_cap_root.py::t[a::b]"]  # fmt: skip
    assert {scope(n) for n in hardware} == {"hardware"}


def test_other_modules_are_their_own_scope():
    assert scope("tests/test_slurm.py::test_a") == scope("tests/test_slurm.py::test_b[x::y]") == "tests/test_slurm.py"
    assert scope("tests/test_workflow_e2e.py::test_a") == "tests/test_workflow_e2e.py"
    # builds they share are locked (hwlock.build_lock); the chroot of the Cassandra guest has namespaces of its own
    for module in ("test_guest_java_payload", "test_capture", "test_cassandra_guest_root"):
        assert scope(f"tests/{module}.py::t") == f"tests/{module}.py"


def test_long_scopes_rank_first_in_their_order_and_exist():
    assert [rank(s) for s in LONGEST_FIRST] == list(range(len(LONGEST_FIRST)))
    assert rank("tests/test_zipf.py") == len(LONGEST_FIRST)
    assert rank(scope("tests/test_capture_root.py::t")) == 0
    for s in LONGEST_FIRST[1:]:
        assert (ROOT / s).is_file(), s
