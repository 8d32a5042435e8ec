"""The source a workflow rule's command runs, as one hash. Snakemake reruns a job when its shell command, input or
params change, not when a module the command imports does: a built tree kept figures drawn by older code after the
figure modules changed. The Snakefile gives each rule this hash as a param, so changed source reruns the jobs of
the rules whose commands can import it, and those only.

Read from the source's text, never imported (the workflow's start stays polars-free and fast): the modules a
`blkscope VERB` or `python -m blkscope.MODULE` command can import, over-approximated (every import in a module's
text counts, also inside functions; `import_module(f"blkscope.pkg.{...}")` counts every module of blkscope.pkg).
For a verb, its topic module (blkscope.cli.<topic>) counts only in part: its header, the verb's own
`@verb("NAME")` block and the definitions that block uses by name, so editing one analysis verb does not rerun the
others. The native program's sources count wherever blkscope.native (which every run of it goes through) is in the
closure; a package data file wherever a module names it. Captures get no hash (of_command)."""

from __future__ import annotations

import hashlib
import re
from functools import cache
from pathlib import Path

PKG = Path(__file__).resolve().parent
NATIVE = PKG.parents[1] / "native"  # the checkout's compiled readers (absent from an installed copy)

FROM = re.compile(r"^[ \t]*from[ \t]+([.\w]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*)", re.M)
IMPORT = re.compile(r"^[ \t]*import[ \t]+(blkscope[\w.]*)", re.M)
DYNAMIC = re.compile(r"import_module\(f[\"'](blkscope(?:\.\w+)*)\.\{")
VERB_CMD = re.compile(r"\bblkscope[ \t]+([a-z][a-z0-9-]*)")
MODULE_CMD = re.compile(r"\bpython[0-9.]*[ \t]+-m[ \t]+(blkscope(?:\.\w+)*)")
# a topic module's top-level definitions: each starts at column 0 with a decorator, def or class
TOP = re.compile(r"^(?=@|def |class |async def )", re.M)
WORD = re.compile(r"\w+")
DEFINES = re.compile(r"^(?:async def|def|class) (\w+)", re.M)
OWNER = re.compile(r"@(?:verb|plain)\([\"']([a-z0-9-]+)[\"']\)")  # plain: the verb's plain-form reader
CAPTURES = {"verb capture", "verb capture-sweep"}


def of_command(shellcmd: str, scripts: list[Path] = ()) -> str | None:
    """The hash of what `shellcmd` can run of blkscope, with the blkscope modules that `scripts` (Python files it
    runs, such as notebooks: their own text is the rule's input) import; None when it runs none of it, or captures:
    a hardware run (and the builds it runs on) is the dataset, not a product of the code, never redone for it."""
    parts = [f"verb {v}" for v in VERB_CMD.findall(shellcmd)]
    parts += [f"module {m}" for m in MODULE_CMD.findall(shellcmd)]
    scripts = [Path(s) for s in scripts if Path(s).is_file()]  # one absent: the rule cannot run, Snakemake says so
    parts += [f"module {m}" for s in scripts for m in _imports("__main__", s.read_text(encoding="utf-8"))]
    if not parts or any(p in CAPTURES or p.startswith("module blkscope.capture") for p in parts):
        return None
    h = hashlib.sha1()
    for p in sorted(set(parts)):
        kind, name = p.split(" ", 1)
        h.update(_verb(name) if kind == "verb" else _module(name))
    return h.hexdigest()[:16]


@cache
def _verb(verb: str) -> bytes:
    # the topic module that registers the verb, found by its text (the layers: nothing outside cli/ imports it)
    name = next((m for m in _cli_modules() if f'@verb("{verb}")' in _text(m)), None)
    if name is None:
        return f"unknown verb {verb}".encode()  # the command fails when it runs; nothing to follow
    text = _text(name)
    chunks: list[str] = []
    for c in TOP.split(text):  # a decorator's line starts the definition it decorates
        if chunks and chunks[-1].startswith("@") and chunks[-1].rstrip().count("\n") == 0:
            chunks[-1] += c
        else:
            chunks.append(c)
    mine = "".join([chunks[0], *_used(chunks[1:], verb)])
    files = _closure(_imports(name, mine) | {"blkscope", "blkscope.cli"}) - {name}
    return _digest(files, mine.encode())


