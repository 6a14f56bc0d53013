"""State deltas: what changed in a connection's ``state`` since the last one it was sent.

A ``state`` message carries the whole round (every event, the story), so its size and the
server's cost of encoding and sending it grow with the round; most of it is the same as the
last state's. A client that asks for deltas (``/ws/CODE?deltas=1``) is sent the first state
whole, with a stream id and a sequence number, and from then on ``delta`` messages:

    {"type": "delta", "stream": "9f2c...", "base": 4, "seq": 5,
     "set": {"seats": [...], "clock": {...}},           # top-level fields replaced
     "unset": [],                                        # top-level fields removed
     "view": {"set": {"to_move": 1, ...}, "unset": [],  # the view's fields, likewise
              "events": {"keep": 12, "add": [...]}},     # the first 12 events, then these
     "story": {"keep": 5, "add": ["..."]}}                # the last lines rewritten too

Applied to the state numbered ``base`` of the same stream (``apply_delta``), it gives the state
numbered ``seq``, equal to the one a client without deltas is sent at that moment. The web
app's socket (yaniv/web/js/socket.js) does the same in JavaScript. A delta of another stream
is stale (from before a reconnect or a move of the room); one whose base is not the client's
last number means a state was missed: the client sends ``{"type": "resync"}`` and is sent the
whole state again.
"""

from __future__ import annotations

from typing import Any

#: The lists that grow within a round, sent as the part appended to the last one.
APPENDED_TOP = "story"
APPENDED_VIEW = "events"
#: How many items at the end of such a list may differ before it is sent whole.
REWRITTEN = 4


def _appended(old: Any, new: list[Any]) -> dict[str, Any]:
    """``new`` as the first items of ``old`` kept and the rest added: as many kept as the two
    share from the start (the story's last lines are rewritten as a turn goes on: a discard's
    line gains its draw, a slap; a new round's events share none)."""
    if not isinstance(old, list):
        return {"keep": 0, "add": new}
    k = min(len(old), len(new))
    # What changed is at the end: step back past it, then check the rest at once (the events
    # are shared dicts, so that comparison is mostly identity).
    stop = max(0, k - REWRITTEN)
    while k > stop and old[k - 1] != new[k - 1]:
        k -= 1
    if old[:k] != new[:k]:
        k = 0
    return {"keep": k, "add": new[k:]}


def _fields(
    old: dict[str, Any], new: dict[str, Any], appended: str
) -> tuple[dict[str, Any], list[str], dict[str, Any] | None]:
    """The fields of ``new`` that differ from ``old``'s, those gone, and the list ``appended``
    as what was added to it (None when it did not change)."""
    changed = {k: v for k, v in new.items() if k != appended and (k not in old or old[k] != v)}
    gone = [k for k in old if k not in new]
    grown = None
    if appended in new and new[appended] != old.get(appended):
        grown = _appended(old.get(appended), new[appended])
    elif appended in old and appended not in new:
        gone.append(appended)
    return changed, gone, grown


def delta(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any] | None:
    """The delta that makes state ``old`` into state ``new`` (without the stream and
    numbers), or None when they are equal."""
    changed, gone, story = _fields(old, new, APPENDED_TOP)
    view_changed = "view" in changed or "view" in gone
    changed.pop("view", None)
    if not (changed or gone or story or view_changed):
        return None
    out: dict[str, Any] = {"type": "delta", "set": changed, "unset": gone}
    if story is not None:
        out["story"] = story
    if view_changed:
        old_view, new_view = old.get("view"), new.get("view")
        if isinstance(old_view, dict) and isinstance(new_view, dict):
            fields, view_gone, events = _fields(old_view, new_view, APPENDED_VIEW)
            view: dict[str, Any] = {"set": fields, "unset": view_gone}
            if events is not None:
                view["events"] = events
            out["view"] = view
        else:  # the table started (or went): the view whole
            out["set"]["view"] = new_view
    return out


def apply_delta(old: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    """The state that ``change`` (a ``delta`` message) makes of ``old`` (a new dict; ``old`` is
    left as it was). The stream and numbers are the caller's to check."""
    new = {k: v for k, v in old.items() if k not in change.get("unset", ())}
    new.update(change.get("set", {}))
    new.pop("base", None)
    new["type"] = "state"
    for key in ("stream", "seq"):
        if key in change:
            new[key] = change[key]
    if "story" in change:
        new["story"] = _grown(old.get("story"), change["story"])
    view = change.get("view")
    if view is not None:
        base = old.get("view") or {}
        merged = {k: v for k, v in base.items() if k not in view.get("unset", ())}
        merged.update(view.get("set", {}))
        if "events" in view:
            merged["events"] = _grown(base.get("events"), view["events"])
        new["view"] = merged
    return new


def _grown(old: Any, part: dict[str, Any]) -> list[Any]:
    kept = old[: part["keep"]] if isinstance(old, list) else []
    return [*kept, *part["add"]]
