/* play_out: a game played on to its end (or a move limit) by a fixed policy, all in C.
 *
 * The twin of playout.py's pure loop, which plays the same moves through Game.apply: the same
 * policies, the same generator (splitmix64), the same legal moves in the same order (the
 * game's own lister), the same pickup (R10), refills and deals (game.py's seeded shuffle) and
 * game.py's own scorer at each showdown. The position is copied out of the Game into C arrays
 * and the game is left as it was. Where a game is not one this plays (draw-first turns,
 * slapdown, a recorded stock order, a slot not laid out as game.py lays it out) it returns
 * None and playout.py plays the pure loop: tests/test_playout.py holds the two to the same
 * moves over random rule sets and 2-8 players.
 *
 * Included by _core.c (one translation unit: it reads the same Engine, MT and Lister). */

enum { PO_START, PO_DRAW, PO_ROUND_OVER, PO_GAME_OVER };
enum { PO_RANDOM, PO_GREEDY };
enum { K_SINGLE = 0, K_SET = 1, K_RUN = 2, K_BROKEN = -1 };
#define PO_GROUP 24 /* the most cards of a group this plays (a hand is at most 20 cards) */

/* What play_out reads beyond the Engine's slots (setup_playout, at game.py's import). */
static struct {
    int ready;
    Py_ssize_t seed, round_no, refill_no, script, result;
    PyObject *round_over, *game_over; /* Phase's members */
} PO;

#define PO_SLOT(obj, name) (*(PyObject **)((char *)(obj) + PO.name))

typedef struct {
    long n, threshold;
    int above, pickup, js, pair, in_run; /* in_run: 0 anywhere, 1 never, 2 gaps_only */
    long max_set, run_naturals;
    int value[54];
    uint64_t hands[8];
    long values[8], counts[8];
    int out[8];
    long long scores[8], winners[8];
    long n_winners;
    int stock[64], stock_n; /* the top card last */
    int gcards[64][PO_GROUP], gsize[64], gkind[64], groups; /* the pile, oldest group first */
    int pick[PO_GROUP], pick_n; /* the cards the seat to move may take after its discard */
    long to_move, phase, round_no, refill_no;
    uint64_t rng;
    PyObject *game, *lister, *scorer, *key_of, *record;
} Sim;