def _used(chunks: list[str], verb: str) -> list[str]:
    """The verb's own definition, and the other definitions it uses by name (transitively); not another verb's."""
    named = {m[1]: c for c in chunks if not OWNER.match(c) and (m := DEFINES.search(c))}
    todo = [c for c in chunks if (m := OWNER.match(c)) and m[1] == verb]
    out: list[str] = []
    while todo:
        c = todo.pop()
        out.append(c)
        words = set(WORD.findall(c))
        for name in [n for n in named if n in words]:
            todo.append(named.pop(name))
    return out


@cache
def _cli_modules() -> tuple[str, ...]:
    return tuple(f"blkscope.cli.{p.stem}" for p in sorted((PKG / "cli").glob("*.py")))


@cache
def _module(name: str) -> bytes:
    return _digest(_closure({name}), b"")


def _digest(modules: set[str], extra: bytes) -> bytes:
    h = hashlib.sha1(extra)
    for m in sorted(modules):
        h.update(f"\0{m}\0".encode() + _sha1(_path(m)))
    for f in sorted(_data_files(frozenset(modules))):
        h.update(f"\0{f.relative_to(PKG.parents[1])}\0".encode() + _sha1(f))  # where the checkout is: no matter
    return h.digest()


@cache
def _sha1(path: Path) -> bytes:
    return hashlib.sha1(path.read_bytes()).digest()


def _data_files(modules: frozenset[str]) -> set[Path]:
    """Package data files the modules name, and the native program's sources if they can run it (every run of
    it goes through blkscope.native)."""
    out = set().union(*(_files_named_by(m) for m in modules))
    return out | _native_sources() if "blkscope.native" in modules else out


@cache
def _files_named_by(module: str) -> frozenset[Path]:
    return frozenset(p for p in _package_data() if p.name in _text(module))


@cache
def _package_data() -> tuple[Path, ...]:
    return tuple(p for p in PKG.rglob("*") if p.is_file() and p.suffix not in (".py", ".pyc"))


@cache
def _native_sources() -> frozenset[Path]:
    if not NATIVE.is_dir():
        return frozenset()
    found = [*(NATIVE / "src").rglob("*.rs"), NATIVE / "Cargo.toml", NATIVE / "Cargo.lock"]
    return frozenset(p for p in found if p.is_file())


def _closure(start: set[str]) -> set[str]:
    """The modules `start` can import, with the packages (their __init__) on the way to each."""
    seen: set[str] = set()
    todo = [m for m in start if _path(m)]
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        parts = m.split(".")
        new = {".".join(parts[:i]) for i in range(1, len(parts))} | _imports_of(m)
        todo.extend(n for n in new if n not in seen and _path(n))
    return seen


@cache
def _imports_of(module: str) -> frozenset[str]:
    return frozenset(_imports(module, _text(module)))


def _imports(module: str, text: str) -> set[str]:
    """The blkscope modules `text` (of `module`) imports, by name."""
    pkg = module if _path(module) and _path(module).name == "__init__.py" else module.rpartition(".")[0]
    out: set[str] = set()
    for base, names in FROM.findall(text):
        if base.startswith("."):
            dots = len(base) - len(base.lstrip("."))
            up = pkg.split(".")[: len(pkg.split(".")) - (dots - 1)]
            base = ".".join([*up, base.lstrip(".")] if base.lstrip(".") else up)
        if not base.startswith("blkscope"):
            continue
        out.add(base)
        for item in names.strip("()").split(","):
            if (n := item.split()[0] if item.split() else "") and _path(f"{base}.{n}"):
                out.add(f"{base}.{n}")
    out |= set(IMPORT.findall(text))
    for pkg_name in DYNAMIC.findall(text):
        if pkg_name == "blkscope.cli":
            continue  # the verb registry's dispatch: a command runs its own verb's topic (_verb), not all of them
        d = _path(pkg_name)
        if d is not None and d.name == "__init__.py":
            out |= {f"{pkg_name}.{p.stem}" for p in d.parent.glob("*.py") if p.stem != "__init__"}
    return {m.rstrip(".") for m in out}


@cache
def _path(module: str) -> Path | None:
    """The file of a blkscope module or package, or None."""
    parts = module.split(".")
    if parts[0] != "blkscope":
        return None
    base = PKG.joinpath(*parts[1:])
    for p in (base.with_suffix(".py"), base / "__init__.py"):
        if p.is_file():
            return p
    return None


@cache
def _text(module: str) -> str:
    p = _path(module)
    return p.read_text(encoding="utf-8") if p else ""
