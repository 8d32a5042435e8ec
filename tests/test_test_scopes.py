"""The scopes tests/conftest.py gives pytest-xdist: what must not overlap shares one."""

from conftest import scope


def test_hardware_jvm_and_guest_modules_share_one_scope():
    serial = ["tests/test_cassandra_root.py::test_x", "tests/test_capture_guest_root.py::test_y[a-b]",
              "tests/test_guest_java_payload.py::test_z", "tests/test_device_cap_root.py::t",
              "tests/test_capture.py::t"]
    assert {scope(n) for n in serial} == {"serial"}


def test_other_modules_are_their_own_scope():
    assert scope("tests/test_slurm.py::test_a") == scope("tests/test_slurm.py::test_b[x::y]") == "tests/test_slurm.py"
    assert scope("tests/test_workflow_e2e.py::test_a") == "tests/test_workflow_e2e.py"
