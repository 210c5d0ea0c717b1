"""Every name tinyffn asks of CuPy exists in CuPy, checked without a GPU.

The op code computes with ``xp``, which is ``array_api_compat.cupy`` on the GPU; the
backend adds ``cupyx.scipy.special`` functions (``backend.special(name)``) and a few
``cupy``/``cupyx`` routines. A name that NumPy has and CuPy lacks passes every CPU test
and fails on the first GPU run. CuPy imports on a machine without a GPU (only computing
needs one), so where it is installed (``pip install cupy-cuda13x``; not in CI, whose
``[test]`` extra leaves out its 70 MB) this reads tinyffn's source and looks each name up:

    python -m pytest -q tests/test_cupy_api.py

Checked: every ``xp.<name>`` and ``xp.linalg.<name>`` (including ``ctx.xp``, ``be.xp``),
every keyword passed to one whose CuPy signature can be read, every literal name given to
``backend.special`` / ``_special(ctx, name)``, and every ``cupy.`` / ``cupyx.`` /
``cupy_special.`` attribute in tinyffn/backend.py. What it cannot see: a name built at
run time, and behaviour (values, dtypes, errors): only a run on a GPU shows those
(benchmarks/gpu_check.sh).
"""
import ast
import inspect
import pathlib

import pytest

import tinyffn

cupy = pytest.importorskip("cupy", reason="CuPy is not installed (it imports without a GPU)")
cupyx_special = pytest.importorskip("cupyx.scipy.special")
cupy_xp = pytest.importorskip("array_api_compat.cupy")

SOURCE = pathlib.Path(tinyffn.__file__).parent
SUBMODULES = ("linalg", "fft", "random")


def _attribute_chain(node: ast.Attribute) -> tuple:
    """``a.b.c`` as (``"a"``, ``["b", "c"]``); the base is None unless it is a plain name."""
    chain = []
    while isinstance(node, ast.Attribute):
        chain.append(node.attr)
        node = node.value
    return (node.id if isinstance(node, ast.Name) else None), chain[::-1]


def _xp_name(node: ast.Attribute) -> str | None:
    """``"exp"`` for ``xp.exp`` or ``ctx.xp.exp``, ``"linalg.qr"`` for ``xp.linalg.qr``."""
    base, chain = _attribute_chain(node)
    names = chain if base == "xp" else chain[chain.index("xp") + 1:] if "xp" in chain else []
    if not names:
        return None
    return ".".join(names[:2]) if names[0] in SUBMODULES and len(names) > 1 else names[0]


def _sources():
    for path in sorted(SOURCE.rglob("*.py")):
        yield path.relative_to(SOURCE.parent), ast.parse(path.read_text(encoding="utf-8"))


def _lookup(namespace, dotted: str):
    for part in dotted.split("."):
        namespace = getattr(namespace, part)
    return namespace


def _missing(namespace, uses: dict) -> list:
    out = []
    for name, where in sorted(uses.items()):
        try:
            _lookup(namespace, name)
        except AttributeError:
            out.append(f"{name} ({', '.join(where[:3])})")
    return out


def _xp_uses() -> dict:
    uses = {}
    for path, tree in _sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and (name := _xp_name(node)):
                uses.setdefault(name, []).append(f"{path}:{node.lineno}")
    return uses


def test_every_xp_name_the_op_code_uses_is_in_cupys_array_api_namespace():
    uses = _xp_uses()
    uses.pop("_lift", None)     # graph_xp.py's own recording namespace, never a backend's
    assert len(uses) > 50       # the scan found the op code's names, not nothing
    assert _missing(cupy_xp, uses) == []


def test_every_keyword_passed_to_an_xp_function_is_one_cupys_takes():
    wrong = []
    for path, tree in _sources():
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            name = _xp_name(node.func)
            if name is None or name == "_lift":
                continue
            try:
                params = inspect.signature(_lookup(cupy_xp, name)).parameters
            except (TypeError, ValueError):     # a compiled function: no signature to read
                continue
            if any(p.kind is p.VAR_KEYWORD for p in params.values()):
                continue
            wrong += [f"xp.{name}({k.arg}=...) at {path}:{node.lineno}"
                      for k in node.keywords if k.arg and k.arg not in params]
    assert wrong == []


def _special_names() -> dict:
    """The literal names given to ``backend.special(name)`` or ``_special(ctx, name, ...)``,
    including both arms of ``"k1e" if order else "k0e"``."""
    uses = {}
    for path, tree in _sources():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            called = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            if called not in ("special", "_special"):
                continue
            for arg in node.args:
                for leaf in ast.walk(arg):
                    if isinstance(leaf, ast.Constant) and isinstance(leaf.value, str):
                        uses.setdefault(leaf.value, []).append(f"{path}:{node.lineno}")
    return uses


def test_every_special_function_the_ops_ask_for_is_in_cupyx_scipy_special():
    uses = _special_names()
    assert {"erfinv", "digamma", "gammaincinv", "i0e", "k0e"} <= set(uses)
    # SciPy's airy, which CuPy lacks: special.airy_ai says so on the GPU and how to compute
    # it on the CPU (tests/fake_cuda.py imitates the lack)
    assert [m.split(" ")[0] for m in _missing(cupyx_special, uses)] == ["airy"]


def test_every_cupy_routine_the_backend_names_exists():
    aliases = {"cupy": cupy, "cupyx": pytest.importorskip("cupyx"), "cupy_special": cupyx_special}
    tree = ast.parse((SOURCE / "backend.py").read_text(encoding="utf-8"))
    uses = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            base, chain = _attribute_chain(node)
            if base in aliases:
                uses.setdefault((base, ".".join(chain)), []).append(f"backend.py:{node.lineno}")
    assert len(uses) >= 8
    missing = [f"{base}.{name}" for (base, name) in uses
               if not _has(aliases[base], name)]
    assert missing == []


def _has(namespace, dotted: str) -> bool:
    try:
        _lookup(namespace, dotted)
    except AttributeError:
        return False
    return True
