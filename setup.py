"""The optional compiled core (the rest of the build is in pyproject.toml).

``optional=True``: where the extension cannot be built (no C compiler, no Python headers) the
build warns and goes on, and the package runs on its pure-Python engine.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "yaniv._core",
            ["yaniv/_core.c"],
            # included by _core.c
            depends=["yaniv/_playout.c", "yaniv/_envstep.c", "yaniv/_plan.c"],
            optional=True,
            extra_compile_args=["-O2"],
        )
    ]
)
