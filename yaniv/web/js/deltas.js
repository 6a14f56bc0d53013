// State deltas (yaniv/server/deltas.py says why and how): a `delta` message applied to the last
// state of its stream gives the next state, the same as a client without deltas is sent.

function grown(old, part) {
  const kept = Array.isArray(old) ? old.slice(0, part.keep) : [];
  return kept.concat(part.add);
}

function without(object, keys) {
  const out = { ...object };
  for (const key of keys || []) delete out[key];
  return out;
}

/** The state that `change` (a delta message) makes of `old` (a new object; `old` unchanged). */
export function applyDelta(old, change) {
  const next = { ...without(old, change.unset), ...(change.set || {}) };
  next.type = "state";
  next.stream = change.stream;
  next.seq = change.seq;
  if (change.story) next.story = grown(old.story, change.story);
  if (change.view) {
    const base = old.view || {};
    const view = { ...without(base, change.view.unset), ...(change.view.set || {}) };
    if (change.view.events) view.events = grown(base.events, change.view.events);
    next.view = view;
  }
  return next;
}
