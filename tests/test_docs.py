"""The documentation cannot rot: every code block in README.md and docs/*.md is run or
checked here.

Conventions (docs/index.md, "How the examples are tested", says the same for writers):

* A ```python block is executed. The blocks of one page run in order in one namespace, a
  fresh one per page, after ``tinyffn.manual_seed(0)`` (the state of a fresh interpreter).
* A ```text block whose previous code block is a run block is that block's expected
  stdout. It is compared line by line after stripping trailing whitespace; a line holding
  only ``...`` matches any number of lines (as doctest's ELLIPSIS).
* ```python no-run is shown but not executed (an infinite training loop, a GPU-only
  line). Use it sparingly: a page may hold at most two.
* A ```bash block is a list of commands (``&&`` chains them). ``python -m tinyffn ...``
  is run in a temporary directory (a following ```text block is its expected output;
  a command that writes a picture is skipped where no renderer is installed);
  ``pip install`` must name extras that setup.cfg defines; ``python <script>.py`` must
  name a script that exists and options that it mentions, and so must ``bash <script>.sh``
  (with the variables set before it); ``python -m pytest`` must name
  test files and markers that exist. README's first two blocks are the set-up commands:
  the second is compared with .ci/run's. Any other command fails until a rule is added.
* A plain ``` fence (no language) is illustrative text and is not run; any other
  language fails, so a typo cannot hide a block from the tests.

Besides the blocks: every relative link resolves (an ``#anchor`` to a heading), docs/index.md links every page,
docs/api.md lists every public name with its real signature (and any other signature it
gives is the real one too), docs/derivatives.md has one
row per registered primitive, the README and docs/source_map.md list every source file (the source map also every test,
demo and benchmark),
and docs/figures/make_figures.py writes exactly the figures that are committed, drawing the
same graphs (nodes, edges and labels; not the same bytes, as ``dot`` versions differ).
"""
from __future__ import annotations

import ast
import configparser
import contextlib
import importlib
import inspect
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import warnings
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import pytest

import tinyffn
from tinyffn import ops

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
FIGURES = DOCS / "figures"
PAGES = sorted(DOCS.glob("*.md"))
ALL_PAGES = [ROOT / "README.md"] + PAGES
LANGUAGES = ("python", "text", "bash", "")
RUN_OPTIONS = ("", "no-run")
MAX_NO_RUN = 2
README_MAIN_JOB = 'python -m pip install -e ".[demos]" && python demos/tour.py'
SYSTEM_INSTALLERS = ("apt-get", "sudo", "brew", "conda", "winget")
HAS_RENDERER = any(shutil.which(p) for p in ("dot", "graphviz-pure"))


