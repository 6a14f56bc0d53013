/* The bots' hot loops in C, each with its Python twin the reference (the same arithmetic in
 * the same order: the same floats, the same choices, the same games):
 *
 *   turn_plan            heuristics.turn_plan: the rollouts' discard-first turn, each legal
 *                        discard judged with its best draw after it (the bonus pull and the
 *                        feed penalty where asked)
 *   discards_after_draw  heuristics.best_discard_after_draw: the draw-first discards
 *   after_draw_choice    heuristics.after_draw_choice: the rollouts' draw-first discard
 *   draw_first_choice    heuristics.draw_first_choice: the rollouts' draw-first draw
 *   rollout_turn         rollout.rollout_turn at a turn start: the call, the expert's aims,
 *                        the plan (or the draw-first draw and discard), the moves through the
 *                        compiled apply
 *   rollout_turns        rollout.rollout_turns: rollout_turn one turn after another
 *   win_raw              utility._raw_chances: the game-level utility's sums
 *   skewed_front         search._skewed_to_front: a hand drawn by a belief's odds
 *
 * tests/test_rollout_plan.py and tests/test_master_utility.py hold each against its twin over
 * random positions, rule sets and 2 to 8 players. shed_max reads and fills heuristics.py's own
 * table of the rule variant, asking the lister on a miss. Where an input is not as the Python
 * loop takes it (a weight that is not a float, a discard of another type, a card out of
 * range, a game on the pure engine) a function returns None before changing anything and the
 * Python twin runs (rollout_turn's draw-first discard, after its draw is made, calls
 * rollout.discard_after_draw).
 *
 * Included by _core.c (one translation unit: it reads the Engine's slots, classify,
 * pickable_c and core_apply). */

/* What turn_plan reads of heuristics.py beyond the Engine (setup_plan, at its import). */
static struct {
    int ready;
    double dist[11];        /* DECK_DIST: a full deck's card values 0..10 */
    uint64_t combining[52]; /* _COMBINING: what each natural pairs with or sits next to */
    double bonus;           /* YANIV_BONUS */
    long value[54];         /* VALUE */
} PL;

static PyObject *core_setup_plan(PyObject *module, PyObject *args) {
    PyObject *dist, *combining, *value;
    double bonus;
    if (!PyArg_ParseTuple(args, "O!O!dO!", &PyTuple_Type, &dist, &PyTuple_Type, &combining,
                          &bonus, &PyTuple_Type, &value))
        return NULL;
    if (PyTuple_GET_SIZE(dist) != 11 || PyTuple_GET_SIZE(combining) != 52 ||
        PyTuple_GET_SIZE(value) != 54) {
        PyErr_SetString(PyExc_ValueError,
                        "setup_plan: 11 value shares, 52 combining masks, 54 card values");
        return NULL;
    }
    for (int v = 0; v < 11; v++) {
        PL.dist[v] = PyFloat_AsDouble(PyTuple_GET_ITEM(dist, v));
        if (PL.dist[v] == -1.0 && PyErr_Occurred()) return NULL;
    }
    for (int c = 0; c < 52; c++) {
        uint64_t mask;
        if (!mask_value(PyTuple_GET_ITEM(combining, c), &mask)) {
            PyErr_SetString(PyExc_ValueError, "setup_plan: a combining mask is not one of cards");
            return NULL;
        }
        PL.combining[c] = mask;
    }
    for (int c = 0; c < 54; c++)
        if (!small_int(PyTuple_GET_ITEM(value, c), 0, 11, &PL.value[c])) {
            PyErr_SetString(PyExc_ValueError, "setup_plan: a card value is not 0 to 10");
            return NULL;
        }
    PL.bonus = bonus;
    PL.ready = 1;
    Py_RETURN_NONE;
}

#define PLAN_ERROR -1
#define PLAN_OTHER -2 /* not as expected: the Python loop's */
#define SHED_LIMIT 500000 /* heuristics.shed_max's: the table is cleared past it */

/* heuristics.shed_max(hand) through its table ``shed``; ``lister`` gives the hand's discards
 * on a miss. The points, or PLAN_ERROR / PLAN_OTHER. */
static long plan_shed(PyObject *shed, PyObject *lister, uint64_t hand) {
    PyObject *key = PyLong_FromUnsignedLongLong(hand);
    if (key == NULL) return PLAN_ERROR;
    long most;
    PyObject *found = PyDict_GetItemWithError(shed, key); /* borrowed */
    if (found != NULL) {
        Py_DECREF(key);
        return small_int(found, 0, 1000000, &most) ? most : PLAN_OTHER;
    }
    if (PyErr_Occurred()) {
        Py_DECREF(key);
        return PLAN_ERROR;
    }
    PyObject *discards = PyObject_CallOneArg(lister, key);
    if (discards == NULL) {
        Py_DECREF(key);
        return PLAN_ERROR;
    }
    most = 0; /* max(..., default=0): no value is below 0 */
    if (!PyTuple_Check(discards)) most = PLAN_OTHER;
    for (Py_ssize_t i = 0; most >= 0 && i < PyTuple_GET_SIZE(discards); i++) {
        PyObject *d = PyTuple_GET_ITEM(discards, i);
        long v;
        if (Py_TYPE(d) != E.discard_t || !small_int(SLOT(d, d_value), 0, 1000000, &v))
            most = PLAN_OTHER;
        else if (v > most)
            most = v;
    }
    Py_DECREF(discards);
    if (most >= 0) {
        PyObject *v = PyLong_FromLong(most);
        if (v == NULL) most = PLAN_ERROR;
        else {
            if (PyDict_GET_SIZE(shed) > SHED_LIMIT) PyDict_Clear(shed);
            if (PyDict_SetItem(shed, key, v) < 0) most = PLAN_ERROR;
            Py_DECREF(v);
        }
    }
    Py_DECREF(key);
    return most;
}

/* heuristics._stock_eval over DECK_DIST: the expected hand_eval after a stock draw. */
static double plan_stock(long ms, long value, long t, double w) {
    double e = 0.0;
    for (long v = 0; v < 11; v++) {
        double p = PL.dist[v];
        if (p != 0.0) {
            double x = (double)(value + v) - w * (double)(ms > v ? ms : v);
            if (value + v <= t) x -= PL.bonus;
            e += p * x;
        }
    }
    return e;
}

