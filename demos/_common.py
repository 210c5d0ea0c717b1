"""What every demo shares: its command line, its output folder, figures, tables, training.

Each demo is a script with the same options::

    python demos/NAME.py [--device cpu|cuda] [--out DIR] [--quick]

and a ``main(argv=None) -> dict`` that returns the numbers it printed, so the tests (and
``demos/tour.py``) can run it in-process and check them. Nothing here is about the FFN;
it is the plumbing that keeps the demos themselves short.
"""
from __future__ import annotations

import argparse
import pathlib
import re
import sys
import time
from typing import Callable, Iterable

import matplotlib

matplotlib.use("Agg")               # draw into files; no window, no display needed
import matplotlib.pyplot as plt     # noqa: E402  (must come after choosing the backend)
from tqdm.auto import tqdm          # noqa: E402

import tinyffn                      # noqa: E402
from tinyffn import optim           # noqa: E402

REPO = pathlib.Path(__file__).resolve().parent.parent
DEVICES = ("cpu", "cuda", "strict")
NUMBER = re.compile(r"[-+]?[\d.,]+(e[-+]?\d+)?%?")       # "95.0%", "1,024", "1.5e-03"


# ----------------------------------------------------------------------------- command line
def parse_args(name: str, description: str, argv: list | None = None,
               add_arguments: Callable[[argparse.ArgumentParser], None] | None = None,
               figures: bool = True) -> argparse.Namespace:
    """The demo's options, with ``args.out`` created and ``args.device`` checked usable.

    ``--out`` defaults to ``out/<name>/`` at the top of the repository (git ignores it).
    A demo that draws nothing (``figures=False``) still takes it, so that every demo has
    the same options (``tour.py`` passes it to all), but says so and makes no folder.
    ``--device strict`` runs on the test-only array-API backend: it refuses any NumPy-only
    call, so a demo that passes there should also run on the GPU.
    """
    parser = argparse.ArgumentParser(prog=f"python demos/{name}.py", description=description)
    parser.add_argument("--device", choices=DEVICES, default="cpu",
                        help="where the model and the data live (default: cpu)")
    parser.add_argument("--out", type=folder, default=REPO / "out" / name,
                        help=f"folder for the figures (default: out/{name}/)" if figures else
                        "accepted as by every demo, but unused: this one prints numbers and "
                        "draws no figures")
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes that run in seconds (what the tests use)")
    if add_arguments is not None:
        add_arguments(parser)
    args = parser.parse_args(None if argv is None else [str(a) for a in argv])
    tinyffn.zeros(1, device=args.device)        # fails here, with how to fix it, if unusable
    if not figures:
        return args
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as e:                        # a file of that name, no permission, ...
        parser.error(f"--out {args.out}: cannot make this folder ({e.strerror})")
    return args


def folder(text: str) -> pathlib.Path:
    """An --out folder; an empty one is refused (it would mean the current folder)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("give a folder name (default: out/<demo>/)")
    return pathlib.Path(text)


def run_script(main: Callable[[list | None], dict]) -> None:
    """The ``if __name__ == "__main__"`` of every demo: run, and turn a device problem into
    one line on stderr and exit status 2 instead of a traceback."""
    try:
        main(None)
    except tinyffn.DeviceError as e:
        print(f"{pathlib.Path(sys.argv[0]).name}: {e}", file=sys.stderr)
        sys.exit(2)
    except MemoryError as e:
        print(f"{pathlib.Path(sys.argv[0]).name}: not enough memory ({e}); choose smaller "
              "sizes", file=sys.stderr)
        sys.exit(1)


# ----------------------------------------------------------------------------- printing
def header(title: str) -> None:
    """A section title, underlined."""
    print(f"\n{title}\n{'-' * len(title)}")


def table(headers: list, rows: Iterable[list]) -> str:
    """A plain-text table: text left-aligned, numbers right-aligned with thousands separators.

    A column is aligned like its first row's value (text such as "95.0%" or "1e-15" counts
    as a number); floats print with 4 significant digits.
    """
    rows = [list(row) for row in rows]
    cells = [[_cell(v) for v in row] for row in rows]
    widths = [max(len(str(h)), *(len(r[i]) for r in cells)) for i, h in enumerate(headers)]
    align = ["<" if isinstance(v, str) and not NUMBER.fullmatch(v) else ">" for v in rows[0]]
    lines = ["  ".join(f"{h:{a}{w}}" for h, a, w in zip(headers, align, widths)).rstrip(),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(f"{c:{a}{w}}" for c, a, w in zip(r, align, widths)).rstrip()
              for r in cells]
    return "\n".join(lines)


def _cell(value) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:.4g}"


def vector(t: tinyffn.Tensor) -> str:
    """A short tensor printed as (1, 0, 1, -1): integers without '.0', others to 4 digits."""
    return "(" + ", ".join(f"{v:g}" if float(v).is_integer() else f"{v:.4g}"
                           for v in t.numpy().ravel().tolist()) + ")"


# ----------------------------------------------------------------------------- figures
def save_figure(fig, out: pathlib.Path, name: str) -> pathlib.Path:
    """Save ``fig`` as ``out/name.png``, close it, and return the path."""
    path = pathlib.Path(out) / f"{name}.png"
    fig.savefig(path, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return path


def shown(path: pathlib.Path) -> str:
    """``path`` relative to the current folder when it lies below it (shorter to read)."""
    try:
        return str(pathlib.Path(path).resolve().relative_to(pathlib.Path.cwd()))
    except ValueError:
        return str(path)


# ----------------------------------------------------------------------------- training
def fit(model: tinyffn.nn.Module, loss_of: Callable[[], tinyffn.Tensor], steps: int,
        lr: float, desc: str, decay: bool = False) -> list:
    """Full-batch Adam on ``loss_of()`` for ``steps`` steps; returns the loss at each step.

    ``loss_of`` runs the model on the whole data set and returns the scalar loss, so the
    loop below is the whole of training: zero the gradients, forward, backward, step.
    ``decay``: the learning rate falls linearly from ``lr`` to 0 over the steps, step t
    taking lr · (1 - t / steps) (PyTorch's ``LinearLR`` schedule); else it stays ``lr``.
    """
    opt = optim.Adam(model.parameters(), lr=lr)
    schedule = optim.lr_scheduler.LinearLR(opt, start_factor=1.0, end_factor=0.0,
                                           total_iters=steps) if decay else None
    history = []
    # disable=None: a bar only on a terminal, so `python demos/tour.py 2>&1 | tee log`
    # logs the results, not hundreds of redrawn bars
    bar = tqdm(range(steps), desc=desc, leave=False, mininterval=0.25, disable=None)
    for _ in bar:
        opt.zero_grad()
        loss = loss_of()
        loss.backward()
        opt.step()
        if schedule is not None:
            schedule.step()
        history.append(loss.item())
        bar.set_postfix_str(f"loss {history[-1]:.3g}", refresh=False)
    return history


class Stopwatch:
    """``with Stopwatch() as clock: ...`` then ``clock.seconds``."""

    def __enter__(self) -> "Stopwatch":
        self.start = time.perf_counter()
        self.seconds = 0.0
        return self

    def __exit__(self, *exc) -> None:
        self.seconds = time.perf_counter() - self.start