def page_id(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name


# ----------------------------------------------------------------------------- parsing
@dataclass
class Block:
    page: Path
    line: int           # 1-based line of the opening fence
    language: str       # "python", "text", "bash" or "" (a plain fence)
    option: str         # "" or "no-run"
    source: str

    @property
    def where(self) -> str:
        return f"{page_id(self.page)}:{self.line}"


FENCE = re.compile(r"^ {0,3}(`{3,})\s*([\w+-]*)\s*(.*?)\s*$")


def code_blocks(path: Path) -> list[Block]:
    """The fenced code blocks of a Markdown file, in order."""
    blocks, lines = [], path.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, language, option = m.group(1), m.group(2).lower(), m.group(3)
        indent = len(lines[i]) - len(lines[i].lstrip(" "))
        start, i = i, i + 1
        body = []
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
            i += 1
        if i == len(lines):
            raise AssertionError(f"{page_id(path)}:{start + 1}: a code fence is never closed")
        blocks.append(Block(path, start + 1, language, option, "\n".join(body) + "\n"))
        i += 1
    return blocks


def expected_output_matches(expected: str, actual: str) -> bool:
    """Compare line by line without trailing whitespace; a line ``...`` matches any lines."""
    def lines(text):
        out = [line.rstrip() for line in text.rstrip().split("\n")]
        return out if out != [""] else []

    pattern = "".join(r"(?:[^\n]*\n)*?" if line == "..." else re.escape(line) + r"\n"
                      for line in lines(expected))
    actual_text = "".join(line + "\n" for line in lines(actual))
    return re.fullmatch(pattern, actual_text) is not None


# ----------------------------------------------------------------------------- the blocks
def test_there_are_pages():
    names = {p.name for p in PAGES}
    assert {"index.md", "quickstart.md", "api.md", "derivatives.md"} <= names


@pytest.mark.parametrize("page", ALL_PAGES, ids=page_id)
def test_fences_are_known(page):
    blocks = code_blocks(page)
    for b in blocks:
        assert b.language in LANGUAGES, (
            f"{b.where}: a ```{b.language} block: use python, text, bash, or a plain fence "
            "for text that is not code (see tests/test_docs.py)")
        assert b.option in RUN_OPTIONS and (b.option != "no-run" or b.language == "python"), (
            f"{b.where}: unknown fence option {b.option!r}; only ```python no-run exists")
    no_run = [b.where for b in blocks if b.option == "no-run"]
    assert len(no_run) <= MAX_NO_RUN, f"too many no-run blocks, make some run: {no_run}"


def _run_python(block: Block, namespace: dict) -> str:
    source = "\n" * (block.line) + block.source      # tracebacks point at the page's lines
    code = compile(source, str(block.page), "exec")
    out = io.StringIO()
    # NumPy's RuntimeWarnings (log of a negative, in the anomaly example) go to stderr in
    # a terminal; here they are recorded and dropped, as they are not part of the output.
    with contextlib.redirect_stdout(out), warnings.catch_warnings(record=True):
        try:
            exec(code, namespace)
        except Exception as e:
            raise AssertionError(f"{block.where}: the example raised "
                                 f"{type(e).__name__}: {e}\n{out.getvalue()}") from e
    return out.getvalue()


@pytest.mark.parametrize("page", ALL_PAGES, ids=page_id)
def test_examples_run_and_print_what_the_page_says(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)                        # a block that writes files writes here
    tinyffn.manual_seed(0)
    namespace = {"__name__": f"docs_{page.stem}"}
    previous, output = None, None
    for block in code_blocks(page):
        if block.language == "python" and block.option != "no-run":
            output = _run_python(block, namespace)
        elif block.language == "bash":
            output = _check_bash(block, tmp_path)
        elif block.language == "text":
            ran = previous is not None and output is not None and \
                previous.language in ("python", "bash") and previous.option != "no-run"
            assert ran, (f"{block.where}: a ```text block must follow a block that runs "
                         "(it is that block's expected output); use a plain ``` fence for "
                         "text that is not an output")
            if output is NOT_RUN:
                continue                               # a command skipped on this machine
            assert expected_output_matches(block.source, output), (
                f"{block.where}: the output of the block at {previous.where} differs from "
                f"the page.\n--- the page says:\n{block.source}--- the code prints:\n{output}")
        else:
            output = None
        previous = block


# ----------------------------------------------------------------------------- bash blocks
def commands(block: Block) -> list[str]:
    """The commands of a bash block: comments dropped, continuations joined, && split."""
    text = re.sub(r"\\\n", " ", block.source)
    out = []
    for line in text.splitlines():
        line = line.split(" #")[0].strip() if not line.lstrip().startswith("#") else ""
        out += [c.strip() for c in line.split("&&") if c.strip()]
    return out


def setup_cfg() -> configparser.ConfigParser:
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    return cfg


def extras() -> set:
    return set(setup_cfg()["options.extras_require"])


class _NotRun(str):
    """The output of a bash block whose command could not run here (no renderer)."""


NOT_RUN = _NotRun("")


def _check_bash(block: Block, tmp_path: Path) -> str:
    output = []
    for command in commands(block):
        words = shlex.split(command)
        where = f"{block.where}: `{command}`"
        if words[:3] == ["python", "-m", "tinyffn"]:
            if any(a in ("--out", "--frames") for a in words) and not HAS_RENDERER:
                return NOT_RUN                         # needs dot or graphviz-pure
            output.append(_run_cli(words[3:], where, tmp_path))
        elif words[:4] == ["python", "-m", "pip", "install"] or words[:2] == ["pip", "install"]:
            _check_pip(words[4 if words[0] == "python" else 2:], where)
        elif words[:3] == ["python", "-m", "pytest"]:
            _check_pytest(words[3:], where)
        elif words[0] == "python" and len(words) > 1 and words[1].endswith(".py"):
            _check_script(words[1], words[2:], where)
        elif re.fullmatch(r"(\w+=\S*\s+)*bash\s+\S+\.sh\b.*", command):
            _check_shell_script(words, where)
        elif words[0] in SYSTEM_INSTALLERS:
            pass                                       # the OS's package manager: not run
        else:
            raise AssertionError(f"{where}: tests/test_docs.py has no rule for this command; "
                                 "add one (run it, or check what it refers to)")
    return "".join(output)


def _run_cli(args: list, where: str, tmp_path: Path) -> str:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])))
    result = subprocess.run([sys.executable, "-m", "tinyffn", *args], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, f"{where} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def _check_pip(args: list, where: str) -> None:
    targets = [a for a in args if not a.startswith("-")]
    assert targets, f"{where}: installs nothing"
    known = setup_cfg()["options.extras_require"]
    mentioned = (ROOT / "setup.cfg").read_text() + (ROOT / "tinyffn" / "graphviz.py").read_text()
    for target in targets:
        m = re.fullmatch(r"(\.|tinyffn)(?:\[([\w,-]+)\])?", target)
        if m:
            for extra in (m.group(2) or "").split(","):
                assert not extra or extra in known, (
                    f"{where}: setup.cfg defines no extra {extra!r} (it has {sorted(known)})")
        else:
            assert re.search(rf"\b{re.escape(target)}\b", mentioned), (
                f"{where}: {target} is neither tinyffn nor a package the project names")


def _check_pytest(args: list, where: str) -> None:
    markers = setup_cfg()["tool:pytest"]["markers"]
    if "-n" in args or any(a.startswith("--numprocesses") for a in args):
        assert "pytest-xdist" in setup_cfg()["options.extras_require"]["test"], (
            f"{where}: -n needs pytest-xdist, which the [test] extra does not install")
    for i, a in enumerate(args):
        if a.startswith("tests/"):
            assert (ROOT / a.split("::")[0]).exists(), f"{where}: {a} does not exist"
        if args[i - 1] == "-m" and i > 0:
            for marker in re.findall(r"[a-z_]+", a):
                assert marker in ("not", "and", "or") or f"{marker}:" in markers, (
                    f"{where}: no pytest marker {marker!r} in setup.cfg")


def _check_script(script: str, args: list, where: str) -> None:
    path = ROOT / script
    assert path.is_file(), f"{where}: {script} does not exist"
    source = "".join(p.read_text(encoding="utf-8") for p in path.parent.glob("*.py"))
    for a in args:
        if a.startswith("--"):
            option = a.split("=")[0]
            assert f'"{option}"' in source or f"'{option}'" in source, (
                f"{where}: {script} (and its helpers) define no option {option}")


def _check_shell_script(words: list, where: str) -> None:
    """``[NAME=value ...] bash script.sh [args]``: the script exists, reads each variable
    set before it, and mentions each ``--option`` given. Not run: the one such script,
    benchmarks/gpu_check.sh, needs a GPU (tests/test_gpu_check.py rehearses it)."""
    i = words.index("bash")
    script, args = words[i + 1], words[i + 2:]
    path = ROOT / script
    assert path.is_file(), f"{where}: {script} does not exist"
    source = path.read_text(encoding="utf-8")
    for assignment in words[:i]:
        name = assignment.split("=")[0]
        assert re.search(rf"\$\{{?{name}\b", source), f"{where}: {script} reads no variable {name}"
    for a in args:
        if a.startswith("--"):
            assert a.split("=")[0] in source, f"{where}: {script} defines no option {a}"


def test_readme_starts_with_the_two_setup_commands():
    bash = [b for b in code_blocks(ROOT / "README.md") if b.language == "bash"]
    assert len(bash) >= 2, "README.md must open with the main-job and the test command"
    assert bash[0].source.strip() == README_MAIN_JOB
    ci = (ROOT / ".ci" / "run").read_text()
    ci_command = next(line.strip() for line in ci.splitlines()
                      if "python -m pytest" in line and not line.lstrip().startswith("#"))
    assert bash[1].source.strip() == ci_command, (
        f"README's test command {bash[1].source.strip()!r} differs from .ci/run's "
        f"{ci_command!r}; they must be the same command")
    first_two = code_blocks(ROOT / "README.md")[:2]
    assert [b.line for b in first_two] == [bash[0].line, bash[1].line], \
        "README's first two code blocks must be the main-job and the test command"


def test_backends_page_quotes_the_real_device_errors(monkeypatch):
    """The no-CuPy message cannot be printed by a block that also runs on GPU machines,
    so backends.md quotes it in a plain fence; this checks the quote against the code."""
    from tinyffn import backend
    quote = next(b for b in code_blocks(DOCS / "backends.md")
                 if b.language == "" and "needs CuPy" in b.source).source.strip()
    quote = quote.split("DeviceError: ", 1)[1].split(" (import failed")[0]
    monkeypatch.setitem(sys.modules, "cupy", None)          # import cupy now fails
    with pytest.raises(tinyffn.DeviceError) as raised:
        backend._cupy_backend()
    assert str(raised.value).startswith(quote)
    page = (DOCS / "backends.md").read_text(encoding="utf-8")
    assert "device 'cuda': CuPy is installed but no GPU is usable" in page
    assert "device 'cuda': CuPy is installed but no GPU is usable" in inspect.getsource(backend)


# ----------------------------------------------------------------------------- links
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    return [m.group(1) for m in LINK.finditer(text)]


@pytest.mark.parametrize("page", ALL_PAGES, ids=page_id)
def test_relative_links_resolve(page):
    for target in links(page):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = (page.parent / target.split("#")[0]).resolve()
        assert path.exists(), f"{page_id(page)} links to {target}, which does not exist"


@pytest.mark.parametrize("page", ALL_PAGES, ids=page_id)
def test_every_link_is_well_formed(page):
    """A link whose target lost its ")" or holds a space is no link for LINK, so the two
    tests above never see it: every "](" outside code must start one LINK matches."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    text = re.sub(r"`[^`\n]*`", "``", text)                     # inline code spans
    starts = {m.start(1) - 2 for m in LINK.finditer(text)}         # where each "](" is
    for m in re.finditer(r"\]\(", text):
        line = text.count("\n", 0, m.start()) + 1
        assert m.start() in starts, (f"{page_id(page)}: a malformed link near line {line} of "
                                     f"the page without code: {text[m.start():m.start() + 60]!r}")


def heading_anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    return {heading_anchor(m.group(1)) for m in re.finditer(r"^#+ (.*)$", text, flags=re.M)}


@pytest.mark.parametrize("page", ALL_PAGES, ids=page_id)
def test_anchors_name_a_heading(page):
    for target in links(page):
        if re.match(r"[a-z]+:", target) or "#" not in target:
            continue
        path, anchor = target.split("#", 1)
        linked = (page.parent / path).resolve() if path else page
        if linked.suffix == ".md" and linked.exists():
            assert anchor in anchors(linked), (
                f"{page_id(page)} links to {target}, but {linked.name} has no heading "
                f"with that anchor (it has {sorted(anchors(linked))})")


def test_index_links_every_page():
    linked = {Path(t.split("#")[0]).name for t in links(DOCS / "index.md")}
    missing = [p.name for p in PAGES if p.name != "index.md" and p.name not in linked]
    assert not missing, f"docs/index.md does not link {missing}"
    readme = links(ROOT / "README.md")
    assert "docs/index.md" in readme, "README.md must link docs/index.md"


# ----------------------------------------------------------------------------- api.md
API_MODULES = ("tinyffn.functional", "tinyffn.nn", "tinyffn.nn.utils", "tinyffn.init",
               "tinyffn.optim", "tinyffn.optim.lr_scheduler", "tinyffn.optim.swa_utils",
               "tinyffn.accounting",
               "tinyffn.graphviz", "tinyffn.naming", "tinyffn.hooks",
               "tinyffn.autograd", "tinyffn.autograd.functional", "tinyffn.higher_order",
               "tinyffn.graph_xp", "tinyffn.stepper",
               "tinyffn.cuda", "tinyffn.utils.data", "tinyffn.utils.checkpoint", "tinyffn.linalg", "tinyffn.special",
               "tinyffn.distributions", "tinyffn.distributions.transforms",
               "tinyffn.distributions.constraints",
               "tinyffn.func", "tinyffn.amp", "tinyffn.amp_casts", "tinyffn.nn.attention",
               "tinyffn.nn.utils.prune")
# and tinyffn.ops, whose names are its __all__; a module whose classes another one imports,
# to be reached there, is listed in that one's section
REEXPORTED = {"tinyffn.optim.lr_scheduler": ("tinyffn.lr_scheduler_extra",
                                             "tinyffn.lr_scheduler_more"),
              "tinyffn.optim": ("tinyffn.optim_extra", "tinyffn.optim_more",
                                "tinyffn.optim_lbfgs", "tinyffn.optim_matrices"),
              "tinyffn.nn": ("tinyffn.activation_modules",),
              "tinyffn.nn.utils": ("tinyffn.fusion", "tinyffn.weight_hooks"),
              "tinyffn.functional": ("tinyffn.functional_extra", "tinyffn.attention"),
              "tinyffn.utils.data": ("tinyffn.utils.dataset", "tinyffn.utils.sampler"),
              "tinyffn.distributions": ("tinyffn.distributions_more", "tinyffn.distributions_extra",
                                                "tinyffn.distributions_continuous",
                                                "tinyffn.distributions_gamma",
                                                "tinyffn.distributions_transformed",
                                                "tinyffn.distributions_family",
                                                "tinyffn.distributions_fisher_pareto",
                                                "tinyffn.distributions_relaxed",
                                                "tinyffn.distributions_mixture",
                                                "tinyffn.distributions_counts",
                                                "tinyffn.distributions_unit",
                                                "tinyffn.distributions_matrix",
                                                "tinyffn.distributions_kl"),
              "tinyffn.distributions.transforms": ("tinyffn.distributions_transforms_more",),
              "tinyffn.nn.utils.prune": ("tinyffn.prune_base",)}
# a module that takes every name of a gathering module's __all__ (nn_layers.py,
# functional_layers.py: their names are imports, which defined_names does not see)
GATHERED = {"tinyffn.nn": "tinyffn.nn_layers", "tinyffn.functional": "tinyffn.functional_layers"}


def defined_names(module_name: str) -> list[str]:
    """The public names a module defines itself (top-level def, class and assignments)."""
    module = importlib.import_module(module_name)
    names = []
    for node in ast.parse(inspect.getsource(module)).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
    return [n for n in names if not n.startswith("_")]


def public_names() -> dict:
    """module name -> its public names: tinyffn.__all__, then each API module's own."""
    out = {"tinyffn": list(tinyffn.__all__), "tinyffn.ops": list(ops.__all__)}
    for name in API_MODULES:
        out[name] = defined_names(name) + [n for other in REEXPORTED.get(name, ())
                                           for n in defined_names(other)]
        if name in GATHERED:
            out[name] += list(importlib.import_module(GATHERED[name]).__all__)
    return out


def signature_text(obj) -> str:
    """``name(a, b=1, *, c=None)``: the call signature, without annotations, ``self`` and
    the engine's private ``_arguments``; just ``name`` for a class whose constructor is
    not tinyffn's (an exception, ``Function``). A class that defines ``__new__`` (a ``str``
    subclass, ``device``) is called with its arguments."""
    if inspect.isclass(obj):
        own = [method for c in obj.__mro__[:-1] if c.__module__.startswith("tinyffn")
               for method in ("__init__", "__new__") if method in vars(c)]
        if not own:
            return obj.__name__
        target = getattr(obj, own[0])
    else:
        target = obj
    sig = inspect.signature(target)
    params = [p.replace(annotation=inspect.Parameter.empty) for p in sig.parameters.values()
              if p.name not in ("self", "cls") and not p.name.startswith("_")]
    sig = sig.replace(parameters=params, return_annotation=inspect.Signature.empty)
    return f"{obj.__name__}{sig}"


def api_sections() -> dict:
    """``## `module` `` heading -> the text of that section of docs/api.md."""
    text = (DOCS / "api.md").read_text(encoding="utf-8")
    parts = re.split(r"^## `([\w.]+)`.*$", text, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def test_api_reference_lists_every_public_name():
    sections = api_sections()
    for module_name, names in public_names().items():
        assert module_name in sections, f"docs/api.md has no section ## `{module_name}`"
        text = sections[module_name]
        module = importlib.import_module(module_name)
        for name in names:
            obj = getattr(module, name)
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and \
                    obj.__module__.startswith("tinyffn"):
                wanted = f"`{signature_text(obj)}`"
            else:
                wanted = f"`{name}`"
            assert wanted in text, (f"docs/api.md, section {module_name}: missing {wanted} "
                                    "(the signature must be the code's, without annotations)")


def test_every_signature_in_the_api_reference_is_the_codes():
    """Also in the sections that list only some names of a module (``(in part)``): a row
    that starts with ``name(...)`` must give the code's signature."""
    for section, text in api_sections().items():
        owner = resolve(section)
        for m in re.finditer(r"^\| `([A-Za-z_]\w*)(\([^`]*\))`", text, flags=re.M):
            written, obj = m.group(1) + m.group(2), getattr(owner, m.group(1))
            assert written == signature_text(obj), (
                f"docs/api.md, section {section}: `{written}`, but the code has "
                f"`{signature_text(obj)}`")


def resolve(dotted: str):
    """``tinyffn.nn.Module`` -> the class; ``tinyffn.nn`` -> the module."""
    parts = dotted.split(".")
    for n in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:n]))
        except ImportError:
            continue
        for attr in parts[n:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def test_api_reference_names_nothing_that_is_gone():
    for section, text in api_sections().items():
        owner = resolve(section)
        for m in re.finditer(r"^\| `([A-Za-z_][\w]*)", text, flags=re.M):
            assert hasattr(owner, m.group(1)), f"docs/api.md: {section} has no {m.group(1)}"


CLASS_SECTIONS = {"tinyffn.Tensor": "tinyffn.Tensor", "tinyffn.nn.Module": "tinyffn.nn.Module",
                  "tinyffn": "tinyffn.BackwardStep", "tinyffn.stepper": "tinyffn.stepper.Step"}


@pytest.mark.parametrize("section, cls", CLASS_SECTIONS.items())
def test_class_sections_list_every_public_member(section, cls):
    text = api_sections()[section]
    cls = resolve(cls)                  # with its tinyffn base classes (Tensor's TorchMethods)
    members = [n for c in cls.__mro__ if c.__module__.startswith("tinyffn")
               for n in vars(c) if not n.startswith("_")]
    missing = [n for n in members if not re.search(rf"`{n}\b", text)]
    assert not missing, f"docs/api.md, section {section}: missing {missing}"


def test_public_functions_and_classes_have_docstrings():
    undocumented = []
    for module_name, names in public_names().items():
        module = importlib.import_module(module_name)
        for name in names:
            obj = getattr(module, name)
            if (inspect.isfunction(obj) or inspect.isclass(obj)) and not inspect.getdoc(obj):
                undocumented.append(f"{module_name}.{name}")
    assert not undocumented, f"public names without a docstring: {undocumented}"


# ----------------------------------------------------------------------------- derivatives
def test_derivative_table_has_one_row_per_primitive():
    text = (DOCS / "derivatives.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(\w+)` \|", text, flags=re.M)
    registered = [f.op_name() for f in ops.PRIMITIVES]
    assert sorted(rows) == sorted(registered), (
        f"docs/derivatives.md: missing rows {sorted(set(registered) - set(rows))}, "
        f"rows for no primitive {sorted(set(rows) - set(registered))}")
    assert len(rows) == len(set(rows)), "docs/derivatives.md: a primitive has two rows"


# ----------------------------------------------------------------------------- file maps
def source_files() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tinyffn").rglob("*.py"))


def other_files() -> list[str]:
    """The tests, demos and benchmarks, which docs/source_map.md lists as well."""
    return sorted(str(p.relative_to(ROOT)) for folder in ("tests", "demos", "benchmarks")
                  for p in (ROOT / folder).iterdir() if p.suffix in (".py", ".sh"))


@pytest.mark.parametrize("page", [ROOT / "README.md", DOCS / "source_map.md"], ids=page_id)
def test_file_maps_list_every_source_file(page):
    text = page.read_text(encoding="utf-8")
    files = source_files() + (other_files() if page.name == "source_map.md" else [])
    missing = [f for f in files if f"`{f}`" not in text]
    if page.name == "README.md":       # the README's table may name tinyffn/ops/ as a whole
        missing = [f for f in missing if not (f.startswith("tinyffn/ops/") and
                                              "`tinyffn/ops/`" in text)]
    assert not missing, f"{page_id(page)} does not list {missing}"


# ----------------------------------------------------------------------------- figures
def referenced_figures() -> dict:
    """figure file name -> the pages that show it."""
    out = {}
    for page in ALL_PAGES:
        for target in links(page):
            if "figures/" in target and target.endswith((".svg", ".png")):
                out.setdefault(Path(target).name, []).append(page_id(page))
    return out


def committed_figures() -> set:
    return {p.name for p in FIGURES.iterdir() if p.suffix in (".svg", ".png")}


def test_every_figure_shown_is_committed():
    missing = sorted(set(referenced_figures()) - committed_figures())
    assert not missing, f"figures shown in the docs but missing from docs/figures: {missing}"
    unused = sorted(committed_figures() - set(referenced_figures()))
    assert not unused, f"docs/figures holds figures no page shows: {unused}"


SVG = "{http://www.w3.org/2000/svg}"


def svg_structure(data: bytes) -> list:
    """What a Graphviz SVG draws, without where: one ``(kind, title, texts)`` per node,
    edge and cluster, sorted. The titles are the DOT ids tinyffn wrote (``n12``,
    ``n8->n12``, ``cluster_3``) and the texts are the lines of their labels, so this is
    fixed by the DOT source alone; coordinates, the order of elements and the escaping of
    characters, which vary between versions of ``dot``, are left out."""
    out = []
    for g in ET.fromstring(data).iter(f"{SVG}g"):
        if g.get("class") in ("node", "edge", "cluster"):
            texts = tuple(" ".join((t.text or "").split()) for t in g.iter(f"{SVG}text"))
            out.append((g.get("class"), (g.findtext(f"{SVG}title") or "").strip(), texts))
    return sorted(out)


def png_size(data: bytes) -> tuple:
    """(width, height) in pixels, from the PNG's IHDR chunk."""
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and data[12:16] == b"IHDR"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


@pytest.mark.skipif(not HAS_RENDERER, reason="no dot or graphviz-pure on PATH")
def test_figure_script_writes_exactly_the_committed_figures(tmp_path):
    """A fresh run must draw what is committed. Not byte for byte: CI's ``dot`` may be
    another version than the one that drew the files. Graphs must hold the same nodes,
    edges and clusters with the same labels (:func:`svg_structure`); plots, whose pixels
    depend on the matplotlib and FreeType versions, only the same size."""
    pytest.importorskip("matplotlib")
    result = subprocess.run([sys.executable, str(FIGURES / "make_figures.py"), "--out",
                             str(tmp_path)], capture_output=True, text=True, timeout=120,
                            check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    written = {p.name for p in tmp_path.iterdir()}
    assert written == committed_figures(), (
        f"make_figures.py wrote {sorted(written)}, docs/figures holds "
        f"{sorted(committed_figures())}: run python docs/figures/make_figures.py")
    stale = []
    for name in sorted(written):
        data, committed = (tmp_path / name).read_bytes(), (FIGURES / name).read_bytes()
        assert len(data) < 400_000, f"{name} is {len(data):,} bytes: keep figures small"
        if name.endswith(".svg"):
            assert ET.fromstring(data).tag.endswith("svg"), name
            # graphviz-pure writes its own kind of SVG: compare only what dot drew
            if shutil.which("dot") and svg_structure(data) != svg_structure(committed):
                new, old = set(svg_structure(data)), set(svg_structure(committed))
                stale.append(f"{name}: now draws {sorted(new - old)[:3]}, the committed "
                             f"file {sorted(old - new)[:3]}")
        elif png_size(data) != png_size(committed):
            stale.append(f"{name}: {png_size(data)} pixels, committed {png_size(committed)}")
    assert not stale, ("docs/figures is stale; run python docs/figures/make_figures.py "
                       "--only NAME and commit:\n" + "\n".join(stale))


@pytest.mark.skipif(not shutil.which("dot"), reason="compares what dot drew")
def test_the_create_graph_figure_names_its_gy_box():
    """autograd.md §8 calls the grey box gy; the committed figure says so, and that box
    feeds one op (tanh's backward's mul), as the incoming gradient does."""
    drawn = svg_structure((FIGURES / "gradient_graph.svg").read_bytes())
    (gy,) = [title for kind, title, texts in drawn if kind == "node" and texts == ("gy", "(2,)")]
    assert len([t for kind, t, _ in drawn if kind == "edge" and t.startswith(gy + "->")]) == 1


def test_svg_structure_ignores_layout_but_not_the_graph():
    def svg(node_id, label, x):
        return (f'<svg xmlns="http://www.w3.org/2000/svg"><g class="graph"><title>%3</title>'
                f'<g class="node"><title>{node_id}</title><text x="{x}">{label}</text></g>'
                f'<g class="edge"><title>n0&#45;&gt;{node_id}</title></g></g></svg>').encode()
    assert svg_structure(svg("n1", "div", 10)) == svg_structure(svg("n1", "div", 99))
    assert svg_structure(svg("n1", "div", 10)) != svg_structure(svg("n2", "div", 10))
    assert svg_structure(svg("n1", "div", 10)) != svg_structure(svg("n1", "erf", 10))
    assert ("edge", "n0->n1", ()) in svg_structure(svg("n1", "div", 10))


# ----------------------------------------------------------------------------- the checker
def test_expected_output_rules():
    assert expected_output_matches("a\nb  \n", "a  \nb\n\n")
    assert not expected_output_matches("a\nb\n", "a\nc\n")
    assert expected_output_matches("first\n...\nlast\n", "first\nx\ny\nlast\n")
    assert expected_output_matches("first\n...\nlast\n", "first\nlast\n")
    assert not expected_output_matches("first\n...\nlast\n", "first\nx\n")


def write_page(tmp_path: Path, text: str) -> Path:
    page = tmp_path / "page.md"
    page.write_text(text, encoding="utf-8")
    return page


def test_the_checker_catches_broken_examples(tmp_path):
    good = write_page(tmp_path, "```python\nprint(1 + 1)\n```\n\n```text\n2\n```\n")
    blocks = code_blocks(good)
    assert [b.language for b in blocks] == ["python", "text"] and blocks[0].line == 1
    assert _run_python(blocks[0], {}) == "2\n"
    raising = code_blocks(write_page(tmp_path, "```python\n1 / 0\n```\n"))[0]
    with pytest.raises(AssertionError, match="page.md:1: the example raised ZeroDivisionError"):
        _run_python(raising, {})


@pytest.mark.parametrize("command, message", [
    ("rm -rf out", "no rule for this command"),
    ('python -m pip install -e ".[nonsense]"', "no extra 'nonsense'"),
    ("python demos/no_such_demo.py", "does not exist"),
    ("python demos/tour.py --no-such-option", "define no option --no-such-option"),
    ("python -m pytest tests/test_nothing.py", "does not exist"),
    ("bash benchmarks/no_such_check.sh", "does not exist"),
    ("bash benchmarks/gpu_check.sh --no-such-option", "defines no option --no-such-option"),
    ("NO_SUCH_VARIABLE=1 bash benchmarks/gpu_check.sh", "reads no variable NO_SUCH_VARIABLE"),
])
def test_the_checker_refuses_bad_commands(tmp_path, command, message):
    block = code_blocks(write_page(tmp_path, f"```bash\n{command}\n```\n"))[0]
    with pytest.raises(AssertionError, match=re.escape(message)):
        _check_bash(block, tmp_path)