/* heuristics.feed_penalty(d, rules, collects, weight), into ``out``; 0 or PLAN_*. */
static int plan_feed(PyObject *d, PyObject *rules, uint64_t collects, double weight,
                     double *out) {
    PyObject *cards = SLOT(d, d_cards);
    if (cards == NULL || !PyTuple_CheckExact(cards) || PyTuple_GET_SIZE(cards) == 0)
        return PLAN_OTHER;
    PyObject *picks;
    if (PyTuple_GET_SIZE(cards) == 1) {
        picks = Py_NewRef(cards);
    } else {
        int k = classify(cards, rules);
        PyObject *kind = k == -2 ? PyObject_CallFunctionObjArgs(E.classify, cards, rules, NULL)
                                 : PyLong_FromLong(k);
        if (kind == NULL) return PLAN_ERROR;
        long kv;
        int known = small_int(kind, -1, 3, &kv); /* BROKEN, SINGLE, SET, RUN */
        if (!known || kv == -1) { /* BROKEN: nothing to feed */
            Py_DECREF(kind);
            *out = 0.0; /* feed_penalty returns 0.0 itself, not times the weight */
            return known ? 0 : PLAN_OTHER;
        }
        picks = pickable_c(cards, kind, RULE(rules, pickup));
        Py_DECREF(kind);
        if (picks == NULL) return PLAN_ERROR;
    }
    double worst = 0.0;
    int rc = 0;
    if (!PyTuple_Check(picks)) rc = PLAN_OTHER;
    for (Py_ssize_t i = 0; rc == 0 && i < PyTuple_GET_SIZE(picks); i++) {
        long c;
        if (!small_int(PyTuple_GET_ITEM(picks, i), 0, 54, &c)) {
            rc = PLAN_OTHER;
            break;
        }
        double gain = (double)(4 - PL.value[c] > 0 ? 4 - PL.value[c] : 0) * 0.6;
        if (collects && (c >= 52 || (collects & PL.combining[c]))) gain += 2.5;
        if (gain > worst) worst = gain;
    }
    Py_DECREF(picks);
    *out = worst * weight;
    return rc;
}

/* The plan's inputs, read and checked. */
typedef struct {
    PyObject *discards, *lister, *shed, *rules;
    uint64_t hand, collects;
    long value, need, t, cards[54];
    Py_ssize_t npick;
    int stock_ok, feed;
    double w, worth;
} PlanIn;

/* The loop of turn_plan: the best discard (borrowed from ``in->discards``, NULL where there is
 * none), its draw (-1: the stock) and its judgement; 0 or PLAN_*. */
static int plan_loop(const PlanIn *in, double *best, PyObject **pick, long *draw) {
    *best = 1e9;
    *pick = NULL;
    *draw = -1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(in->discards); i++) {
        PyObject *d = PyTuple_GET_ITEM(in->discards, i);
        uint64_t mask;
        long shed_v;
        if (Py_TYPE(d) != E.discard_t || !mask_value(SLOT(d, d_mask), &mask) ||
            !small_int(SLOT(d, d_value), 0, 1000000, &shed_v))
            return PLAN_OTHER;
        uint64_t rest = in->hand ^ mask;
        long vr = in->value - shed_v, dr = -1;
        double b = 1e9;
        if (in->stock_ok) {
            long ms = plan_shed(in->shed, in->lister, rest);
            if (ms < 0) return (int)ms;
            b = plan_stock(ms, vr, in->t, in->w);
            if (in->need >= 0 && in->need - vr >= 0 && in->need - vr <= 10)
                b -= in->worth * PL.dist[in->need - vr];
        }
        for (Py_ssize_t j = 0; j < in->npick; j++) {
            long c = in->cards[j], v = vr + PL.value[c];
            long ms = plan_shed(in->shed, in->lister, rest | (uint64_t)1 << c);
            if (ms < 0) return (int)ms;
            double e = (double)v - in->w * (double)ms;
            if (v <= in->t) e -= PL.bonus;
            if (in->need >= 0 && v == in->need) e -= in->worth;
            if (e < b) {
                b = e;
                dr = c;
            }
        }
        if (in->feed) {
            double penalty;
            int rc = plan_feed(d, in->rules, in->collects, 1.0, &penalty);
            if (rc < 0) return rc;
            b += penalty;
        }
        if (b < *best) {
            *best = b;
            *pick = d;
            *draw = dr;
        }
    }
    return 0;
}

/* The pile cards that may be drawn, into ``in``; 0 where one is not a card. */
static int plan_pickable(PlanIn *in, PyObject *pickable) {
    if (!PyTuple_CheckExact(pickable) || PyTuple_GET_SIZE(pickable) > 54) return 0;
    in->npick = PyTuple_GET_SIZE(pickable);
    for (Py_ssize_t i = 0; i < in->npick; i++)
        if (!small_int(PyTuple_GET_ITEM(pickable, i), 0, 54, &in->cards[i])) return 0;
    return 1;
}

/* turn_plan(discards, lister, shed, pickable, rules, hand, value, stock_ok, w, need, worth,
 * collects, feed) -> (judgement, discard, draw), or None (the Python loop's). ``need`` -1:
 * no bonus pull. */
static PyObject *core_turn_plan(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 13) {
        PyErr_SetString(PyExc_TypeError, "turn_plan takes 13 arguments");
        return NULL;
    }
    PlanIn in = {.discards = args[0], .lister = args[1], .shed = args[2], .rules = args[4]};
    in.stock_ok = flag(args[7]);
    in.feed = flag(args[12]);
    if (!PL.ready || !E.ready || !PyTuple_Check(in.discards) || !PyDict_CheckExact(in.shed) ||
        !plan_pickable(&in, args[3]) || Py_TYPE(in.rules) != E.rules_t ||
        !mask_value(args[5], &in.hand) || !small_int(args[6], -1000000, 1000000, &in.value) ||
        in.stock_ok < 0 || !PyFloat_CheckExact(args[8]) ||
        !small_int(args[9], -1, 1000000, &in.need) || !PyFloat_CheckExact(args[10]) ||
        !mask_value(args[11], &in.collects) || in.feed < 0 ||
        !small_int(RULE(in.rules, threshold), -1000000, 1000000, &in.t))
        Py_RETURN_NONE;
    in.w = PyFloat_AS_DOUBLE(args[8]);
    in.worth = PyFloat_AS_DOUBLE(args[10]);
    double best;
    PyObject *pick;
    long draw;
    int rc = plan_loop(&in, &best, &pick, &draw);
    if (rc == PLAN_ERROR) return NULL;
    if (rc == PLAN_OTHER || pick == NULL) Py_RETURN_NONE; /* none: the Python loop says so */
    PyObject *judged = PyFloat_FromDouble(best);
    if (judged == NULL) return NULL;
    PyObject *drawn = draw < 0 ? Py_NewRef(Py_None) : PyLong_FromLong(draw);
    if (drawn == NULL) {
        Py_DECREF(judged);
        return NULL;
    }
    PyObject *out = tuple_of(3, judged, pick, drawn, NULL);
    Py_DECREF(judged);
    Py_DECREF(drawn);
    return out;
}

