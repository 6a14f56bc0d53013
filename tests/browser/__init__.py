"""Browser tests (a package, so that its conftest and the suite's have different names)."""
