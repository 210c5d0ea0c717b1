"""Rendering: running Graphviz to turn DOT text into a picture (SVG, PNG, PDF).

:func:`tinyffn.graphviz.to_dot` writes the text and needs no program; this module runs
one. It uses Graphviz's ``dot``, or ``graphviz-pure`` (``pip install graphviz-pure``)
where ``dot`` is missing, and raises :class:`RendererNotFoundError` saying how to
install one when neither is found. The DOT formats (``.dot``, ``.gv``) are the text
itself and need no renderer. ``tinyffn.graphviz`` offers the same names.
"""
from __future__ import annotations

import pathlib
import shutil
import subprocess
from typing import Any

from . import graphviz  # to_dot, for a Tensor given to pipe or render (used at call time)

RENDERERS = ("dot", "graphviz-pure")      # tried in this order, found on PATH
TEXT_FORMATS = ("dot", "gv")              # render() writes the DOT text for these
INSTALL_HELP = (
    "no Graphviz renderer found: drawing a picture needs the `dot` program of Graphviz, "
    "or `graphviz-pure`, on your PATH. Install one of them:\n"
    "  Debian/Ubuntu:  sudo apt-get install graphviz\n"
    "  macOS:          brew install graphviz\n"
    "  conda:          conda install -c conda-forge graphviz\n"
    "  Windows:        winget install graphviz   (then open a new terminal)\n"
    "  any system:     pip install graphviz-pure   (one self-contained program)\n"
    "The DOT text needs no renderer: to_dot(tensor) or draw_graph(tensor).source.")


class RendererNotFoundError(RuntimeError):
    """Neither ``dot`` nor ``graphviz-pure`` is on PATH; the message says how to install one."""


def find_renderer() -> str:
    """The path of the program that turns DOT text into pictures (see :data:`RENDERERS`)."""
    for program in RENDERERS:
        path = shutil.which(program)
        if path is not None:
            return path
    raise RendererNotFoundError(INSTALL_HELP)


def pipe(graph: Any, format: str = "svg") -> bytes:
    """The picture of ``graph`` (a Tensor, a Digraph or DOT text) in ``format`` (svg, png).

    For ``"dot"`` or ``"gv"``, the DOT text itself, which needs no renderer.
    """
    if format in TEXT_FORMATS:
        return _source(graph).encode("utf-8")
    program = find_renderer()
    result = subprocess.run([program, f"-T{format}"], input=_source(graph).encode("utf-8"),
                            capture_output=True, check=False)
    if result.returncode != 0:
        message = result.stderr.decode("utf-8", errors="replace").strip()
        raise RuntimeError(f"{program} -T{format} failed with exit code "
                           f"{result.returncode}: {message}")
    return result.stdout


def render(graph: Any, path: str | pathlib.Path, format: str | None = None) -> pathlib.Path:
    """Write the picture of ``graph`` to ``path``; the format defaults to its suffix (.svg).

    Folders missing on the way to ``path`` are created. A ``.dot`` or ``.gv`` path gets the
    DOT text itself, which needs no renderer.
    """
    path = pathlib.Path(path)
    format = format or path.suffix.lstrip(".").lower() or "svg"
    picture = pipe(graph, format)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(picture)
    return path


def _source(graph: Any) -> str:
    if isinstance(graph, str):
        return graph
    if hasattr(graph, "grad_fn"):
        return graphviz.to_dot(graph)
    if hasattr(graph, "source"):
        return graph.source
    raise TypeError(f"expected a Tensor, a graphviz Digraph or DOT text, got "
                    f"{type(graph).__name__}")
