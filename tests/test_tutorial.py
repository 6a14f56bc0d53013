"""The interactive tutorial's API (yaniv/server/tutorial.py): a fixed first round whose every
step is checked by the engine and against the step; the whole round played through; bad
moves refused in words; and the script kept honest (every written-out move is legal)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402

from yaniv.server import tutorial  # noqa: E402
from yaniv.server.app import create_app  # noqa: E402


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    path: Path = tmp_path_factory.mktemp("tutorial") / "yaniv.sqlite3"
    with TestClient(create_app(f"sqlite:///{path}", web_dir=None)) as c:
        yield c


def post(app: TestClient, body: dict[str, Any]) -> Any:
    return app.post("/api/tutorial", json=body)


def test_the_start_is_the_fixed_deal(app: TestClient) -> None:
    answer = post(app, {"step": 0, "names": ["Me", "Dana", "Avi"]})
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["expect"] == "pair" and data["step"] == 0 and data["steps"] == 7
    view = data["view"]
    assert view["seat"] == 0 and view["to_move"] == 0 and view["phase"] == "start"
    assert sorted(view["hand"]) == sorted(["7H", "7S", "AD", "2D", "KC"])
    assert view["pile"] == [["3D"]] and view["hand_sizes"] == [5, 5, 5]
    assert view["names"] == ["Me", "Dana", "Avi"]
    assert data["hand_value"] == 27
    assert "QH" not in str(view["hand"])  # the others' cards are not in the learner's view


def test_the_whole_round_step_by_step(app: TestClient) -> None:
    step = 0
    data: dict[str, Any] = {}
    for name, move in tutorial.STEPS:
        answer = post(app, {"step": step, "move": move})
        assert answer.status_code == 200, (name, answer.text)
        data = answer.json()
        step = data["step"]
    assert data["expect"] == "done" and step == len(tutorial.STEPS)
    result = data["view"]["result"]
    assert result["kind"] == "yaniv" and result["caller"] == 0
    assert result["hand_values"] == [6, 21, 17] and result["points"] == [0, 21, 17]
    assert data["view"]["phase"] == "round_over"


def test_the_yaniv_step_says_what_the_others_hold(app: TestClient) -> None:
    data = post(app, {"step": 6}).json()
    assert data["expect"] == "yaniv" and data["hand_value"] == 6
    assert data["view"]["hand_sizes"] == [2, 3, 3]
    assert "yaniv" in data["view"]["legal_moves"]


def test_a_discard_in_another_order_is_the_same_step(app: TestClient) -> None:
    answer = post(app, {"step": 2, "move": "discard 3D AD 2D"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["expect"] == "stock"


@pytest.mark.parametrize(
    ("step", "move", "code", "words"),
    [
        (0, "discard 7H KC", "illegal", "discard 7H KC"),  # not a set
        (0, "yaniv", "illegal", "the hand is worth 27"),
        (0, "discard QH", "illegal", "QH"),  # a card the learner does not hold
        (0, "discard KC", "not_the_step", "asks for: discard 7H 7S"),
        (1, "draw stock", "not_the_step", "asks for: draw 3D"),
        (3, "draw TH", "not_the_step", "asks for: draw stock"),
        (0, "shuffle", "illegal", "shuffle"),
        (7, "yaniv", "done", "the tutorial's round is over"),
    ],
)
def test_a_wrong_move_is_refused_in_words(
    app: TestClient, step: int, move: str, code: str, words: str
) -> None:
    answer = post(app, {"step": step, "move": move})
    assert answer.status_code == 400, answer.text
    assert answer.json()["code"] == code
    assert words in answer.json()["error"]


@pytest.mark.parametrize(
    "body",
    [{"step": -1}, {"step": 8}, {"step": "1"}, {"step": 0, "names": ["A"]},
     {"step": 0, "extra": 1}, {"step": 0, "names": ["A", "", "C"]}],
)  # fmt: skip
def test_a_bad_request_is_refused_in_words(app: TestClient, body: dict[str, Any]) -> None:
    answer = post(app, body)
    assert answer.status_code == 400
    assert answer.json()["error"]


def test_every_written_out_move_is_legal_where_it_is_played() -> None:
    game = tutorial.start()
    for k, (_, move) in enumerate(tutorial.STEPS):
        assert game.to_move == 0
        game.play(move, seat=0)
        for other in tutorial.OTHERS.get(k, ()):
            assert game.to_move != 0
            game.play(other)
    assert game.result is not None and game.result.winner == 0