/* One discard of best_discard_after_draw: its judgement in ``e`` and 1, or 0 where it is
 * not judged (the whole hand, or the card just taken from the pile laid alone), or PLAN_*.
 * ``in`` gives the lister, shed table, rules, threshold, weight and the cards collected. */
static int judge_after_draw(const PlanIn *in, PyObject *d, uint64_t hand, long value,
                            long drawn, double feed_weight, double *e) {
    PyObject *cards;
    uint64_t mask;
    long shed_v, only;
    if (Py_TYPE(d) != E.discard_t || !mask_value(SLOT(d, d_mask), &mask) ||
        !small_int(SLOT(d, d_value), 0, 1000000, &shed_v) || (cards = SLOT(d, d_cards)) == NULL ||
        !PyTuple_CheckExact(cards))
        return PLAN_OTHER;
    if (mask == hand) return 0; /* a turn keeps a card */
    if (PyTuple_GET_SIZE(cards) == 1 && small_int(PyTuple_GET_ITEM(cards, 0), 0, 54, &only) &&
        only == drawn)
        return 0; /* the card just taken from the pile is not laid again */
    long v = value - shed_v, ms = plan_shed(in->shed, in->lister, hand ^ mask);
    if (ms < 0) return (int)ms;
    *e = (double)v - in->w * (double)ms;
    if (v <= in->t) *e -= PL.bonus;
    if (feed_weight != 0.0) {
        double penalty;
        int rc = plan_feed(d, in->rules, in->collects, feed_weight, &penalty);
        if (rc < 0) return rc;
        *e += penalty;
    }
    if (in->need >= 0) *e = *e - (v == in->need ? in->worth : 0.0); /* pulled_discards */
    return 1;
}

/* The arguments that discards_after_draw and after_draw_choice begin with (discards, lister,
 * shed, rules, hand, value, drawn, w, collects, feed_weight), read into ``in`` (no pull),
 * ``drawn`` and ``feed_weight``; 0 where one is not as the Python loop takes it. */
static int read_after_draw(PyObject *const *args, PlanIn *in, long *drawn, double *feed_weight) {
    in->discards = args[0];
    in->lister = args[1];
    in->shed = args[2];
    in->rules = args[3];
    if (!PL.ready || !E.ready || !PyTuple_Check(in->discards) || !PyDict_CheckExact(in->shed) ||
        Py_TYPE(in->rules) != E.rules_t || !mask_value(args[4], &in->hand) ||
        !small_int(args[5], -1000000, 1000000, &in->value) || !small_int(args[6], -1, 54, drawn) ||
        !PyFloat_CheckExact(args[7]) || !mask_value(args[8], &in->collects) ||
        !PyFloat_CheckExact(args[9]) ||
        !small_int(RULE(in->rules, threshold), -1000000, 1000000, &in->t))
        return 0;
    in->w = PyFloat_AS_DOUBLE(args[7]);
    in->need = -1;
    *feed_weight = PyFloat_AS_DOUBLE(args[9]);
    return 1;
}

/* discards_after_draw(discards, lister, shed, rules, hand, value, drawn, w, collects,
 * feed_weight) -> [(judgement, discard), ...] best first (a stable sort, as list.sort), or
 * None (the Python loop's): heuristics.best_discard_after_draw, the draw-first discard. */
static PyObject *core_discards_after_draw(PyObject *module, PyObject *const *args,
                                          Py_ssize_t nargs) {
    if (nargs != 10) {
        PyErr_SetString(PyExc_TypeError, "discards_after_draw takes 10 arguments");
        return NULL;
    }
    PlanIn in = {0};
    long drawn;
    double feed_weight;
    if (!read_after_draw(args, &in, &drawn, &feed_weight))
        Py_RETURN_NONE; /* no pull here: pulled_discards is Python's */
    Py_ssize_t n = PyTuple_GET_SIZE(in.discards), kept = 0;
    double *judged = PyMem_Malloc((n + 1) * sizeof *judged);
    PyObject **which = PyMem_Malloc((n + 1) * sizeof *which);
    PyObject *out = NULL;
    if (judged == NULL || which == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *d = PyTuple_GET_ITEM(in.discards, i);
        double e;
        int rc = judge_after_draw(&in, d, in.hand, in.value, drawn, feed_weight, &e);
        if (rc == PLAN_ERROR) goto done;
        if (rc == PLAN_OTHER) {
            out = Py_NewRef(Py_None);
            goto done;
        }
        if (!rc) continue;
        /* insertion in order, after its equals: list.sort's stable order */
        Py_ssize_t j = kept++;
        while (j > 0 && judged[j - 1] > e) {
            judged[j] = judged[j - 1];
            which[j] = which[j - 1];
            j--;
        }
        judged[j] = e;
        which[j] = d;
    }
    out = PyList_New(kept);
    for (Py_ssize_t i = 0; out != NULL && i < kept; i++) {
        PyObject *e = PyFloat_FromDouble(judged[i]);
        PyObject *pair = e == NULL ? NULL : tuple_of(2, e, which[i], NULL, NULL);
        Py_XDECREF(e);
        if (pair == NULL) Py_CLEAR(out);
        else PyList_SET_ITEM(out, i, pair);
    }
done:
    PyMem_Free(judged);
    PyMem_Free(which);
    return out;
}

/* The judgement of the best discard of ``hand`` (value ``value``) just after drawing
 * ``drawn``, as best_discard_after_draw's first entry (pulled_discards' where ``in->need``
 * >= 0), 1e9 where none may be laid; 0 or PLAN_*. */
