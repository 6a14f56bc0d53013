// The move log in the reader's language: the round's events (view.events, the JSON forms of
// yaniv/events.py) told as a line per turn, as yaniv/narration.py tells them in English.
// Pure: the catalogue lookup (t) and the card names (card) are passed in, so Node can check it.
// Names are user text: they go into the lines as plain strings, which the page shows as text.

/**
 * The lines of a round's story, oldest first.
 * view: {names, seat (null for a spectator), rules: {draw_first}, events: [...]};
 * t(key, params): a catalogue message; card(code): a card's printed form ("7♥");
 * tn(key, count, params): a message by the count's plural form (i18n.js's tn), by default
 * the "other" form.
 */
export function narrate(view, t, card, tn) {
  const plural = tn || ((key, count, params) => t(`${key}#other`, { count, ...(params || {}) }));
  const you = view.seat === null || view.seat === undefined ? null : view.seat;
  const drawFirst = Boolean(view.rules && view.rules.draw_first);
  const names = view.names || [];
  // a name is isolated (U+2068 ... U+2069) so that a Latin name in a Hebrew line, or the
  // reverse, does not reorder the words around it
  const name = (seat) => `\u2068${typeof names[seat] === "string" ? names[seat] : String(seat)}\u2069`;
  const list = (seats) => seats.map(name).join(t("list.separator"));
  const lines = []; // {seat, parts: [{kind, ...}], done, text}

  const tell = (line) => {
    const parts = line.parts.map((part) => {
      switch (part.kind) {
        case "discard": return t("log.discard", { cards: part.cards.map(card).join(" ") });
        case "take": return t("log.take", { card: card(part.card) });
        case "stock": return part.card ? t("log.stock_card", { card: card(part.card) })
          : t("log.stock");
        case "slap": return t("log.slap", { card: card(part.card) });
        case "keep": return t("log.keep");
        case "yaniv": return t("log.yaniv");
        default: return "";
      }
    }).filter(Boolean);
    let actions = parts[0] || "";
    for (let i = 1; i < parts.length; i += 1) {
      const then = line.parts[i].kind === "slap" || line.parts[i].kind === "keep";
      actions += (then ? t("log.then") : t("log.and")) + parts[i];
    }
    // a finished turn ends with a full stop, unless its last words are a call ("Yaniv!")
    const last = line.parts[line.parts.length - 1];
    const stop = line.done && !(last && last.kind === "yaniv");
    // a move the computer made for the person (away, or out of time) is told as its own
    const stand = line.parts.some((part) => part.by === "stand_in") ? "stand_in_" : "";
    const key = line.seat === you
      ? (stop ? `log.you_${stand}turn_done` : `log.you_${stand}turn`)
      : (stop ? `log.${stand}turn_done` : `log.${stand}turn`);
    line.text = t(key, { name: name(line.seat), actions });
  };

  const add = (seat, part, ends, by) => {
    if (by) part.by = by;
    let line = lines[lines.length - 1];
    if (!line || line.done || line.seat !== seat) {
      line = { seat, parts: [], done: false, text: "" };
      lines.push(line);
    }
    line.parts.push(part);
    line.done = ends;
    tell(line);
  };

  const note = (text) => lines.push({ seat: -1, parts: [], done: true, text });

  let last = null; // the event read before this one
  for (const event of view.events || []) {
    const before = last;
    last = event;
    switch (event.type) {
      case "deal":
        note(event.starter === you
          ? t("log.deal_you", { round: event.round, card: card(event.up) })
          : t("log.deal", { round: event.round, name: name(event.starter), card: card(event.up) }));
        break;
      case "discard":
        add(event.seat, { kind: "discard", cards: event.cards || [] }, drawFirst, event.by);
        break;
      case "draw":
        add(event.seat, event.source === "stock" ? { kind: "stock", card: event.card || null }
          : { kind: "take", card: event.card }, !drawFirst, event.by);
        break;
      case "slap":
      case "pass": {
        const line = [...lines].reverse().find((x) => x.seat === event.seat);
        if (line) {
          line.parts.push(event.type === "slap" ? { kind: "slap", card: event.card, by: event.by }
            : { kind: "keep", by: event.by });
          tell(line);
        }
        break;
      }
      case "refill":
        note(plural("log.refill", event.count));
        break;
      case "showdown": {
        const r = event.result || {};
        if (before && before.type === "slap" && before.seat === r.caller) {
          // a slap that emptied the hand is the Yaniv (slap_empty_hand = yaniv_now, R22)
          note(r.caller === you ? t("log.no_card_left_you")
            : t("log.no_card_left", { name: name(r.caller) }));
        } else {
          add(r.caller, { kind: "yaniv" }, true, event.by);
        }
        note(headline(r, you, t, name, list));
        break;
      }
      default:
        break;
    }
  }
  return lines.map((line) => line.text);
}

/** The round's result in one line: "Yaniv! Dana wins the round with 5." and the game's end. */
export function headline(r, you, t, name, list) {
  const mine = r.caller === you;
  const value = (r.hand_values || [])[r.caller];
  let text;
  if (r.kind === "yaniv") {
    text = mine ? t("log.win_you", { value }) : t("log.win", { name: name(r.caller), value });
  } else if (r.kind === "assaf") {
    const by = list(r.assafers || []);
    text = mine ? t("log.assaf_you", { by }) : t("log.assaf", { name: name(r.caller), by });
  } else {
    text = mine ? t("log.deliberate_you") : t("log.deliberate", { name: name(r.caller) });
  }
  if ((r.game_winners || []).length) {
    text += t("log.game_over", { names: list(r.game_winners) });
  }
  return text;
}
