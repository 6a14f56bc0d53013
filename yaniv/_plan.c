/* turn_plan: heuristics.py's turn_plan loop in C, the rollouts' discard-first turn.
 *
 * For each legal discard, the draw after it (a pile card, or the stock judged by the expected
 * hand) that leaves the best hand by hand_eval, with the bonus pull and the feed penalty where
 * asked: the same arithmetic in the same order as the Python loop, so the same floats and the
 * same choice (tests/test_rollout_plan.py holds the two together over random hands, piles and
 * rule sets). shed_max reads and fills heuristics.py's own table of the rule variant, asking
 * the game's lister on a miss. Where an input is not as the Python loop takes it (a weight that
 * is not a float, a discard of another type, a card out of range) it returns None and
 * turn_plan runs the Python loop.
 *
 * Included by _core.c (one translation unit: it reads the Engine's slots, classify and
 * pickable_c). */

/* What turn_plan reads of heuristics.py beyond the Engine (setup_plan, at its import). */
static struct {
    int ready;
    double dist[11];        /* DECK_DIST: a full deck's card values 0..10 */
    uint64_t combining[52]; /* _COMBINING: what each natural pairs with or sits next to */
    double bonus;           /* YANIV_BONUS */
    long value[54];         /* VALUE */
    PyObject *zero;         /* 0, the key of a single card's kind */
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
    if (PL.zero == NULL && (PL.zero = PyLong_FromLong(0)) == NULL) return NULL;
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

/* turn_plan(discards, lister, shed, pickable, rules, hand, value, stock_ok, w, need, worth,
 * collects, feed) -> (judgement, discard, draw), or None (the Python loop's). ``need`` -1:
 * no bonus pull. */
static PyObject *core_turn_plan(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 13) {
        PyErr_SetString(PyExc_TypeError, "turn_plan takes 13 arguments");
        return NULL;
    }
    PyObject *discards = args[0], *lister = args[1], *shed = args[2], *pickable = args[3],
             *rules = args[4];
    uint64_t hand, collects;
    long value, need, t, cards[54];
    int stock_ok = flag(args[7]), feed = flag(args[12]);
    if (!PL.ready || !E.ready || !PyTuple_Check(discards) || !PyDict_CheckExact(shed) ||
        !PyTuple_CheckExact(pickable) || PyTuple_GET_SIZE(pickable) > 54 ||
        Py_TYPE(rules) != E.rules_t || !mask_value(args[5], &hand) ||
        !small_int(args[6], -1000000, 1000000, &value) || stock_ok < 0 ||
        !PyFloat_CheckExact(args[8]) || !small_int(args[9], -1, 1000000, &need) ||
        !PyFloat_CheckExact(args[10]) || !mask_value(args[11], &collects) || feed < 0 ||
        !small_int(RULE(rules, threshold), -1000000, 1000000, &t))
        Py_RETURN_NONE;
    double w = PyFloat_AS_DOUBLE(args[8]), worth = PyFloat_AS_DOUBLE(args[10]);
    Py_ssize_t npick = PyTuple_GET_SIZE(pickable);
    for (Py_ssize_t i = 0; i < npick; i++)
        if (!small_int(PyTuple_GET_ITEM(pickable, i), 0, 54, &cards[i])) Py_RETURN_NONE;
    double best = 1e9;
    PyObject *pick = NULL;
    long draw = -1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(discards); i++) {
        PyObject *d = PyTuple_GET_ITEM(discards, i);
        uint64_t mask;
        long shed_v;
        if (Py_TYPE(d) != E.discard_t || !mask_value(SLOT(d, d_mask), &mask) ||
            !small_int(SLOT(d, d_value), 0, 1000000, &shed_v))
            Py_RETURN_NONE;
        uint64_t rest = hand ^ mask;
        long vr = value - shed_v, dr = -1;
        double b = 1e9;
        if (stock_ok) {
            long ms = plan_shed(shed, lister, rest);
            if (ms == PLAN_ERROR) return NULL;
            if (ms == PLAN_OTHER) Py_RETURN_NONE;
            b = plan_stock(ms, vr, t, w);
            if (need >= 0 && need - vr >= 0 && need - vr <= 10) b -= worth * PL.dist[need - vr];
        }
        for (Py_ssize_t j = 0; j < npick; j++) {
            long c = cards[j], v = vr + PL.value[c];
            long ms = plan_shed(shed, lister, rest | (uint64_t)1 << c);
            if (ms == PLAN_ERROR) return NULL;
            if (ms == PLAN_OTHER) Py_RETURN_NONE;
            double e = (double)v - w * (double)ms;
            if (v <= t) e -= PL.bonus;
            if (need >= 0 && v == need) e -= worth;
            if (e < b) {
                b = e;
                dr = c;
            }
        }
        if (feed) {
            double penalty;
            int rc = plan_feed(d, rules, collects, 1.0, &penalty);
            if (rc == PLAN_ERROR) return NULL;
            if (rc == PLAN_OTHER) Py_RETURN_NONE;
            b += penalty;
        }
        if (b < best) {
            best = b;
            pick = d;
            draw = dr;
        }
    }
    if (pick == NULL) Py_RETURN_NONE; /* no legal discard: the Python loop says so */
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

