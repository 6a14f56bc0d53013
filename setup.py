"""The optional compiled core (the rest of the build is in pyproject.toml).

``optional=True``: where the extension cannot be built (no C compiler, no Python headers) the
build warns and goes on, and the package runs on its pure-Python engine.
"""

import os

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "yaniv._core",
            ["yaniv/_core.c"],
            # included by _core.c
            depends=["yaniv/_playout.c", "yaniv/_envstep.c", "yaniv/_plan.c"],
            optional=True,
            # -ffp-contract=off: no fused multiply-adds (the default on FMA targets such as
            # arm64), so that _plan.c's floats are Python's, each operation rounded apart
            extra_compile_args=["-O2", "-ffp-contract=off"],
            libraries=["m"] if os.name == "posix" else [],  # pow(), in _plan.c
        )
    ]
)