static int after_draw_best(const PlanIn *in, uint64_t hand, long value, long drawn,
                           double feed_weight, double *out) {
    PyObject *key = PyLong_FromUnsignedLongLong(hand);
    if (key == NULL) return PLAN_ERROR;
    PyObject *discards = PyObject_CallOneArg(in->lister, key);
    Py_DECREF(key);
    if (discards == NULL) return PLAN_ERROR;
    int rc = PyTuple_Check(discards) ? 0 : PLAN_OTHER, any = 0;
    double best = 1e9;
    for (Py_ssize_t i = 0; rc == 0 && i < PyTuple_GET_SIZE(discards); i++) {
        double e;
        int judged = judge_after_draw(in, PyTuple_GET_ITEM(discards, i), hand, value, drawn,
                                      feed_weight, &e);
        if (judged < 0) rc = judged;
        else if (judged && (!any || e < best)) {
            best = e;
            any = 1;
        }
    }
    Py_DECREF(discards);
    *out = best;
    return rc;
}

/* The draw of heuristics.draw_first_options (``in->need`` -1) or of pulled_draw_first: the
 * first best in ``*chosen``, -1 for the stock, -2 where nothing may be drawn; 0 or PLAN_*. */
static int first_draw(const PlanIn *in, double feed_weight, long *chosen) {
    double chosen_e = 0.0;
    *chosen = -2; /* none yet */
    if (in->stock_ok) {
        double best = 1e9;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(in->discards); i++) {
            PyObject *d = PyTuple_GET_ITEM(in->discards, i);
            uint64_t mask;
            long shed_v;
            if (Py_TYPE(d) != E.discard_t || !mask_value(SLOT(d, d_mask), &mask) ||
                !small_int(SLOT(d, d_value), 0, 1000000, &shed_v))
                return PLAN_OTHER;
            if (mask == in->hand) continue;
            long vr = in->value - shed_v, ms = plan_shed(in->shed, in->lister, in->hand ^ mask);
            if (ms < 0) return (int)ms;
            double e = plan_stock(ms, vr, in->t, in->w);
            if (in->need >= 0 && in->need - vr >= 0 && in->need - vr <= 10)
                e -= in->worth * PL.dist[in->need - vr];
            if (e < best) best = e;
        }
        if (best == 1e9) { /* a single card: whatever is drawn, one of the two goes */
            long ms = plan_shed(in->shed, in->lister, in->hand);
            if (ms < 0) return (int)ms;
            best = plan_stock(ms, in->value, in->t, in->w);
        }
        *chosen = -1;
        chosen_e = best;
    }
    for (Py_ssize_t j = 0; j < in->npick; j++) {
        long c = in->cards[j];
        double e;
        int rc = after_draw_best(in, in->hand | (uint64_t)1 << c, in->value + PL.value[c], c,
                                 feed_weight, &e);
        if (rc < 0) return rc;
        if (*chosen == -2 || e < chosen_e) { /* list.sort's first of equals: the earliest */
            *chosen = c;
            chosen_e = e;
        }
    }
    return 0;
}

/* draw_first_choice(discards, lister, shed, pickable, rules, hand, value, stock_ok, w,
 * collects, feed_weight, need, worth) -> the draw of heuristics.draw_first_options (``need``
 * -1) or of pulled_draw_first: the first best, -1 for the stock; None (the Python's). */
static PyObject *core_draw_first_choice(PyObject *module, PyObject *const *args,
                                        Py_ssize_t nargs) {
    if (nargs != 13) {
        PyErr_SetString(PyExc_TypeError, "draw_first_choice takes 13 arguments");
        return NULL;
    }
    PlanIn in = {.discards = args[0], .lister = args[1], .shed = args[2], .rules = args[4]};
    in.stock_ok = flag(args[7]);
    if (!PL.ready || !E.ready || !PyTuple_Check(in.discards) || !PyDict_CheckExact(in.shed) ||
        !plan_pickable(&in, args[3]) || Py_TYPE(in.rules) != E.rules_t ||
        !mask_value(args[5], &in.hand) || !small_int(args[6], -1000000, 1000000, &in.value) ||
        in.stock_ok < 0 || !PyFloat_CheckExact(args[8]) || !mask_value(args[9], &in.collects) ||
        !PyFloat_CheckExact(args[10]) || !small_int(args[11], -1, 1000000, &in.need) ||
        !PyFloat_CheckExact(args[12]) ||
        !small_int(RULE(in.rules, threshold), -1000000, 1000000, &in.t))
        Py_RETURN_NONE;
    in.w = PyFloat_AS_DOUBLE(args[8]);
    in.worth = PyFloat_AS_DOUBLE(args[12]);
    long chosen;
    int rc = first_draw(&in, PyFloat_AS_DOUBLE(args[10]), &chosen);
    if (rc == PLAN_ERROR) return NULL;
    if (rc == PLAN_OTHER || chosen == -2) Py_RETURN_NONE; /* nothing to draw: the Python's */
    return PyLong_FromLong(chosen);
}

/* ------------------------------------------------------------------ rollout_turn
 *
 * rollout.py's rollout_turn at a turn start on the compiled engine: the call (by CALL_AT, or
 * judged by the quick chance), the expert's aims (the next seat's known cards, the bonus
 * pull), then the plan above (discard first) or the draw-first draw and the discard after it,
 * and the moves made through the compiled apply. Anything else (another phase, a game on the
 * pure engine, a slot not laid out as game.py lays it out) returns None before a move, and
 * rollout.py plays the turn in Python. */

/* What rollout_turn reads of rollout.py and heuristics.py beyond the plan's (setup_rollout). */
static struct {
    int ready;
    long call_at[12];  /* rollout.CALL_AT */
    double call_chance; /* rollout.CALL_CHANCE */
    double hazard[6];   /* heuristics.HAZARD */
    long pull_reach;    /* heuristics.PULL_REACH */
    double bonus_pull;  /* heuristics.BONUS_PULL */
    long most_unseen;   /* rollout._MOST_UNSEEN */
    PyObject *slaps, *phase_slap, *phase_discard, *s_halve, *s_subtract;
    PyObject *discard_after_draw; /* rollout.discard_after_draw: where C reads a slot amiss */
    Py_ssize_t r_bonus, r_targets, r_step, r_amount;
} RT;