/* discards_after_draw(discards, lister, shed, rules, hand, value, drawn, w, collects,
 * feed_weight) -> [(judgement, discard), ...] best first (a stable sort, as list.sort), or
 * None (the Python loop's): heuristics.best_discard_after_draw, the draw-first discard. */
static PyObject *core_discards_after_draw(PyObject *module, PyObject *const *args,
                                          Py_ssize_t nargs) {
    if (nargs != 10) {
        PyErr_SetString(PyExc_TypeError, "discards_after_draw takes 10 arguments");
        return NULL;
    }
    PyObject *discards = args[0], *lister = args[1], *shed = args[2], *rules = args[3];
    uint64_t hand, collects;
    long value, drawn, t;
    if (!PL.ready || !E.ready || !PyTuple_Check(discards) || !PyDict_CheckExact(shed) ||
        Py_TYPE(rules) != E.rules_t || !mask_value(args[4], &hand) ||
        !small_int(args[5], -1000000, 1000000, &value) || !small_int(args[6], -1, 54, &drawn) ||
        !PyFloat_CheckExact(args[7]) || !mask_value(args[8], &collects) ||
        !PyFloat_CheckExact(args[9]) || !small_int(RULE(rules, threshold), -1000000, 1000000, &t))
        Py_RETURN_NONE;
    double w = PyFloat_AS_DOUBLE(args[7]), feed_weight = PyFloat_AS_DOUBLE(args[9]);
    Py_ssize_t n = PyTuple_GET_SIZE(discards), kept = 0;
    double *judged = PyMem_Malloc((n + 1) * sizeof *judged);
    PyObject **which = PyMem_Malloc((n + 1) * sizeof *which);
    PyObject *out = NULL;
    if (judged == NULL || which == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *d = PyTuple_GET_ITEM(discards, i), *cards;
        uint64_t mask;
        long shed_v, only;
        if (Py_TYPE(d) != E.discard_t || !mask_value(SLOT(d, d_mask), &mask) ||
            !small_int(SLOT(d, d_value), 0, 1000000, &shed_v) ||
            (cards = SLOT(d, d_cards)) == NULL || !PyTuple_CheckExact(cards)) {
            out = Py_NewRef(Py_None);
            goto done;
        }
        if (mask == hand) continue; /* a turn keeps a card */
        if (PyTuple_GET_SIZE(cards) == 1 && small_int(PyTuple_GET_ITEM(cards, 0), 0, 54, &only) &&
            only == drawn)
            continue; /* the card just taken from the pile is not laid again */
        long v = value - shed_v;
        long ms = plan_shed(shed, lister, hand ^ mask);
        if (ms == PLAN_ERROR) goto done;
        if (ms == PLAN_OTHER) {
            out = Py_NewRef(Py_None);
            goto done;
        }
        double e = (double)v - w * (double)ms;
        if (v <= t) e -= PL.bonus;
        if (feed_weight != 0.0) {
            double penalty;
            int rc = plan_feed(d, rules, collects, feed_weight, &penalty);
            if (rc == PLAN_ERROR) goto done;
            if (rc == PLAN_OTHER) {
                out = Py_NewRef(Py_None);
                goto done;
            }
            e += penalty;
        }
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
