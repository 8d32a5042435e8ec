"""yamlio.load reads the project's YAML as yaml.safe_load does: the same objects, and bad YAML refused the same."""

from pathlib import Path

import pytest
import yaml

from blkscope import yamlio

ROOT = Path(__file__).resolve().parents[1]


def _files() -> list[Path]:
    # a run.yaml of every kind of run (testbed, filesystem, workload), every schema and profile
    runs = sorted((ROOT / "data" / "raw").glob("*/run.yaml"))
    kinds = {}
    for f in runs:
        kinds.setdefault(f.parent.name.rsplit("-r", 1)[0].split("-untraced")[0], f)
    return [*kinds.values(), *sorted(ROOT.glob("workflow/schemas/*.yaml")), *sorted(ROOT.glob("profiles/*/*.yaml"))]


def test_the_objects_are_safe_loads():
    files = _files()
    assert len(files) > 50
    for f in files:
        text = f.read_text()
        assert yamlio.load(text) == yaml.safe_load(text), f


def test_the_c_parser_is_there_and_bad_yaml_says_where():
    assert yamlio._LOADER is yaml.CSafeLoader  # PyYAML's wheels carry libyaml: the speed this module is for
    with pytest.raises(yaml.YAMLError) as e:
        yamlio.load("a: 1\nb: [2, 3\nc: 4\n")
    assert e.value.problem_mark.line >= 1
    with pytest.raises(yaml.constructor.ConstructorError):  # a safe loader: no Python objects
        yamlio.load("!!python/object/apply:os.system ['true']")