/* splitmix64, as playout.py's SplitMix64. */
static inline uint64_t po_next(Sim *s) {
    uint64_t z = (s->rng += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* An index below ``n`` (n < 2**11): the top 53 bits of a draw, times n, over 2**53. */
static inline Py_ssize_t po_below(Sim *s, Py_ssize_t n) {
    return (Py_ssize_t)(((po_next(s) >> 11) * (uint64_t)n) >> 53);
}

/* discards.classify on card ints (the rules read once, at the start). */
static int po_classify(const Sim *s, const int *card, int n) {
    int naturals = 0, first = -1;
    if (n == 1) return K_SINGLE;
    for (int i = 0; i < n; i++)
        if (card[i] < 52) {
            naturals++;
            if (first < 0) first = i;
        }
    if (!naturals) return n == 2 && s->pair ? K_SET : K_BROKEN;
    int rank = card[first] % 13 + 1, same = 1;
    for (int i = 0; i < n; i++)
        if (card[i] < 52 && card[i] % 13 + 1 != rank) same = 0;
    if (same && (naturals == n || s->js)) return s->max_set && n > s->max_set ? K_BROKEN : K_SET;
    if (n < 3 || naturals < s->run_naturals) return K_BROKEN;
    if (s->in_run == 1 && naturals != n) return K_BROKEN;
    int suit = card[first] / 13, low = card[first] % 13 + 1 - first;
    if (low < 1 || low + n - 1 > 13) return K_BROKEN;
    for (int i = 0; i < n; i++)
        if (card[i] < 52 && (card[i] / 13 != suit || card[i] % 13 + 1 != low + i)) return K_BROKEN;
    if (s->in_run == 2 && (card[0] >= 52 || card[n - 1] >= 52)) return K_BROKEN;
    return K_RUN;
}

/* game.py's _end_turn(p) with discards.pickable (R10): pickable_c's cases, on ints. */
static void po_end_turn(Sim *s, long p) {
    long nxt = (p + 1) % s->n;
    while (s->out[nxt]) nxt = (nxt + 1) % s->n;
    const int top = s->groups - 1, size = s->gsize[top], kind = s->gkind[top];
    const int *g = s->gcards[top];
    s->pick_n = 0;
    if (size == 1) {
        s->pick[s->pick_n++] = g[0];
    } else if (kind == K_BROKEN || s->pickup == 0 || (s->pickup == 2 && kind == K_RUN)) {
        s->pick[s->pick_n++] = g[0];
        s->pick[s->pick_n++] = g[size - 1];
    } else if (kind == K_SET) {
        for (int i = 0; i < size; i++) s->pick[s->pick_n++] = g[i];
    } else if (s->pickup == 1) {
        s->pick[s->pick_n++] = g[size - 1];
    } else { /* any: a joker inside a run can never be taken */
        s->pick[s->pick_n++] = g[0];
        for (int i = 1; i < size - 1; i++)
            if (g[i] < 52) s->pick[s->pick_n++] = g[i];
        s->pick[s->pick_n++] = g[size - 1];
    }
    s->to_move = nxt;
    s->phase = PO_START;
}

/* random.Random(text).shuffle of ints, given the int random.seed makes of the text. */
static int po_shuffle(Sim *s, int *cards, int n) {
    PyObject *key_o = PyObject_CallFunction(s->key_of, "Oll", PO_SLOT(s->game, seed), s->round_no,
                                            s->refill_no);
    if (key_o == NULL) return -1;
    if (!PyLong_CheckExact(key_o) || _PyLong_Sign(key_o) < 0) {
        Py_DECREF(key_o);
        PyErr_SetString(PyExc_TypeError, "play_out: a shuffle key is a natural int");
        return -1;
    }
    int64_t bits = (int64_t)_PyLong_NumBits(key_o);
    size_t words = bits <= 0 ? 1 : (size_t)((bits - 1) / 32 + 1);
    uint32_t key[64];
    unsigned char *bytes = (unsigned char *)key;
    if (bits < 0 || words > 64) {
        Py_DECREF(key_o);
        PyErr_SetString(PyExc_ValueError, "play_out: a shuffle key of more than 2048 bits");
        return -1;
    }
#if PY_VERSION_HEX >= 0x030D0000
    int rc = PyLong_AsNativeBytes(key_o, bytes, (Py_ssize_t)words * 4,
                                  Py_ASNATIVEBYTES_LITTLE_ENDIAN |
                                      Py_ASNATIVEBYTES_UNSIGNED_BUFFER) < 0
                 ? -1
                 : 0;
#else
    int rc = _PyLong_AsByteArray((PyLongObject *)key_o, bytes, words * 4, 1, 0);
#endif
    Py_DECREF(key_o);
    if (rc < 0) return -1;
    for (size_t w = 0; w < words; w++)
        key[w] = (uint32_t)bytes[4 * w] | (uint32_t)bytes[4 * w + 1] << 8 |
                 (uint32_t)bytes[4 * w + 2] << 16 | (uint32_t)bytes[4 * w + 3] << 24;
    MT mt;
    mt_init_by_array(&mt, key, words);
    for (int i = n - 1; i > 0; i--) {
        uint64_t bound = (uint64_t)i + 1, r;
        int k = 64 - __builtin_clzll(bound);
        do r = mt_next(&mt) >> (32 - k); while (r >= bound);
        int a = cards[i];
        cards[i] = cards[r];
        cards[r] = a;
    }
    return 0;
}

/* game.py's _refill (R11): the pile but its top group becomes the new, shuffled stock. */
static int po_refill(Sim *s) {
    int cards[64], n = 0;
    if (s->groups < 2) return 0;
    for (int g = 0; g < s->groups - 1; g++)
        for (int i = 0; i < s->gsize[g]; i++) cards[n++] = s->gcards[g][i];
    s->refill_no++;
    if (po_shuffle(s, cards, n) < 0) return -1;
    for (int i = 0; i < n; i++) s->stock[i] = cards[n - 1 - i]; /* shuffled[0] on top */
    s->stock_n = n;
    memcpy(s->gcards[0], s->gcards[s->groups - 1], sizeof s->gcards[0]);
    s->gsize[0] = s->gsize[s->groups - 1];
    s->gkind[0] = s->gkind[s->groups - 1];
    s->groups = 1;
    return 0;
}

/* game.py's _deal_round(starter) from the seed (R4). */
static int po_deal(Sim *s, long starter, long hand_size, long jokers) {
    int cards[64], n = 52 + (int)jokers, k = 0;
    for (int i = 0; i < n; i++) cards[i] = i;
    s->round_no++;
    s->refill_no = 0;
    if (po_shuffle(s, cards, n) < 0) return -1;
    for (long p = 0; p < s->n; p++) {
        s->hands[p] = 0;
        s->values[p] = 0;
        s->counts[p] = 0;
        if (s->out[p]) continue;
        for (long j = 0; j < hand_size; j++, k++) {
            s->hands[p] |= (uint64_t)1 << cards[k];
            s->values[p] += s->value[cards[k]];
        }
        s->counts[p] = hand_size;
    }
    s->groups = 1;
    s->gcards[0][0] = cards[k];
    s->gsize[0] = 1;
    s->gkind[0] = K_SINGLE;
    s->stock_n = 0;
    for (int i = n - 1; i > k; i--) s->stock[s->stock_n++] = cards[i]; /* cards[k + 1] on top */
    po_end_turn(s, (starter - 1 + s->n) % s->n);
    return 0;
}

static int po_record(Sim *s, long p, PyObject *move) {
    if (s->record == NULL) return 0;
    PyObject *seat = PyLong_FromLong(p);
    if (seat == NULL) return -1;
    PyObject *entry = tuple_of(2, seat, move, NULL, NULL);
    Py_DECREF(seat);
    if (entry == NULL) return -1;
    int rc = PyList_Append(s->record, entry);
    Py_DECREF(entry);
    return rc;
}

/* A Python list of n C values. */
static PyObject *po_list(const long long *v, long n, int as_bool) {
    PyObject *list = PyList_New(n);
    if (list == NULL) return NULL;
    for (long i = 0; i < n; i++) {
        PyObject *x = as_bool ? PyBool_FromLong((long)v[i]) : PyLong_FromLongLong(v[i]);
        if (x == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, x);
    }
    return list;
}

/* The showdown (R14-R20) by game.py's scorer; then the next round's deal, unless it is over. */
static int po_showdown(Sim *s, long caller, long hand_size, long jokers) {
    long long out[8], values[8];
    for (long i = 0; i < s->n; i++) {
        out[i] = s->out[i];
        values[i] = s->values[i];
    }
    PyObject *scores = po_list(s->scores, s->n, 0), *outs = po_list(out, s->n, 1);
    PyObject *vals = po_list(values, s->n, 0), *who = PyLong_FromLong(caller), *scored = NULL;
    if (scores != NULL && outs != NULL && vals != NULL && who != NULL)
        scored = PyObject_CallFunctionObjArgs(s->scorer, SLOT(s->game, rules), scores, outs, vals,
                                              who, NULL);
    Py_XDECREF(who);
    Py_XDECREF(scores);
    Py_XDECREF(outs);
    Py_XDECREF(vals);
    if (scored == NULL) return -1;
    int rc = -1;
    PyObject *new_scores = PyObject_GetAttrString(scored, "scores");
    PyObject *new_out = new_scores ? PyObject_GetAttrString(scored, "out") : NULL;
    PyObject *winners = new_out ? PyObject_GetAttrString(scored, "game_winners") : NULL;
    PyObject *starter = winners ? PyObject_GetAttrString(scored, "next_starter") : NULL;
    if (starter == NULL) goto done;
    if (!PyTuple_Check(new_scores) || !PyTuple_Check(new_out) || !PyTuple_Check(winners) ||
        PyTuple_GET_SIZE(new_scores) != s->n || PyTuple_GET_SIZE(new_out) != s->n) {
        PyErr_SetString(PyExc_TypeError, "play_out: the scorer's result is not a RoundScore");
        goto done;
    }
    for (long i = 0; i < s->n; i++) {
        s->scores[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(new_scores, i));
        int o = PyObject_IsTrue(PyTuple_GET_ITEM(new_out, i));
        if ((s->scores[i] == -1 && PyErr_Occurred()) || o < 0) goto done;
        s->out[i] = o;
    }
    if (PyTuple_GET_SIZE(winners) > s->n) {
        PyErr_SetString(PyExc_TypeError, "play_out: the scorer's winners are not seats");
        goto done;
    }
    s->n_winners = (long)PyTuple_GET_SIZE(winners);
    for (long i = 0; i < s->n_winners; i++) {
        s->winners[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(winners, i));
        if (s->winners[i] == -1 && PyErr_Occurred()) goto done;
    }
    if (PyTuple_GET_SIZE(winners) > 0 || starter == Py_None) {
        s->phase = PyTuple_GET_SIZE(winners) > 0 ? PO_GAME_OVER : PO_ROUND_OVER;
        rc = 0;
        goto done;
    }
    long next;
    if (!small_int(starter, 0, s->n, &next)) {
        PyErr_SetString(PyExc_TypeError, "play_out: the scorer's next starter is not a seat");
        goto done;
    }
    rc = po_deal(s, next, hand_size, jokers);
done:
    Py_DECREF(scored);
    Py_XDECREF(new_scores);
    Py_XDECREF(new_out);
    Py_XDECREF(winners);
    Py_XDECREF(starter);
    return rc;
}

/* Whether a hand's only discards are its single cards, listed in card order: compose's first
 * case (no jokers, no two cards of a rank, no three in a row of a suit), under any rules. */
static inline int singles_only(uint64_t hand) {
    if (hand >> 52) return 0;
    uint64_t fold = hand | hand >> 26;
    return popcount64((fold | fold >> 13) & SUIT_MASK) == popcount64(hand) &&
           !(hand & hand >> 1 & hand >> 2 & RUN_STARTS);
}

/* A single card's discard, as the lister lists it (a hand of singles only, compose's first
 * case, served without the lister's table). */
static int po_single(Sim *s, int policy, int yaniv, long hand_size, long jokers) {
    const long p = s->to_move;
    uint64_t hand = s->hands[p], rest = hand;
    int card = -1;
    if (policy == PO_RANDOM) {
        Py_ssize_t i = po_below(s, popcount64(hand) + yaniv) - yaniv;
        if (i >= 0) {
            while (i--) rest &= rest - 1;
            card = ctz64(rest);
        }
    } else if (!yaniv) {
        for (int best = -1; rest; rest &= rest - 1) {
            int c = ctz64(rest);
            if (s->value[c] > best) {
                best = s->value[c];
                card = c;
            }
        }
    }
    if (card < 0) {
        if (po_record(s, p, E.yaniv) < 0) return -1;
        return po_showdown(s, p, hand_size, jokers);
    }
    if (po_record(s, p, PyTuple_GET_ITEM(((Lister *)s->lister)->singles, card)) < 0) return -1;
    const int g = s->groups++;
    s->gcards[g][0] = card;
    s->gsize[g] = 1;
    s->gkind[g] = K_SINGLE;
    s->hands[p] ^= (uint64_t)1 << card;
    s->values[p] -= s->value[card];
    s->counts[p] -= 1;
    s->phase = PO_DRAW;
    return 0;
}

/* The start of a turn: a Yaniv call or a discard, by the policy. */
static int po_turn(Sim *s, int policy, long hand_size, long jokers) {
    const long p = s->to_move;
    int yaniv = s->values[p] <= s->threshold || s->above;
    if (Py_TYPE(s->lister) == &ListerType && s->hands[p] && singles_only(s->hands[p]))
        return po_single(s, policy, yaniv, hand_size, jokers);
    PyObject *hand = PyLong_FromUnsignedLongLong(s->hands[p]);
    if (hand == NULL) return -1;
    PyObject *list = NULL;
    if (Py_TYPE(s->lister) == &ListerType) { /* its table first, without a call */
        list = PyDict_GetItemWithError(((Lister *)s->lister)->table, hand);
        Py_XINCREF(list);
    }
    if (list == NULL && !PyErr_Occurred()) list = PyObject_CallOneArg(s->lister, hand);
    Py_DECREF(hand);
    if (list == NULL) return -1;
    if (!PyTuple_Check(list)) {
        Py_DECREF(list);
        PyErr_SetString(PyExc_TypeError, "play_out: the lister's discards are not a tuple");
        return -1;
    }
    Py_ssize_t size = PyTuple_GET_SIZE(list), pick = -1;
    if (policy == PO_RANDOM) {
        pick = po_below(s, size + yaniv) - yaniv; /* -1: the Yaniv call, listed first */
    } else if (!yaniv) {
        long best = -1, v;
        for (Py_ssize_t i = 0; i < size; i++) {
            PyObject *d = PyTuple_GET_ITEM(list, i);
            if (Py_TYPE(d) != E.discard_t || !small_int(SLOT(d, d_value), 0, 1000, &v)) {
                Py_DECREF(list);
                PyErr_SetString(PyExc_TypeError, "play_out: a listed discard is not a Discard");
                return -1;
            }
            if (v > best) {
                best = v;
                pick = i;
            }
        }
    }
    if (pick < 0 && !yaniv) { /* no discard listed: not a hand this plays */
        Py_DECREF(list);
        PyErr_SetString(PyExc_ValueError, "play_out: a hand without a legal discard");
        return -1;
    }
    if (pick < 0) {
        Py_DECREF(list);
        if (po_record(s, p, E.yaniv) < 0) return -1;
        return po_showdown(s, p, hand_size, jokers);
    }
    PyObject *d = PyTuple_GET_ITEM(list, pick), *cards = SLOT(d, d_cards);
    uint64_t mask;
    long value;
    if (Py_TYPE(d) != E.discard_t || cards == NULL || !PyTuple_CheckExact(cards) ||
        PyTuple_GET_SIZE(cards) > PO_GROUP || !mask_value(SLOT(d, d_mask), &mask) ||
        !small_int(SLOT(d, d_value), 0, 1000, &value) || (mask & s->hands[p]) != mask) {
        Py_DECREF(list);
        PyErr_SetString(PyExc_TypeError, "play_out: a listed discard is not one of the hand's");
        return -1;
    }
    const int g = s->groups, n = (int)PyTuple_GET_SIZE(cards);
    long c;
    for (int i = 0; i < n; i++) {
        if (!small_int(PyTuple_GET_ITEM(cards, i), 0, 54, &c)) {
            Py_DECREF(list);
            PyErr_SetString(PyExc_TypeError, "play_out: a listed discard's card is not a card");
            return -1;
        }
        s->gcards[g][i] = (int)c;
    }
    int rc = po_record(s, p, d);
    Py_DECREF(list);
    if (rc < 0) return -1;
    s->gsize[g] = n;
    s->gkind[g] = po_classify(s, s->gcards[g], n);
    s->groups = g + 1;
    s->hands[p] ^= mask;
    s->values[p] -= value;
    s->counts[p] -= n;
    s->phase = PO_DRAW;
    return 0;
}

/* The draw after a discard, by the policy: the stock's top card or one the pile offers. */
static int po_draw(Sim *s, int policy) {
    const long p = s->to_move;
    int card = -1; /* -1: the stock's */
    if (policy == PO_RANDOM) {
        Py_ssize_t i = po_below(s, s->pick_n + (s->stock_n > 0)) - (s->stock_n > 0);
        if (i >= 0) card = s->pick[i];
    } else {
        int best = s->pick[0];
        for (int i = 1; i < s->pick_n; i++)
            if (s->value[s->pick[i]] < s->value[best]) best = s->pick[i];
        if (s->value[best] < 5 || s->stock_n == 0) card = best;
    }
    if (po_record(s, p, card < 0 ? E.draw_stock : PyTuple_GET_ITEM(E.draws, card)) < 0) return -1;
    if (card < 0) {
        card = s->stock[--s->stock_n];
    } else { /* the card leaves the group below the one just discarded */
        const int g = s->groups - 2;
        int *cards = s->gcards[g], k = 0;
        while (cards[k] != card) k++;
        if (s->gsize[g] == 1) {
            memcpy(s->gcards[g], s->gcards[g + 1], sizeof s->gcards[0]);
            s->gsize[g] = s->gsize[g + 1];
            s->gkind[g] = s->gkind[g + 1];
            s->groups--;
        } else {
            memmove(cards + k, cards + k + 1, (size_t)(s->gsize[g] - k - 1) * sizeof *cards);
            s->gsize[g]--;
            s->gkind[g] = K_BROKEN;
        }
    }
    s->hands[p] |= (uint64_t)1 << card;
    s->values[p] += s->value[card];
    s->counts[p] += 1;
    if (s->stock_n == 0 && po_refill(s) < 0) return -1;
    po_end_turn(s, p);
    return 0;
}

/* Read the game's position into the simulation: 1 where it is one this plays, 0 where the
 * pure loop must (nothing set), -1 on an error. */
static int po_read(Sim *s, PyObject *game) {
    PyObject *rules = SLOT(game, rules), *v;
    long x;
    if (!E.ready || !PO.ready || Py_TYPE(game) != E.game || !rules_ok(rules) ||
        RULE(rules, draw_first) != Py_False ||
        PyUnicode_CompareWithASCIIString(RULE(rules, slapdown), "off") != 0 ||
        !small_int(SLOT(game, n), 2, 9, &s->n) || !table_ok(game, s->n))
        return 0;
    if (!small_int(RULE(rules, threshold), -1000000, 1000000, &s->threshold) ||
        !small_int(RULE(rules, max_set), 0, 1000, &s->max_set) ||
        !small_int(RULE(rules, run_naturals), 0, 1000, &s->run_naturals))
        return 0;
    static const char *const PICKUP[] = {"ends", "run_top_set_any", "run_ends_set_any", "any",
                                         NULL};
    static const char *const IN_RUN[] = {"anywhere", "never", "gaps_only", NULL};
    s->pickup = choice_of(RULE(rules, pickup), PICKUP);
    s->in_run = choice_of(RULE(rules, joker_in_run), IN_RUN);
    s->above = flag(RULE(rules, above));
    s->js = flag(RULE(rules, jokers_in_sets));
    s->pair = flag(RULE(rules, joker_pair));
    if (s->pickup < 0 || s->in_run < 0 || s->above < 0 || s->js < 0 || s->pair < 0) return 0;
    for (int c = 0; c < 54; c++) {
        if (!small_int(PyTuple_GET_ITEM(E.value, c), 0, 100, &x)) return 0;
        s->value[c] = (int)x;
    }
    PyObject *phase = SLOT(game, phase);
    if (phase == E.phase_start) s->phase = PO_START;
    else if (phase == E.phase_draw) s->phase = PO_DRAW;
    else if (phase == PO.round_over) s->phase = PO_ROUND_OVER;
    else if (phase == PO.game_over) s->phase = PO_GAME_OVER;
    else return 0;
    PyObject *lists[6] = {SLOT(game, hands), SLOT(game, values), SLOT(game, counts),
                          SLOT(game, out), SLOT(game, scores), SLOT(game, stock)};
    for (int i = 0; i < 5; i++)
        if (!is_list(lists[i]) || PyList_GET_SIZE(lists[i]) != s->n) return 0;
    for (long p = 0; p < s->n; p++) {
        int o = flag(PyList_GET_ITEM(lists[3], p));
        long long score;
        if (o < 0 || !mask_value(PyList_GET_ITEM(lists[0], p), &s->hands[p]) ||
            !small_int(PyList_GET_ITEM(lists[1], p), -1000000, 1000000, &s->values[p]) ||
            !small_int(PyList_GET_ITEM(lists[2], p), 0, 64, &s->counts[p]) ||
            !exact_ll(PyList_GET_ITEM(lists[4], p), &score))
            return 0;
        s->out[p] = o;
        s->scores[p] = score;
    }
    PyObject *stock = lists[5], *pile = SLOT(game, pile), *kinds = SLOT(game, kinds);
    if (PyList_GET_SIZE(stock) > 54 || PyList_GET_SIZE(pile) > 64) return 0;
    s->stock_n = (int)PyList_GET_SIZE(stock);
    for (int i = 0; i < s->stock_n; i++) {
        if (!small_int(PyList_GET_ITEM(stock, i), 0, 54, &x)) return 0;
        s->stock[i] = (int)x;
    }
    s->groups = (int)PyList_GET_SIZE(pile);
    for (int g = 0; g < s->groups; g++) {
        PyObject *group = PyList_GET_ITEM(pile, g);
        if (!PyTuple_CheckExact(group) || PyTuple_GET_SIZE(group) > PO_GROUP ||
            !small_int(PyList_GET_ITEM(kinds, g), -1, 3, &x))
            return 0;
        s->gkind[g] = (int)x;
        s->gsize[g] = (int)PyTuple_GET_SIZE(group);
        for (int i = 0; i < s->gsize[g]; i++) {
            if (!small_int(PyTuple_GET_ITEM(group, i), 0, 54, &x)) return 0;
            s->gcards[g][i] = (int)x;
        }
    }
    if (s->phase <= PO_DRAW) { /* the pickable cards, as the game holds them */
        PyObject *pickable = SLOT(game, pickable);
        if (s->groups < 1 || pickable == NULL || !PyTuple_CheckExact(pickable) ||
            PyTuple_GET_SIZE(pickable) > PO_GROUP || (s->phase == PO_DRAW && s->groups < 2))
            return 0;
        s->pick_n = (int)PyTuple_GET_SIZE(pickable);
        for (int i = 0; i < s->pick_n; i++) {
            if (!small_int(PyTuple_GET_ITEM(pickable, i), 0, 54, &x)) return 0;
            s->pick[i] = (int)x;
        }
        if (s->pick_n == 0 || !small_int(SLOT(game, to_move), 0, s->n, &s->to_move)) return 0;
    }
    if (!small_int(PO_SLOT(game, round_no), 0, LONG_MAX, &s->round_no) ||
        !small_int(PO_SLOT(game, refill_no), 0, LONG_MAX, &s->refill_no) ||
        PO_SLOT(game, seed) == NULL)
        return 0;
    v = PO_SLOT(game, script);
    if (v == NULL || (v != Py_None && PyObject_IsTrue(v) != 0)) return 0; /* a replay's stock */
    s->lister = SLOT(game, discards);
    return s->lister != NULL;
}

/* play_out(game, policy, seed, max_moves, record, scorer, key_of): see playout.py. */
static PyObject *core_play_out(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    long policy, max_moves;
    unsigned long long seed;
    if (nargs != 7 || !small_int(args[1], 0, 2, &policy) || !PyLong_CheckExact(args[2]) ||
        !small_int(args[3], 0, LONG_MAX, &max_moves) ||
        (args[4] != Py_None && !PyList_CheckExact(args[4]))) {
        PyErr_SetString(PyExc_TypeError,
                        "play_out(game, policy: 0 or 1, seed: int, max_moves: int >= 0, "
                        "record: list | None, scorer, key_of)");
        return NULL;
    }
    seed = PyLong_AsUnsignedLongLong(args[2]);
    if (seed == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    Sim *s = PyMem_Calloc(1, sizeof *s);
    if (s == NULL) return PyErr_NoMemory();
    PyObject *result = NULL, *game = args[0];
    long hand_size = 0, jokers = 0, moves = 0, rounds = 0;
    int ok = po_read(s, game);
    if (ok <= 0) {
        result = ok < 0 ? NULL : Py_NewRef(Py_None);
        goto done;
    }
    PyObject *rules = SLOT(game, rules);
    PyObject *hs = PyObject_GetAttrString(rules, "hand_size");
    PyObject *jk = hs ? PyObject_GetAttrString(rules, "jokers") : NULL;
    int sizes_ok = jk && small_int(hs, 1, 21, &hand_size) && small_int(jk, 0, 3, &jokers);
    Py_XDECREF(hs);
    Py_XDECREF(jk);
    if (!sizes_ok) {
        result = PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
        goto done;
    }
    s->game = game;
    s->rng = (uint64_t)seed;
    s->record = args[4] == Py_None ? NULL : args[4];
    s->scorer = args[5];
    s->key_of = args[6];
    if (s->phase == PO_ROUND_OVER) { /* the next round's deal, as game.next_round() makes it */
        PyObject *res = PO_SLOT(game, result), *starter;
        long next;
        starter = res == NULL || res == Py_None ? NULL : PyObject_GetAttrString(res, "next_starter");
        if (starter == NULL) {
            result = PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
            goto done;
        }
        int seat_ok = small_int(starter, 0, s->n, &next);
        Py_DECREF(starter);
        if (!seat_ok) {
            result = Py_NewRef(Py_None);
            goto done;
        }
        if (po_deal(s, next, hand_size, jokers) < 0) goto done;
    }
    /* The loop makes no reference cycles: the collector waits for its end (it would walk the
     * listers' tables, most of what it finds alive, at every few rounds). */
    int collecting = PyGC_Disable();
    while (moves < max_moves && s->phase <= PO_DRAW) {
        int rc;
        if (s->phase == PO_START) {
            rc = po_turn(s, (int)policy, hand_size, jokers);
            rounds += s->phase != PO_DRAW; /* a Yaniv call: the round's showdown */
        } else {
            rc = po_draw(s, (int)policy);
        }
        if (rc < 0) break;
        moves++;
    }
    if (collecting) PyGC_Enable();
    if (PyErr_Occurred()) goto done;
    long long out[8];
    for (long i = 0; i < s->n; i++) out[i] = s->out[i];
    PyObject *scores = tuple_of_longs(s->scores, s->n), *outs = po_list(out, s->n, 1);
    PyObject *wins = tuple_of_longs(s->winners, s->phase == PO_GAME_OVER ? s->n_winners : 0);
    PyObject *outs_t = outs ? PyList_AsTuple(outs) : NULL;
    if (scores && outs_t && wins)
        result = Py_BuildValue("(llOOOO)", moves, rounds, scores, outs_t, wins,
                               s->phase == PO_GAME_OVER ? Py_True : Py_False);
    Py_XDECREF(scores);
    Py_XDECREF(outs);
    Py_XDECREF(outs_t);
    Py_XDECREF(wins);
done:
    PyMem_Free(s);
    return result;
}

/* setup_playout(Game, Phase.ROUND_OVER, Phase.GAME_OVER): once, at game.py's import. */
static PyObject *core_setup_playout(PyObject *module, PyObject *args) {
    PyTypeObject *game;
    PyObject *round_over, *game_over;
    if (!PyArg_ParseTuple(args, "O!OO", &PyType_Type, &game, &round_over, &game_over))
        return NULL;
    if (offset_of(game, "seed", &PO.seed) < 0 || offset_of(game, "round_no", &PO.round_no) < 0 ||
        offset_of(game, "_refill_no", &PO.refill_no) < 0 ||
        offset_of(game, "_script", &PO.script) < 0 || offset_of(game, "result", &PO.result) < 0)
        return NULL;
    Py_XSETREF(PO.round_over, Py_NewRef(round_over));
    Py_XSETREF(PO.game_over, Py_NewRef(game_over));
    PO.ready = 1;
    Py_RETURN_NONE;
}