static PyObject *core_setup_rollout(PyObject *module, PyObject *args) {
    PyTypeObject *rules_t;
    PyObject *call_at, *hazard, *slaps, *phase_slap, *phase_discard, *after_draw;
    double call_chance, bonus_pull;
    long pull_reach, most_unseen;
    if (!PyArg_ParseTuple(args, "O!O!dO!ldlO!OOO", &PyType_Type, &rules_t, &PyTuple_Type,
                          &call_at, &call_chance, &PyTuple_Type, &hazard, &pull_reach,
                          &bonus_pull, &most_unseen, &PyTuple_Type, &slaps, &phase_slap,
                          &phase_discard, &after_draw))
        return NULL;
    if (PyTuple_GET_SIZE(call_at) != 12 || PyTuple_GET_SIZE(hazard) != 6 ||
        PyTuple_GET_SIZE(slaps) != 54) {
        PyErr_SetString(PyExc_ValueError, "setup_rollout: 12 call values, 6 hazards, 54 slaps");
        return NULL;
    }
    for (int i = 0; i < 12; i++)
        if (!small_int(PyTuple_GET_ITEM(call_at, i), -1000000, 1000000, &RT.call_at[i])) {
            PyErr_SetString(PyExc_ValueError, "setup_rollout: CALL_AT holds whole numbers");
            return NULL;
        }
    for (int i = 0; i < 6; i++) {
        RT.hazard[i] = PyFloat_AsDouble(PyTuple_GET_ITEM(hazard, i));
        if (RT.hazard[i] == -1.0 && PyErr_Occurred()) return NULL;
    }
    if (offset_of(rules_t, "bonus", &RT.r_bonus) < 0 ||
        offset_of(rules_t, "bonus_targets", &RT.r_targets) < 0 ||
        offset_of(rules_t, "bonus_step", &RT.r_step) < 0 ||
        offset_of(rules_t, "bonus_amount", &RT.r_amount) < 0)
        return NULL;
    if (RT.s_halve == NULL && (RT.s_halve = PyUnicode_InternFromString("halve")) == NULL)
        return NULL;
    if (RT.s_subtract == NULL && (RT.s_subtract = PyUnicode_InternFromString("subtract")) == NULL)
        return NULL;
    RT.call_chance = call_chance;
    RT.pull_reach = pull_reach;
    RT.bonus_pull = bonus_pull;
    RT.most_unseen = most_unseen;
    Py_XSETREF(RT.slaps, Py_NewRef(slaps));
    Py_XSETREF(RT.phase_slap, Py_NewRef(phase_slap));
    Py_XSETREF(RT.phase_discard, Py_NewRef(phase_discard));
    Py_XSETREF(RT.discard_after_draw, Py_NewRef(after_draw));
    RT.ready = 1;
    Py_RETURN_NONE;
}

/* A whole number at ``list[i]``. */
static inline int list_long(PyObject *list, long i, long *out) {
    return small_int(PyList_GET_ITEM(list, i), -1000000000L, 1000000000L, out);
}

/* The points of a mask of cards. */
static inline long cards_value(uint64_t mask) {
    long v = 0;
    for (; mask; mask &= mask - 1) v += PL.value[ctz64(mask)];
    return v;
}

/* The seats' lists a rollout turn reads. */
typedef struct {
    long n, p;
    PyObject *hands, *values, *counts, *known, *out, *scores;
    int is_out[9];
    long counts_v[9];
    uint64_t known_v[9];
} Table;

static int read_table(PyObject *game, Table *tb) {
    if (!small_int(SLOT(game, n), 2, 9, &tb->n) ||
        !small_int(SLOT(game, to_move), 0, tb->n, &tb->p))
        return 0;
    tb->hands = SLOT(game, hands);
    tb->values = SLOT(game, values);
    tb->counts = SLOT(game, counts);
    tb->known = SLOT(game, known);
    tb->out = SLOT(game, out);
    tb->scores = SLOT(game, scores);
    PyObject *lists[6] = {tb->hands, tb->values, tb->counts, tb->known, tb->out, tb->scores};
    for (int i = 0; i < 6; i++)
        if (!is_list(lists[i]) || PyList_GET_SIZE(lists[i]) != tb->n) return 0;
    for (long s = 0; s < tb->n; s++) {
        PyObject *o = PyList_GET_ITEM(tb->out, s);
        if (o != Py_True && o != Py_False) return 0;
        tb->is_out[s] = o == Py_True;
        if (!list_long(tb->counts, s, &tb->counts_v[s]) ||
            !mask_value(PyList_GET_ITEM(tb->known, s), &tb->known_v[s]))
            return 0;
    }
    return 1;
}

/* rollout.quick_call_chance(g, p), the tables ``above`` being rollout._above(jokers); -1.0
 * where a table is not as expected. */
static double quick_chance(const Table *tb, long mine, PyObject *above) {
    double chance = 1.0;
    for (long s = 0; s < tb->n; s++) {
        if (s == tb->p || tb->is_out[s]) continue;
        long unseen = tb->counts_v[s] - popcount64(tb->known_v[s]);
        long x = mine - cards_value(tb->known_v[s]);
        if (x < 0) continue;
        if (unseen < 0) return -1.0;
        long row = unseen < RT.most_unseen ? unseen : RT.most_unseen;
        PyObject *table = PyTuple_GET_ITEM(above, row);
        if (!PyTuple_CheckExact(table)) return -1.0;
        if (x < PyTuple_GET_SIZE(table)) {
            PyObject *v = PyTuple_GET_ITEM(table, x);
            if (!PyFloat_CheckExact(v)) return -1.0;
            chance *= PyFloat_AS_DOUBLE(v);
        } else {
            chance *= 0.0;
        }
    }
    return chance;
}

/* A rule's value by an offset of setup_rollout's (borrowed; NULL where unset). */
#define RT_RULE(rules, off) (*(PyObject **)((char *)(rules) + RT.off))

/* heuristics.pull_target(rules, score, others, BONUS_PULL) for seat p: 1 and the aim in
 * ``need``/``worth``, 0 for none, -1 where the rules are not as expected. */
