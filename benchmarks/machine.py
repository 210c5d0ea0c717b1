"""What a benchmark table must say about where it was measured.

A time means little without the machine, the library versions and the number of threads
each library used: NumPy's matrix products run on its BLAS (OpenBLAS in the wheels) with
its own thread pool, PyTorch's on its own (MKL or oneDNN, with OpenMP threads), and a
2-core machine shared with other work gives both fewer cores than they think.
"""
from __future__ import annotations

import contextlib
import os
import platform
from typing import Any, Iterator

THREAD_ENV_VARS = ("OMP_NUM_THREADS", "OMP_WAIT_POLICY", "OPENBLAS_NUM_THREADS",
                   "MKL_NUM_THREADS", "CUPY_TF32", "NVIDIA_TF32_OVERRIDE")


def cpu_model() -> str:
    """The CPU's marketing name from /proc/cpuinfo (Linux), else what platform knows."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def usable_cores() -> int:
    """Cores this process may run on (its affinity mask; os.cpu_count() where unknown)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def machine_info(device: str, torch: Any = None) -> dict:
    """Machine, versions and thread counts, as a JSON-ready dict.

    ``torch`` is the imported module, or None when PyTorch is not compared.
    """
    import numpy
    import scipy

    import tinyffn

    info = {
        "device": device,
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "usable_cores": usable_cores(),
        "platform": platform.platform(),
        "versions": {
            "python": platform.python_version(),
            "tinyffn": tinyffn.__version__,
            "numpy": numpy.__version__,
            "scipy": scipy.__version__,
        },
        "threads": blas_threads(),
        "env": {k: os.environ[k] for k in THREAD_ENV_VARS if k in os.environ},
    }
    if torch is not None:
        info["versions"]["torch"] = torch.__version__
        info["threads"].append({"library": "torch (intra-op)",
                                "num_threads": torch.get_num_threads()})
    if device == "cuda":
        info["gpu"] = gpu_info(torch)
        info["versions"]["cupy"] = info["gpu"]["cupy"]
    return info


def blas_threads() -> list:
    """One entry per thread pool loaded in this process (BLAS, OpenMP), via threadpoolctl.

    Without threadpoolctl installed the list says so instead of guessing.
    """
    try:
        import threadpoolctl
    except ImportError:
        return [{"library": "threadpoolctl not installed (pip install threadpoolctl)",
                 "num_threads": None}]
    return [{"library": f"{pool['internal_api']} {pool.get('version') or ''}".strip()
                        + f" ({_owner(pool['filepath'])})",
             "num_threads": pool["num_threads"]}
            for pool in threadpoolctl.threadpool_info()]


def _owner(path: str) -> str:
    """Which installed package ships a shared library: numpy.libs/x.so -> "numpy.libs"."""
    parts = path.replace(os.sep, "/").split("/")
    if "site-packages" in parts and parts.index("site-packages") + 1 < len(parts):
        return parts[parts.index("site-packages") + 1]
    return os.path.basename(path)


@contextlib.contextmanager
def threads_limited(n: int | None, torch: Any = None) -> Iterator[None]:
    """Inside, every BLAS and OpenMP thread pool loaded so far, and PyTorch's, use ``n``
    threads (``None``: leave them alone). Needs threadpoolctl.

    On a small shared machine one thread per library gives far steadier times: a
    2-thread BLAS call waits for its second thread, and when the second core is busy
    elsewhere that wait can be longer than the call.
    """
    if n is None:
        yield
        return
    try:
        import threadpoolctl
    except ImportError as e:
        raise RuntimeError("--threads needs threadpoolctl: pip install threadpoolctl") from e
    previous = torch.get_num_threads() if torch is not None else None
    with threadpoolctl.threadpool_limits(n):
        if torch is not None:
            torch.set_num_threads(n)
        try:
            yield
        finally:
            if torch is not None:
                torch.set_num_threads(previous)


def gpu_info(torch: Any = None) -> dict:
    """The GPU's name and the float32 matmul precision settings of CuPy and PyTorch.

    Both libraries compute float32 products in full float32 unless told otherwise (CuPy:
    the CUPY_TF32 environment variable; PyTorch: ``torch.backends.cuda.matmul.allow_tf32``);
    a comparison is only fair when both say the same.
    """
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
    info = {
        "name": props["name"].decode() if isinstance(props["name"], bytes) else props["name"],
        "cupy": cupy.__version__,
        "cupy_tf32": os.environ.get("CUPY_TF32", "0") != "0",
    }
    if torch is not None:
        matmul = torch.backends.cuda.matmul
        if hasattr(matmul, "fp32_precision"):       # torch >= 2.9; allow_tf32 deprecated
            precision = matmul.fp32_precision       # "none": the global setting decides
            if precision == "none":
                precision = getattr(torch.backends, "fp32_precision", "none")
            info["torch_fp32_precision"] = precision
            info["torch_allow_tf32"] = precision == "tf32"
        else:
            info["torch_allow_tf32"] = bool(matmul.allow_tf32)
    return info


def describe(info: dict) -> str:
    """The table header: three or four lines of plain text."""
    versions = "  ".join(f"{k} {v}" for k, v in info["versions"].items())
    threads = "; ".join(f"{t['library']}: {t['num_threads']}" for t in info["threads"])
    lines = [f"machine   {info['cpu']}, {info['cores']} cores ({info['usable_cores']} usable), "
             f"{info['platform']}",
             f"versions  {versions}",
             f"threads   {threads}"]
    if info["env"]:
        lines.append("env       " + "  ".join(f"{k}={v}" for k, v in info["env"].items()))
    if "gpu" in info:
        gpu = info["gpu"]
        tf32 = f"CuPy TF32 {'on' if gpu['cupy_tf32'] else 'off'}"
        if "torch_allow_tf32" in gpu:
            tf32 += f", torch TF32 {'on' if gpu['torch_allow_tf32'] else 'off'}"
        lines.append(f"gpu       {gpu['name']} ({tf32})")
    return "\n".join(lines)
