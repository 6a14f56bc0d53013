"""The arena on Ray: the same report as a local run, the command line, Ray missing."""

from __future__ import annotations

import json
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from yaniv import cli
from yaniv.arena import run_arena
from yaniv.arena_ray import RAY_EXTRA_HINT, batch_size, check_reachable, ray_runner
from yaniv.cli import app
from yaniv.errors import YanivError
from yaniv.rules import RuleSet

#: The report's figures that are measured, not played: they differ between any two runs.
TIMINGS = ("decision_ms", "startup_ms")


def _played(report: dict[str, Any]) -> dict[str, Any]:
    """The report without its measured times."""
    out: dict[str, Any] = json.loads(json.dumps(report))
    for b in out["bots"]:
        for key in TIMINGS:
            b.pop(key)
    return out


def _flat(output: str) -> str:
    """CLI output with Rich's panel borders and line wrapping taken out."""
    return " ".join(output.replace("\u2502", " ").split())


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    """A local Ray instance with 2 CPUs for this module's tests, shut down after them."""
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="warning")
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.fixture
def waits(ray_cluster: Any, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts ``ray.wait`` calls: one per Ray task whose results came back."""
    calls: list[int] = []
    real = ray_cluster.wait

    def wait(refs: list[Any], **kwargs: Any) -> Any:
        calls.append(len(refs))
        return real(refs, **kwargs)

    monkeypatch.setattr(ray_cluster, "wait", wait)
    return calls


@pytest.mark.parametrize("batch", [None, 1, 4])
def test_ray_run_gives_the_local_report(waits: list[int], batch: int | None) -> None:
    rules = RuleSet.preset("slapdown")
    args: dict[str, Any] = {"seed": 5, "calibration": True}
    local = run_arena(["medium", "easy", "random"], 3, 11, rules, **args)
    seen: list[int] = []
    on_ray = run_arena(
        ["medium", "easy", "random"],
        3,
        11,
        rules,
        **args,
        runner=ray_runner(batch=batch),
        on_game=lambda r: seen.append(r["index"]),
    )
    assert _played(on_ray) == _played(local)
    assert sorted(seen) == list(range(11))  # every game reported once, as it came back
    size = batch or batch_size(11, 2)
    assert len(waits) == -(-11 // size)  # the games went out as Ray tasks of that size
    assert [b["decisions"] for b in on_ray["bots"]] == [b["decisions"] for b in local["bots"]]


def test_ray_report_differs_for_another_seed(ray_cluster: Any) -> None:
    one = run_arena(["easy", "random"], 2, 8, RuleSet(), seed=1, runner=ray_runner(batch=3))
    two = run_arena(["easy", "random"], 2, 8, RuleSet(), seed=2, runner=ray_runner(batch=3))
    assert _played(one) != _played(two)  # the comparison above can tell runs apart


def test_programs_play_on_ray_workers(ray_cluster: Any, tmp_path: Path) -> None:
    script = tmp_path / "yaniv_caller.py"
    script.write_text(
        'import sys\nfor _ in sys.stdin:\n    print(\'{"move": "yaniv"}\', flush=True)\n'
    )
    spec = f"cmd:{sys.executable} {script}"
    local = run_arena([spec, "easy"], 2, 4, RuleSet(), seed=3)
    on_ray = run_arena([spec, "easy"], 2, 4, RuleSet(), seed=3, runner=ray_runner(batch=2))
    assert _played(on_ray) == _played(local)
    assert on_ray["bots"][0]["errors"] > 0  # 'yaniv' is illegal above the threshold


def test_cli_ray_writes_the_local_report(ray_cluster: Any, tmp_path: Path) -> None:
    common = ["arena", "--bots", "easy,random", "--games", "6", "--seed", "4", "--rules", "quick"]
    local, on_ray = tmp_path / "local.json", tmp_path / "ray.json"
    result = CliRunner().invoke(app, [*common, "--json", str(local)])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(app, [*common, "--ray", "--ray-batch", "2", "--json", str(on_ray)])
    assert result.exit_code == 0, result.output
    assert "win rate" in result.output and "6/6" in result.output
    assert _played(json.loads(on_ray.read_text())) == _played(json.loads(local.read_text()))


@pytest.mark.parametrize(
    ("args", "option", "message"),
    [
        (["--ray", "--jobs", "2"], "--jobs", "drop --jobs"),
        (["--ray-batch", "0"], "--ray-batch", "at least 1"),
        (["--ray-address", " "], "--ray-address", "empty address"),
    ],
)
def test_cli_ray_bad_options_are_usage_errors(
    args: list[str], option: str, message: str, tmp_path: Path
) -> None:
    result = CliRunner().invoke(app, ["arena", "--games", "2", *args])
    assert result.exit_code == 2, result.output
    text = _flat(result.output)
    assert option in text and message in text
    assert "Traceback" not in result.output


def test_cli_unreachable_cluster_is_a_clear_error() -> None:
    pytest.importorskip("ray")  # without Ray, --ray-address says to install it (tested below)
    with socket.socket() as s:  # a port that was free a moment ago: nothing listens there
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    result = CliRunner().invoke(
        app, ["arena", "--games", "2", "--ray-address", f"127.0.0.1:{port}"]
    )
    assert result.exit_code == 2, result.output
    assert f"cannot reach the Ray cluster at '127.0.0.1:{port}'" in _flat(result.output)
    assert "Traceback" not in result.output
    with pytest.raises(YanivError, match="cannot reach"):
        check_reachable(f"ray://127.0.0.1:{port}")
    check_reachable("auto")  # Ray's own words are left to Ray


def test_cli_ray_without_ray_names_the_extra_before_any_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [m for m in sys.modules if m == "ray" or m.startswith("ray.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray: ImportError
    marker = tmp_path / "started"
    script = tmp_path / "marker.py"
    script.write_text(f"open({str(marker)!r}, 'w').close()\n")
    result = CliRunner().invoke(
        app, ["arena", "--bots", f"cmd:{sys.executable} {script},easy", "--games", "1", "--ray"]
    )
    assert result.exit_code == 2, result.output
    assert RAY_EXTRA_HINT in _flat(result.output) and "--ray needs Ray" in result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert not marker.exists()  # refused before a single game was played
    with pytest.raises(YanivError, match=r"pip install 'yaniv\[ray\]'"):
        ray_runner()


def test_batches_are_sized_for_the_cluster() -> None:
    assert batch_size(1, 2) == 1
    assert batch_size(80, 2) == 10  # 8 tasks for 2 CPUs
    assert batch_size(10**6, 2) == 50  # never more than 50 games a task
    assert batch_size(100, 0) == 25  # a cluster reporting no CPU still gets tasks


def test_ray_address_may_follow_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    """`yaniv arena --ray ADDRESS` (the console script) reaches the arena as --ray-address."""
    seen: list[list[str]] = []
    monkeypatch.setattr(sys, "argv", ["yaniv", "arena", "--ray", "10.1.2.3:6379", "--games", "2"])
    monkeypatch.setattr(cli, "app", lambda args: seen.append(args))
    cli.main()
    assert seen == [["arena", "--ray-address", "10.1.2.3:6379", "--games", "2"]]