static int pull_of(const Table *tb, PyObject *rules, long t, int above, long *need,
                   double *worth) {
    long score, amount = 0, aim = -1;
    PyObject *bonus = RT_RULE(rules, r_bonus);
    if (!list_long(tb->scores, tb->p, &score) || score < 0 || bonus == NULL ||
        !PyUnicode_CheckExact(bonus))
        return -1;
    if (PyUnicode_Compare(bonus, RT.s_halve) == 0) { /* heuristics.bonus_need */
        PyObject *targets = RT_RULE(rules, r_targets);
        if (targets == NULL || !PyTuple_CheckExact(targets)) return -1;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(targets); i++) {
            long target;
            if (!small_int(PyTuple_GET_ITEM(targets, i), 0, 1000000000L, &target)) return -1;
            if (0 < target - score && target - score <= RT.pull_reach) {
                aim = target - score;
                amount = target - target / 2;
                break;
            }
        }
    } else if (PyUnicode_Compare(bonus, RT.s_subtract) == 0) {
        long step;
        if (!small_int(RT_RULE(rules, r_step), 1, 1000000000L, &step) ||
            !small_int(RT_RULE(rules, r_amount), -1000000000L, 1000000000L, &amount))
            return -1;
        if (step - score % step <= RT.pull_reach) aim = step - score % step;
    }
    if (aim < 0) return 0;
    double stay = 1.0;
    for (long s = 0; s < tb->n; s++) {
        if (s == tb->p || tb->is_out[s]) continue;
        if (cards_value(tb->known_v[s]) > t && !above) continue;
        long size = tb->counts_v[s];
        if (size < 0) return -1;
        stay *= 1 - RT.hazard[size < 5 ? size : 5];
    }
    *need = aim;
    *worth = RT.bonus_pull * (double)amount * (1 - stay);
    return 1;
}

/* Make ``move`` through the compiled apply: 0, or -1 with the error set. */
static int rollout_apply(PyObject *game, PyObject *move) {
    PyObject *both[2] = {game, move};
    PyObject *r = core_apply(NULL, both, 2);
    Py_XDECREF(r);
    return r == NULL ? -1 : 0;
}

/* heuristics.after_draw_choice: the first of best_discard_after_draw's list, pulled as
 * pulled_discards re-sorts it where ``in->need`` >= 0 (the least pulled judgement, then the
 * least unpulled, then the lister's order: two stable sorts); borrowed from the lister's tuple
 * ``discards`` into ``*pick``, NULL where none may be laid; 0 or PLAN_*. */
static int after_draw_pick(const PlanIn *in, PyObject *discards, uint64_t hand, long value,
                           long drawn, double feed_weight, PyObject **pick) {
    PlanIn plain = *in;
    plain.need = -1; /* judged unpulled; the pull is added below, as pulled_discards adds it */
    double best_pulled = 0.0, best = 0.0;
    *pick = NULL;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(discards); i++) {
        PyObject *d = PyTuple_GET_ITEM(discards, i);
        double e;
        int rc = judge_after_draw(&plain, d, hand, value, drawn, feed_weight, &e);
        if (rc < 0) return rc;
        if (!rc) continue;
        long v = value - PyLong_AsLong(SLOT(d, d_value)); /* checked by judge_after_draw */
        double pulled = in->need >= 0 && v == in->need ? e - in->worth : e;
        if (*pick == NULL || pulled < best_pulled || (pulled == best_pulled && e < best)) {
            *pick = d;
            best_pulled = pulled;
            best = e;
        }
    }
    return 0;
}

/* after_draw_choice(discards, lister, shed, rules, hand, value, drawn, w, collects,
 * feed_weight, need, worth) -> the discard of heuristics.after_draw_choice, or None (the
 * Python's: an input not as it takes it, or no discard to lay). */
static PyObject *core_after_draw_choice(PyObject *module, PyObject *const *args,
                                        Py_ssize_t nargs) {
    if (nargs != 12) {
        PyErr_SetString(PyExc_TypeError, "after_draw_choice takes 12 arguments");
        return NULL;
    }
    PlanIn in = {0};
    long drawn;
    double feed_weight;
    if (!read_after_draw(args, &in, &drawn, &feed_weight) ||
        !small_int(args[10], -1, 1000000, &in.need) || !PyFloat_CheckExact(args[11]))
        Py_RETURN_NONE;
    in.worth = PyFloat_AS_DOUBLE(args[11]);
    PyObject *pick;
    int rc = after_draw_pick(&in, in.discards, in.hand, in.value, drawn, feed_weight, &pick);
    if (rc == PLAN_ERROR) return NULL;
    if (rc == PLAN_OTHER || pick == NULL) Py_RETURN_NONE;
    return Py_NewRef(pick);
}

/* A draw-first turn after the call is declined: the draw of first_draw, then the discard of
 * after_draw_pick (rollout.py's own where C cannot judge it: the draw is made by then).
 * True, None before any move, or NULL with the error set. */
static PyObject *draw_first_turn(PyObject *game, PlanIn *in, long p, int like_expert,
                                 PyObject *w) {
    long card;
    int rc = first_draw(in, (double)in->feed, &card);
    if (rc == PLAN_ERROR) return NULL;
    if (rc == PLAN_OTHER || card == -2) Py_RETURN_NONE;
    if (rollout_apply(game, card < 0 ? E.draw_stock : PyTuple_GET_ITEM(E.draws, card)) < 0)
        return NULL;
    PyObject *hands = SLOT(game, hands), *values = SLOT(game, values), *pick = NULL;
    uint64_t hand;
    long value, drawn;
    rc = PLAN_OTHER;
    if (SLOT(game, phase) == RT.phase_discard && is_list(hands) && is_list(values) &&
        PyList_GET_SIZE(hands) > p && PyList_GET_SIZE(values) > p &&
        mask_value(PyList_GET_ITEM(hands, p), &hand) && list_long(values, p, &value) &&
        small_int(SLOT(game, drawn), -1, 54, &drawn)) {
        PyObject *key = PyList_GET_ITEM(hands, p);
        PyObject *discards = PyObject_CallOneArg(in->lister, key);
        if (discards == NULL) return NULL;
        if (PyTuple_Check(discards))
            rc = after_draw_pick(in, discards, hand, value, drawn, (double)in->feed, &pick);
        Py_XINCREF(pick); /* the move below may drop the lister's table */
        Py_DECREF(discards);
    }
    if (rc == PLAN_ERROR) return NULL;
    if (rc == PLAN_OTHER || pick == NULL) { /* rollout.py's: it says why where none is legal */
        Py_XDECREF(pick);
        PyObject *r = PyObject_CallFunctionObjArgs(RT.discard_after_draw, game, w,
                                                   like_expert ? Py_True : Py_False, NULL);
        if (r == NULL) return NULL;
        Py_DECREF(r);
        Py_RETURN_TRUE;
    }
    rc = rollout_apply(game, pick);
    Py_DECREF(pick);
    if (rc < 0) return NULL;
    Py_RETURN_TRUE;
}

/* rollout_turn(game, me, w_me, w_others, judged_calls, like_expert, per_opponent_calls,
 * above, shed) -> True (the turn is made), or None before any move (rollout.py's then).
 * ``above`` is rollout._above(the rules' jokers), ``shed`` heuristics' table of the rules. */
