"""The ``graphviz.Digraph`` that :func:`tinyffn.draw_graph` returns.

It is graphviz's Digraph (``.source``, ``.render()``, ``.pipe()``, and inline display in
Jupyter, whose ``_repr_mimebundle_`` calls ``.pipe()``), with one change: where
Graphviz's ``dot`` is missing, it renders with ``graphviz-pure`` if that is installed,
and otherwise raises :class:`tinyffn.rendering.RendererNotFoundError`, which says how to
install a renderer. This module is imported only by ``draw_graph``, so ``import
tinyffn`` works without the graphviz package.
"""
from __future__ import annotations

import pathlib
import shutil

import graphviz

from . import rendering


class Drawing(graphviz.Digraph):
    """A graphviz.Digraph that falls back to ``graphviz-pure`` when ``dot`` is missing."""

    def pipe(self, format=None, *, encoding=None, **options):
        if shutil.which("dot") is not None:
            return super().pipe(format, encoding=encoding, **options)
        _refuse_options("pipe", options)
        data = rendering.pipe(self.source, format or self.format)
        return data if encoding is None else data.decode(encoding)

    def render(self, filename=None, directory=None, view=False, cleanup=False, format=None,
               *, outfile=None, **options):
        if shutil.which("dot") is not None:
            return super().render(filename, directory=directory, view=view, cleanup=cleanup,
                                  format=format, outfile=outfile, **options)
        quiet_view = options.pop("quiet_view", False)     # view() passes both, as False
        options.pop("quiet", None)                  # (the renderer's stderr is captured)
        _refuse_options("render", options)
        if format is None and outfile is not None:  # as graphviz: the suffix says
            format = pathlib.Path(outfile).suffix.lstrip(".").lower() or None
        format = format or self.format
        if format not in rendering.TEXT_FORMATS:
            rendering.find_renderer()                 # fail before writing anything
        if filename is None and outfile is not None:
            filename = pathlib.Path(outfile).with_suffix(".gv")
        source_path = pathlib.Path(self.save(filename, directory=directory))
        if outfile is None:
            outfile = source_path.with_name(f"{source_path.name}.{format}")
        out = rendering.render(self.source, outfile, format)
        if cleanup:
            source_path.unlink()
        if view or quiet_view:                      # quiet_view implies view, as in graphviz
            graphviz.view(out, quiet=quiet_view)
        return str(out)


def _refuse_options(method: str, options: dict) -> None:
    if options:
        raise TypeError(f"{method}(): the options {', '.join(options)} need Graphviz's "
                        "dot, which is not installed (graphviz-pure renders only the basic "
                        "format/filename/outfile call):\n" + rendering.INSTALL_HELP)
