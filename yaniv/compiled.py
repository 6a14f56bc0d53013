"""Which implementation of the hot paths runs: the compiled core or the pure-Python reference.

The compiled core (``yaniv._core``, built from ``yaniv/_core.c`` at install where a C compiler
is found) gives exactly the games of the pure-Python engine, only faster. It is used when it
was built and the environment variable ``YANIV_PURE`` is unset (or ``0``); ``YANIV_PURE=1``
forces the pure path. Both stay importable in one process: the modules that dispatch take
``compiled=False`` where a caller (a test, a benchmark) wants the reference.

>>> isinstance(ENABLED, bool)
True
"""

from __future__ import annotations

import os
import warnings
from types import ModuleType

#: Whether YANIV_PURE asks for the pure-Python engine.
PURE_REQUESTED = os.environ.get("YANIV_PURE", "") not in ("", "0")
#: The version of the compiled module's interface these modules call (CORE_ABI in _core.c).
CORE_ABI = 18


def _load() -> ModuleType | None:
    try:
        from . import _core
    except ImportError:  # not built (no compiler at install): the pure path
        return None
    if getattr(_core, "ABI", None) != CORE_ABI:  # built from older sources (a checkout moved on)
        warnings.warn(
            "yaniv._core was built from other sources than these: the pure-Python engine "
            "runs; rebuild it with `pip install -e .` (or `python setup.py build_ext --inplace`)",
            RuntimeWarning,
            stacklevel=2,
        )
        return None
    return _core


#: The compiled module, built or not (None where it was not built).
AVAILABLE: ModuleType | None = _load()
#: The compiled module the engine uses by default: None under YANIV_PURE=1 or where not built.
core: ModuleType | None = None if PURE_REQUESTED else AVAILABLE
#: Whether the engine uses the compiled core by default.
ENABLED = core is not None


def choose(compiled: bool | None) -> ModuleType | None:
    """The compiled module for a caller's choice: None (the default), True or False."""
    if compiled is None:
        return core
    return AVAILABLE if compiled else None


__all__ = ["AVAILABLE", "ENABLED", "PURE_REQUESTED", "choose", "core"]