static PyObject *core_rollout_turn(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 9) {
        PyErr_SetString(PyExc_TypeError, "rollout_turn takes 9 arguments");
        return NULL;
    }
    PyObject *game = args[0], *above_t = args[7];
    long me;
    int judged = flag(args[4]), like_expert = flag(args[5]), per_opponent = flag(args[6]);
    if (!PL.ready || !RT.ready || !E.ready || Py_TYPE(game) != E.game ||
        SLOT(game, fast) != Py_True || SLOT(game, phase) != E.phase_start ||
        !small_int(args[1], -1, 9, &me) || !PyFloat_CheckExact(args[2]) ||
        !PyFloat_CheckExact(args[3]) || judged < 0 || like_expert < 0 || per_opponent < 0 ||
        !PyTuple_CheckExact(above_t) || PyTuple_GET_SIZE(above_t) <= RT.most_unseen ||
        !PyDict_CheckExact(args[8]))
        Py_RETURN_NONE;
    PlanIn in = {.shed = args[8], .rules = SLOT(game, rules)};
    PyObject *rules = in.rules;
    Table tb;
    int first = RULE(rules, draw_first) == Py_True;
    if (!rules_ok(rules) || !read_table(game, &tb) ||
        !table_ok(game, tb.n) || !list_long(tb.values, tb.p, &in.value) ||
        !mask_value(PyList_GET_ITEM(tb.hands, tb.p), &in.hand) ||
        !small_int(RULE(rules, threshold), -1000000, 1000000, &in.t) ||
        !plan_pickable(&in, SLOT(game, pickable)))
        Py_RETURN_NONE;
    long p = tb.p, opponents = 0, fewest = -1;
    int above = RULE(rules, above) == Py_True;
    for (long s = 0; s < tb.n; s++) {
        if (tb.is_out[s]) continue;
        opponents += s != p;
        if (s != p && (fewest < 0 || tb.counts_v[s] < fewest)) fewest = tb.counts_v[s];
    }
    if (fewest < 0 || (!in.npick && !PyList_GET_SIZE(SLOT(game, stock))))
        Py_RETURN_NONE; /* no opponent, or nothing to draw: rollout.py's to say so */
    /* the call: can_yaniv() and a hand at or under the threshold */
    if (in.value <= in.t) {
        int call;
        if (judged) {
            double needed = per_opponent /* rollout.call_chance_needed */
                                ? pow(RT.call_chance, (double)(opponents > 1 ? opponents : 1))
                                : RT.call_chance;
            double chance = in.hand ? quick_chance(&tb, in.value, above_t) : 1.0;
            if (chance < 0) Py_RETURN_NONE;
            call = !in.hand || chance >= needed;
        } else {
            long bar = RT.call_at[fewest < 11 ? fewest : 11];
            call = in.value <= (bar < in.t ? bar : in.t);
        }
        if (call) {
            if (rollout_apply(game, E.yaniv) < 0) return NULL;
            Py_RETURN_TRUE;
        }
    }
    in.w = PyFloat_AS_DOUBLE(p == me ? args[2] : args[3]);
    in.stock_ok = PyList_GET_SIZE(SLOT(game, stock)) > 0;
    in.need = -1;
    in.worth = 0.0;
    in.collects = 0;
    in.feed = like_expert;
    if (like_expert) {
        long nxt = (p + 1) % tb.n;
        while (tb.is_out[nxt]) nxt = (nxt + 1) % tb.n;
        in.collects = tb.known_v[nxt];
        int aimed = pull_of(&tb, rules, in.t, above, &in.need, &in.worth);
        if (aimed < 0) Py_RETURN_NONE;
    }
    in.lister = SLOT(game, discards);
    if (in.lister == NULL) Py_RETURN_NONE;
    PyObject *key = PyList_GET_ITEM(tb.hands, p);
    in.discards = PyObject_CallOneArg(in.lister, key);
    if (in.discards == NULL) return NULL;
    if (first) {
        PyObject *made = draw_first_turn(game, &in, p, like_expert, args[p == me ? 2 : 3]);
        Py_DECREF(in.discards);
        return made;
    }
    PyObject *result = NULL;
    double best;
    PyObject *pick;
    long draw;
    int rc = PyTuple_Check(in.discards) ? plan_loop(&in, &best, &pick, &draw) : PLAN_OTHER;
    if (rc == PLAN_ERROR) goto done;
    if (rc == PLAN_OTHER || pick == NULL) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    Py_INCREF(pick); /* the moves below may drop the lister's table */
    rc = rollout_apply(game, pick);
    Py_DECREF(pick);
    if (rc < 0) goto done;
    if (draw < 0 && !in.stock_ok) draw = in.cards[0];
    if (rollout_apply(game, draw < 0 ? E.draw_stock : PyTuple_GET_ITEM(E.draws, draw)) < 0)
        goto done;
    if (SLOT(game, phase) == RT.phase_slap) {
        long drawn;
        if (!small_int(SLOT(game, drawn), 0, 54, &drawn)) {
            PyErr_SetString(PyExc_RuntimeError, "rollout_turn: a slap without a drawn card");
            goto done;
        }
        if (rollout_apply(game, PyTuple_GET_ITEM(RT.slaps, drawn)) < 0) goto done;
    }
    result = Py_NewRef(Py_True);
done:
    Py_DECREF(in.discards);
    return result;
}

/* rollout_turns(game, me, w_me, w_others, judged_calls, like_expert, per_opponent_calls,
 * above, shed, turns) -> the count of whole turns made by rollout_turn, one after another, up
 * to ``turns``: it stops where one returns None before its first move (the round over, or a
 * turn left to rollout.py), and rollout.rollout_turns plays on from there. */
static PyObject *core_rollout_turns(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 10) {
        PyErr_SetString(PyExc_TypeError, "rollout_turns takes 10 arguments");
        return NULL;
    }
    long turns, made = 0;
    if (!small_int(args[9], 0, 1000000000L, &turns)) return PyLong_FromLong(0);
    while (made < turns) {
        PyObject *r = core_rollout_turn(module, args, 9);
        if (r == NULL) return NULL;
        Py_DECREF(r);
        if (r == Py_None) break;
        made++;
    }
    return PyLong_FromLong(made);
}

/* ------------------------------------------------------------------ skewed_front
 *
 * search.py's _skewed_to_front: a set of k of cards[start:] moved to the front of that slice,
 * drawn with chance in proportion to the product of their odds (conditional Poisson sampling
 * by the elementary symmetric sums, the same sums in the same order, and the same draws of the
 * generator's ``random``, so the same floats and the same worlds). */

/* skewed_front(cards, start, k, odds, random) -> True (done), False (the odds leave fewer than
 * k possible cards: nothing drawn), or None where an input is not as the Python takes it. */
static PyObject *core_skewed_front(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "skewed_front takes 5 arguments");
        return NULL;
    }
    PyObject *cards = args[0], *odds = args[3], *random = args[4];
    long start, k;
    if (!PyList_CheckExact(cards) || !PyList_CheckExact(odds) || PyList_GET_SIZE(odds) != 54 ||
        !small_int(args[1], 0, 55, &start) || start > PyList_GET_SIZE(cards) ||
        !small_int(args[2], 0, 55, &k) || PyList_GET_SIZE(cards) > 54)
        Py_RETURN_NONE;
    Py_ssize_t u = PyList_GET_SIZE(cards) - start;
    if (k > u) Py_RETURN_FALSE; /* e[0][k] is 0: fewer cards than places */
    double w[54], e[55][55];
    PyObject *rest[54];
    for (Py_ssize_t j = 0; j < u; j++) {
        long c;
        rest[j] = PyList_GET_ITEM(cards, start + j);
        if (!small_int(rest[j], 0, 54, &c) || !PyFloat_CheckExact(PyList_GET_ITEM(odds, c)))
            Py_RETURN_NONE;
        w[j] = PyFloat_AS_DOUBLE(PyList_GET_ITEM(odds, c));
    }
    /* e[j][m]: the sum over every m-set of rest[j:] of the product of its odds */
    for (long m = 0; m <= k; m++) e[u][m] = m == 0 ? 1.0 : 0.0;
    for (Py_ssize_t j = u - 1; j >= 0; j--) {
        e[j][0] = 1.0;
        for (long m = 1; m <= k; m++) e[j][m] = e[j + 1][m] + w[j] * e[j + 1][m - 1];
    }
    if (!(e[0][k] > 0)) Py_RETURN_FALSE;
    PyObject *chosen[54], *left[54];
    Py_ssize_t nc = 0, nl = 0;
    long need = k;
    for (Py_ssize_t j = 0; j < u; j++) {
        int take = 0;
        if (need) {
            PyObject *r = PyObject_CallNoArgs(random);
            if (r == NULL) return NULL;
            double x = PyFloat_AsDouble(r);
            Py_DECREF(r);
            if (x == -1.0 && PyErr_Occurred()) return NULL;
            take = x * e[j][need] < w[j] * e[j + 1][need - 1];
        }
        if (take) {
            chosen[nc++] = rest[j];
            need--;
        } else {
            left[nl++] = rest[j];
        }
    }
    if (PyList_GET_SIZE(cards) != start + u) { /* ``random`` changed the list: no order to keep */
        PyErr_SetString(PyExc_RuntimeError, "skewed_front: the cards changed while drawn");
        return NULL;
    }
    for (Py_ssize_t j = 0; j < u; j++)
        if (PyList_GET_ITEM(cards, start + j) != rest[j]) {
            PyErr_SetString(PyExc_RuntimeError, "skewed_front: the cards changed while drawn");
            return NULL;
        }
    /* the list's own references move: the same items, another order */
    for (Py_ssize_t j = 0; j < nc; j++) PyList_SET_ITEM(cards, start + j, chosen[j]);
    for (Py_ssize_t j = 0; j < nl; j++) PyList_SET_ITEM(cards, start + nc + j, left[j]);
    Py_RETURN_TRUE;
}

/* ------------------------------------------------------------------ win_raw
 *
 * utility.py's _raw_chances: per player still in, the chance of being the last one under the
 * limit (a shared last round counted half), from each one's chance of being over it after t
 * rounds. The same products in the same order (the others in seat order) and the same sums:
 * the same floats (tests/test_master_utility.py holds the two together). */

#define WIN_MOST_ROUNDS 100000

static PyObject *core_win_raw(PyObject *module, PyObject *fails) {
    if (!PyList_CheckExact(fails) || PyList_GET_SIZE(fails) < 2 || PyList_GET_SIZE(fails) > 9)
        Py_RETURN_NONE;
    Py_ssize_t k = PyList_GET_SIZE(fails), h = -1;
    for (Py_ssize_t i = 0; i < k; i++) {
        PyObject *row = PyList_GET_ITEM(fails, i);
        if (!PyTuple_CheckExact(row) || (h >= 0 && PyTuple_GET_SIZE(row) != h)) Py_RETURN_NONE;
        h = PyTuple_GET_SIZE(row);
    }
    if (h < 1 || h > WIN_MOST_ROUNDS) Py_RETURN_NONE;
    double *f = PyMem_Malloc((size_t)(k + 1) * (size_t)h * sizeof *f), *prods = f + k * h;
    if (f == NULL) return PyErr_NoMemory();
    PyObject *out = NULL;
    for (Py_ssize_t i = 0; i < k; i++)
        for (Py_ssize_t t = 0; t < h; t++) {
            PyObject *v = PyTuple_GET_ITEM(PyList_GET_ITEM(fails, i), t);
            if (!PyFloat_CheckExact(v)) {
                out = Py_NewRef(Py_None);
                goto done;
            }
            f[i * h + t] = PyFloat_AS_DOUBLE(v);
        }
    out = PyTuple_New(k);
    if (out == NULL) goto done;
    for (Py_ssize_t i = 0; i < k; i++) {
        int first = 1;
        for (Py_ssize_t j = 0; j < k; j++) {
            if (j == i) continue;
            for (Py_ssize_t t = 0; t < h; t++)
                prods[t] = first ? f[j * h + t] : prods[t] * f[j * h + t];
            first = 0;
        }
        const double *mine = f + i * h;
        double before = 0.0, total = 0.0;
        for (Py_ssize_t t = 1; t < h; t++) {
            double last = prods[t] - before;
            if (last > 0) total += last * ((1.0 - mine[t]) + 0.5 * (mine[t] - mine[t - 1]));
            before = prods[t];
        }
        PyObject *v = PyFloat_FromDouble(total);
        if (v == NULL) {
            Py_CLEAR(out);
            goto done;
        }
        PyTuple_SET_ITEM(out, i, v);
    }
done:
    PyMem_Free(f);
    return out;
}
