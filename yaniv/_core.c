/* The compiled core of the engine's hot paths (issue 20).
 *
 * Each function here has a pure-Python twin that stays the reference: the Python modules
 * dispatch to this module when it is built and YANIV_PURE is unset, and tests/test_core.py
 * holds every function against its twin on the same inputs and plays whole games on both.
 * Nothing here keeps state of its own beyond what its Python twin keeps: the tables are the
 * same Python dicts, filled by the same Python functions on a miss.
 *
 *   Lister         discards.py's ``lister``: a hand's legal discards, served from a table per
 *                  hand, composed from the per-rank and per-suit tables on a miss (``compose``)
 *   compose        discards.py's ``compose`` for any parts (the action table's indices)
 *   write_planes   envs/observation.py's ``Observer._write_bits``: bits to float32 entries
 *   shuffle        random.Random.shuffle (game.py's deals and refills)
 *   cards_of       cards.py's ``cards_of``
 *   card_bits      envs/observation.py's ``Observer._card_bits``
 *   apply, legal_moves   game.py's ``Game.apply`` and ``Game.legal_moves`` (see below)
 *   Writer         envs/observation.py's ``Observer.write``: a seat's whole observation
 *   Actions        envs/actions.py's ``ActionTable.legal_actions``
 *   write_mask     envs/actions.py's ``MaskBuffer.update``
 *   Builder        ``cls(*values)`` for state.py's and scoring.py's frozen values
 *   score_round    scoring.py's ``score_round`` (R14-R20), for game.py's showdown
 *   seeded_shuffle random.Random(text).shuffle, without the generator object (game.py's deals)
 *   lay_hands      game.py's ``_set_hand`` for every seat of a deal
 *   play_out       playout.py's pure loop: a game played on by a fixed policy (_playout.c)
 *   SeatBuffers, play_random   the environments' step (_envstep.c)
 *   turn_plan      heuristics.py's ``turn_plan``: the rollouts' discard-first turn (_plan.c)
 *   discards_after_draw   heuristics.py's ``best_discard_after_draw``: draw-first (_plan.c)
 *   after_draw_choice     heuristics.py's ``after_draw_choice``: the rollouts' draw-first
 *                         discard (_plan.c)
 *   draw_first_choice     heuristics.py's ``draw_first_choice``: the draw-first draw (_plan.c)
 *   rollout_turn   rollout.py's ``rollout_turn`` at a turn start (_plan.c)
 *   rollout_turns  rollout.py's ``rollout_turns``: turn after turn of it (_plan.c)
 *   win_raw        utility.py's ``_raw_chances``: the game-level utility's sums (_plan.c)
 *   skewed_front   search.py's ``_skewed_to_front``: a hand drawn by a belief's odds (_plan.c)
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <structmember.h>

/* The interface's version: raised with every change to what the functions take or do, so that
 * a build left from older sources is not used with newer Python modules. */
#define CORE_ABI 18

#define SUIT_MASK ((uint64_t)0x1FFF)
#define JOKER_BITS (((uint64_t)1 << 52) | ((uint64_t)1 << 53))

/* The naturals that begin three ranks in a row of their suit (ranks A..J). */
static uint64_t RUN_STARTS;
/* The four cards of each rank, by its bit in a suit's mask (0 for the ace). */
static uint64_t RANK_BITS[13];

static inline int popcount64(uint64_t x) { return __builtin_popcountll(x); }
static inline int ctz64(uint64_t x) { return __builtin_ctzll(x); }

/* An int's value as a C long, where it is an exact int in [lo, hi). */
static inline int small_int(PyObject *v, long lo, long hi, long *out) {
    if (v == NULL || !PyLong_CheckExact(v)) return 0;
    int overflow = 0;
    long x = PyLong_AsLongAndOverflow(v, &overflow);
    if (overflow || x < lo || x >= hi) return 0;
    *out = x;
    return 1;
}


/* ------------------------------------------------------------------ Lister */

/* What discards.compose composes a hand's discards from (borrowed references). */
typedef struct {
    PyObject *singles; /* tuple of 54: each card's single discard */
    PyObject *sets;    /* dict: rank part -> its discards (a sequence) */
    PyObject *runs;    /* dict: suit part -> its discards */
    PyObject *of_rank; /* fills ``sets`` on a miss and returns the part's discards */
    PyObject *of_suit; /* the same for ``runs`` */
    PyObject *pair;    /* the joker pair's discard, or None */
    int jokers_in_sets;
    int run_jokers; /* whether jokers may join runs (joker_in_run != "never") */
    int run_naturals;
} Parts;

typedef struct {
    PyObject_HEAD
    PyObject *table;  /* dict: hand -> MoveList (shared with nothing: the compiled lister's) */
    PyObject *sets;   /* dict: rank part -> tuple of Discard (the pure lister's own table) */
    PyObject *runs;   /* dict: suit part -> tuple of Discard */
    PyObject *make;   /* the rules' MoveList type */
    PyObject *singles; /* tuple of 54 single-card Discards */
    PyObject *of_rank; /* fills ``sets`` on a miss and returns the part's discards */
    PyObject *of_suit; /* the same for ``runs`` */
    PyObject *pair;    /* the joker pair's Discard, or None */
    PyObject *fallback; /* the pure lister, for what is not a hand (its behaviour, its errors) */
    int jokers_in_sets;
    int run_jokers;
    int run_naturals;
    Py_ssize_t limit;  /* the table is cleared when it holds this many hands */
} Lister;

static inline Parts lister_parts(Lister *self) {
    Parts k = {self->singles, self->sets,  self->runs,           self->of_rank,      self->of_suit,
               self->pair,    self->jokers_in_sets, self->run_jokers, self->run_naturals};
    return k;
}

static void Lister_dealloc(Lister *self) {
    PyObject_GC_UnTrack(self);
    Py_CLEAR(self->table);
    Py_CLEAR(self->sets);
    Py_CLEAR(self->runs);
    Py_CLEAR(self->make);
    Py_CLEAR(self->singles);
    Py_CLEAR(self->of_rank);
    Py_CLEAR(self->of_suit);
    Py_CLEAR(self->pair);
    Py_CLEAR(self->fallback);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Lister_traverse(Lister *self, visitproc visit, void *arg) {
    Py_VISIT(self->table);
    Py_VISIT(self->sets);
    Py_VISIT(self->runs);
    Py_VISIT(self->make);
    Py_VISIT(self->singles);
    Py_VISIT(self->of_rank);
    Py_VISIT(self->of_suit);
    Py_VISIT(self->pair);
    Py_VISIT(self->fallback);
    return 0;
}

static int Lister_init(Lister *self, PyObject *args, PyObject *kwds) {
    PyObject *table, *sets, *runs, *make, *singles, *of_rank, *of_suit, *pair, *fallback;
    int jokers_in_sets, run_jokers, run_naturals;
    Py_ssize_t limit;
    if (!PyArg_ParseTuple(args, "O!O!O!OO!OOOppinO", &PyDict_Type, &table, &PyDict_Type, &sets,
                          &PyDict_Type, &runs, &make, &PyTuple_Type, &singles, &of_rank,
                          &of_suit, &pair, &jokers_in_sets, &run_jokers, &run_naturals, &limit,
                          &fallback))
        return -1;
    if (PyTuple_GET_SIZE(singles) != 54) {
        PyErr_SetString(PyExc_ValueError, "singles: expected one discard per card (54)");
        return -1;
    }
#define KEEP(field, value) Py_INCREF(value); Py_XSETREF(self->field, value)
    KEEP(table, table);
    KEEP(sets, sets);
    KEEP(runs, runs);
    KEEP(make, make);
    KEEP(singles, singles);
    KEEP(of_rank, of_rank);
    KEEP(of_suit, of_suit);
    KEEP(pair, pair);
    KEEP(fallback, fallback);
#undef KEEP
    self->jokers_in_sets = jokers_in_sets;
    self->run_jokers = run_jokers;
    self->run_naturals = run_naturals;
    self->limit = limit;
    return 0;
}

/* Append the discards of one rank's or suit's part: from its table, else from the Python
 * function that makes and stores them. */
static int extend_part(PyObject *out, PyObject *table, PyObject *make_part, uint64_t part) {
    PyObject *key = PyLong_FromUnsignedLongLong(part);
    if (key == NULL) return -1;
    PyObject *found = PyDict_GetItemWithError(table, key); /* borrowed */
    if (found != NULL) {
        Py_INCREF(found);
    } else if (PyErr_Occurred()) {
        Py_DECREF(key);
        return -1;
    } else {
        found = PyObject_CallOneArg(make_part, key);
        if (found == NULL) {
            Py_DECREF(key);
            return -1;
        }
    }
    Py_DECREF(key);
    PyObject *seq = PySequence_Fast(found, "a part's discards must be a sequence");
    Py_DECREF(found);
    if (seq == NULL) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    PyObject **items = PySequence_Fast_ITEMS(seq);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (PyList_Append(out, items[i]) < 0) {
            Py_DECREF(seq);
            return -1;
        }
    }
    Py_DECREF(seq);
    return 0;
}

/* discards.compose, in the same order (its docstring says which). */
static PyObject *compose(const Parts *self, uint64_t hand) {
    PyObject *out = PyList_New(0);
    if (out == NULL) return NULL;
    PyObject *singles = self->singles;
#define APPEND(item) if (PyList_Append(out, (item)) < 0) goto fail
    if (hand < ((uint64_t)1 << 52)) {
        uint64_t fold = hand | hand >> 26;
        if (popcount64((fold | fold >> 13) & SUIT_MASK) == popcount64(hand) &&
            !(hand & hand >> 1 & hand >> 2 & RUN_STARTS)) {
            uint64_t rest = hand;
            while (rest) {
                APPEND(PyTuple_GET_ITEM(singles, ctz64(rest)));
                rest &= rest - 1;
            }
            return out;
        }
    }
    uint64_t jokers = hand & JOKER_BITS;
    uint64_t set_jokers = self->jokers_in_sets ? jokers : 0;
    uint64_t run_jokers = self->run_jokers ? jokers : 0;
    int runs_from = 3 - popcount64(run_jokers);
    if (self->run_naturals > runs_from) runs_from = self->run_naturals;
    uint64_t naturals = hand ^ jokers;
    uint64_t s[4] = {naturals & SUIT_MASK, naturals >> 13 & SUIT_MASK, naturals >> 26 & SUIT_MASK,
                     naturals >> 39};
    uint64_t with_sets =
        set_jokers ? SUIT_MASK : (s[0] & (s[1] | s[2] | s[3])) | (s[1] & (s[2] | s[3])) | (s[2] & s[3]);
    uint64_t seen = 0;
    for (int k = 0; k < 4; k++) {
        uint64_t seg = s[k];
        int base = 13 * k;
        if (!seg) continue;
        uint64_t sets_here = seg & with_sets & ~seen;
        seen |= seg;
        int runs_here = popcount64(seg) >= runs_from;
        while (seg) {
            uint64_t low = seg & (~seg + 1);
            seg ^= low;
            int r = ctz64(low);
            APPEND(PyTuple_GET_ITEM(singles, base + r));
            if (sets_here & low) {
                if (extend_part(out, self->sets, self->of_rank, (hand & RANK_BITS[r]) | set_jokers) < 0)
                    goto fail;
            }
            if (runs_here) {
                runs_here = 0;
                if (extend_part(out, self->runs, self->of_suit,
                                (naturals & (SUIT_MASK << base)) | run_jokers) < 0)
                    goto fail;
            }
        }
    }
    if (jokers) {
        for (int c = 52; c < 54; c++)
            if (jokers >> c & 1) APPEND(PyTuple_GET_ITEM(singles, c));
        if (self->pair != Py_None && jokers == JOKER_BITS) APPEND(self->pair);
    }
#undef APPEND
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

/* A hand as a bitmask of the 54 cards: 0, or 1 where ``arg`` is not one (an int of other
 * bits, or not an exact int), which the pure lister then answers as it does. */
static int hand_of(PyObject *arg, uint64_t *hand) {
    if (!PyLong_CheckExact(arg)) return 1;
    int overflow = 0;
    long long value = PyLong_AsLongLongAndOverflow(arg, &overflow);
    if (overflow || value < 0 || (uint64_t)value >> 54) return 1;
    *hand = (uint64_t)value;
    return 0;
}

/* ``type(items)`` for a subclass of tuple that keeps tuple's __new__ and object's __init__
 * (discards.py's MoveList types): the instance tuple's own tp_new makes, filled directly
 * (a type call goes through the generic machinery); the type call for any other type. */
static PyObject *tuple_subtype_of(PyTypeObject *type, PyObject *const *items, Py_ssize_t n) {
    if (type == &PyTuple_Type) {
        PyObject *tuple = PyTuple_New(n);
        if (tuple == NULL) return NULL;
        for (Py_ssize_t i = 0; i < n; i++) PyTuple_SET_ITEM(tuple, i, Py_NewRef(items[i]));
        return tuple;
    }
    if (!PyType_IsSubtype(type, &PyTuple_Type) || type->tp_new != PyTuple_Type.tp_new ||
        type->tp_init != PyBaseObject_Type.tp_init || !PyType_IS_GC(type) ||
        type->tp_alloc != PyType_GenericAlloc) {
        PyObject *tuple = PyTuple_New(n);
        if (tuple == NULL) return NULL;
        for (Py_ssize_t i = 0; i < n; i++) PyTuple_SET_ITEM(tuple, i, Py_NewRef(items[i]));
        PyObject *made = PyObject_CallOneArg((PyObject *)type, tuple);
        Py_DECREF(tuple);
        return made;
    }
    PyObject *made = type->tp_alloc(type, n); /* tracked by the collector, as tuple's makes it */
    if (made == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) PyTuple_SET_ITEM(made, i, Py_NewRef(items[i]));
    return made;
}

static PyObject *Lister_call(Lister *self, PyObject *args, PyObject *kwds) {
    PyObject *arg;
    if (!PyArg_UnpackTuple(args, "lister", 1, 1, &arg)) return NULL;
    PyObject *found = PyDict_GetItemWithError(self->table, arg); /* borrowed */
    if (found != NULL) return Py_NewRef(found);
    if (PyErr_Occurred()) return NULL;
    uint64_t hand;
    if (hand_of(arg, &hand)) return PyObject_CallOneArg(self->fallback, arg);
    if (PyDict_GET_SIZE(self->table) >= self->limit) PyDict_Clear(self->table);
    Parts parts = lister_parts(self);
    PyObject *list = compose(&parts, hand);
    if (list == NULL) return NULL;
    PyObject *made = PyType_Check(self->make)
                         ? tuple_subtype_of((PyTypeObject *)self->make,
                                            ((PyListObject *)list)->ob_item, PyList_GET_SIZE(list))
                         : PyObject_CallOneArg(self->make, list);
    Py_DECREF(list);
    if (made == NULL) return NULL;
    if (PyDict_SetItem(self->table, arg, made) < 0) {
        Py_DECREF(made);
        return NULL;
    }
    return made;
}

static PyObject *Lister_compose(Lister *self, PyObject *arg) {
    uint64_t hand;
    if (hand_of(arg, &hand)) {
        PyErr_Format(PyExc_ValueError, "not a hand of cards 0 to 53: %.60R", arg);
        return NULL;
    }
    Parts parts = lister_parts(self);
    return compose(&parts, hand);
}

/* A lister is shared, as the pure one (a function) is: a copy of a game keeps it. */
static PyObject *Lister_copy(PyObject *self, PyObject *args) { return Py_NewRef(self); }

static PyMethodDef Lister_methods[] = {
    {"__copy__", (PyCFunction)Lister_copy, METH_NOARGS, "The lister itself (it is shared)."},
    {"__deepcopy__", (PyCFunction)Lister_copy, METH_O, "The lister itself (it is shared)."},
    {"compose", (PyCFunction)Lister_compose, METH_O,
     "The hand's discards as a list, composed afresh (no hand table)."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject ListerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "yaniv._core.Lister",
    .tp_basicsize = sizeof(Lister),
    .tp_dealloc = (destructor)Lister_dealloc,
    .tp_call = (ternaryfunc)Lister_call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "A hand's legal discards (discards.py's lister), compiled.",
    .tp_traverse = (traverseproc)Lister_traverse,
    .tp_methods = Lister_methods,
    .tp_init = (initproc)Lister_init,
    .tp_new = PyType_GenericNew,
};



/* ------------------------------------------------------------------ cards_of */

/* cards.py's pure cards_of, for what is not a mask of cards 0..63 (given by cards.py). */
static PyObject *cards_of_fallback;

/* cards.py's cards_of: the cards of a bitmask, in ascending order. */
static PyObject *core_cards_of(PyObject *module, PyObject *mask) {
    int overflow = 0;
    long long value = PyLong_CheckExact(mask) ? PyLong_AsLongLongAndOverflow(mask, &overflow) : -1;
    if (value < 0 || overflow) {
        if (value == -1 && PyErr_Occurred()) return NULL;
        if (cards_of_fallback == NULL) {
            PyErr_SetString(PyExc_RuntimeError, "cards_of: no fallback set");
            return NULL;
        }
        return PyObject_CallOneArg(cards_of_fallback, mask);
    }
    uint64_t rest = (uint64_t)value;
    PyObject *out = PyList_New(popcount64(rest));
    if (out == NULL) return NULL;
    for (Py_ssize_t i = 0; rest; i++, rest &= rest - 1) {
        PyObject *card = PyLong_FromLong(ctz64(rest));
        if (card == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, card);
    }
    return out;
}

static PyObject *core_set_cards_of_fallback(PyObject *module, PyObject *fallback) {
    Py_XSETREF(cards_of_fallback, Py_NewRef(fallback));
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ compose, write_planes */

/* discards.compose for any parts (envs/actions.py's action indices): None where ``hand`` is
 * not a hand of cards 0..53 or the parts are not laid out as expected (the caller then
 * composes in Python). */
static PyObject *core_compose(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 10) {
        PyErr_SetString(PyExc_TypeError,
                        "compose(hand, singles, sets, runs, of_rank, of_suit, pair, "
                        "jokers_in_sets, run_jokers, run_naturals)");
        return NULL;
    }
    uint64_t hand;
    long run_naturals;
    int jokers_in_sets = PyObject_IsTrue(args[7]), run_jokers = PyObject_IsTrue(args[8]);
    if (jokers_in_sets < 0 || run_jokers < 0) return NULL;
    if (hand_of(args[0], &hand) || !PyTuple_CheckExact(args[1]) ||
        PyTuple_GET_SIZE(args[1]) != 54 || !PyDict_CheckExact(args[2]) ||
        !PyDict_CheckExact(args[3]) || !small_int(args[9], 1, 3, &run_naturals))
        Py_RETURN_NONE;
    Parts k = {args[1], args[2], args[3], args[4], args[5], args[6],
               jokers_in_sets, run_jokers, (int)run_naturals};
    return compose(&k, hand);
}

/* envs/observation.py's Observer._write_bits: entry k of ``out`` (float32) is bit k of
 * ``bits``, for the first ``count`` entries. False, writing nothing, where ``bits`` is not a
 * non-negative int of at most ``count`` bits or ``out`` not a writable contiguous float32
 * buffer of that many entries (the caller then writes them with numpy). */
static PyObject *core_write_planes(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "write_planes(bits, out, count)");
        return NULL;
    }
    long count;
    PyObject *bits = args[0];
    if (!PyLong_CheckExact(bits) || !small_int(args[2], 0, 8 * 8192, &count)) Py_RETURN_FALSE;
    unsigned char raw[8192];
    size_t nbytes = ((size_t)count + 7) / 8;
    memset(raw, 0, nbytes);
    /* The int's bytes, little-endian; a negative int or one of more bytes fails (False). */
#if PY_VERSION_HEX >= 0x030D0000
    Py_ssize_t needed = PyLong_AsNativeBytes(
        bits, raw, (Py_ssize_t)nbytes,
        Py_ASNATIVEBYTES_LITTLE_ENDIAN | Py_ASNATIVEBYTES_UNSIGNED_BUFFER |
            Py_ASNATIVEBYTES_REJECT_NEGATIVE);
    if (needed < 0 || (size_t)needed > nbytes) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
#else
    if (_PyLong_AsByteArray((PyLongObject *)bits, raw, nbytes, 1, 0) < 0) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
#endif
    if (count % 8 && raw[nbytes - 1] >> (count % 8)) Py_RETURN_FALSE; /* more than count bits */
    Py_buffer view;
    if (PyObject_GetBuffer(args[1], &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) <
        0) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    const char *format = view.format == NULL ? "" : view.format;
    if (format[0] == '<' || format[0] == '=') format++; /* numpy says "<f" where native */
    if (view.itemsize != 4 || strcmp(format, "f") != 0 ||
        view.len < (Py_ssize_t)count * 4) {
        PyBuffer_Release(&view);
        Py_RETURN_FALSE;
    }
    float *out = (float *)view.buf;
    for (long i = 0; i < count; i++) out[i] = (raw[i >> 3] >> (i & 7)) & 1 ? 1.0f : 0.0f;
    PyBuffer_Release(&view);
    Py_RETURN_TRUE;
}


/* random.Random.shuffle(x), step for step (Python 3.11's: for i from len(x) - 1 down to 1,
 * j = _randbelow_with_getrandbits(i + 1), swap x[i] and x[j]), drawing from ``getrandbits``,
 * the generator's bound method: the same generator gives the same order. game.py checks that
 * at import against this Python's own shuffle, and uses its own where they differ. */
static PyObject *core_shuffle(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyList_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "shuffle(getrandbits, list)");
        return NULL;
    }
    PyObject *getrandbits = args[0], *x = args[1];
    for (Py_ssize_t i = PyList_GET_SIZE(x) - 1; i > 0; i--) {
        uint64_t n = (uint64_t)i + 1;
        int k = 64 - __builtin_clzll(n); /* n.bit_length() */
        PyObject *bits = PyLong_FromLong(k);
        if (bits == NULL) return NULL;
        uint64_t r;
        do {
            PyObject *drawn = PyObject_CallOneArg(getrandbits, bits);
            if (drawn == NULL) {
                Py_DECREF(bits);
                return NULL;
            }
            r = PyLong_AsUnsignedLongLong(drawn);
            Py_DECREF(drawn);
            if (r == (uint64_t)-1 && PyErr_Occurred()) {
                Py_DECREF(bits);
                return NULL;
            }
        } while (r >= n);
        Py_DECREF(bits);
        if ((Py_ssize_t)r >= PyList_GET_SIZE(x) || i >= PyList_GET_SIZE(x)) {
            PyErr_SetString(PyExc_RuntimeError, "the list changed size during the shuffle");
            return NULL;
        }
        PyObject *a = PyList_GET_ITEM(x, i), *b = PyList_GET_ITEM(x, (Py_ssize_t)r);
        PyList_SET_ITEM(x, i, b);
        PyList_SET_ITEM(x, (Py_ssize_t)r, a);
    }
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ Game.apply, legal_moves
 *
 * game.py's ``apply`` for the common moves: a discard, a draw from the pile or the stock
 * (with the refill made by game.py's ``_refill``), in either turn order (discard first, or
 * draw_first's draw and then its discard), and a Yaniv call (its showdown is game.py's
 * ``_showdown``); ``legal_moves`` at a turn's start, at its draw and at a draw-first discard.
 * Everything else, and anything not laid out as game.py lays it out (a subclass, a list
 * replaced by another type, a seat out of range), goes to the pure-Python method before
 * anything changes, so the two give the same game in every case: slapdown's stock draws in a
 * discard-first game, slaps and passes, moves after the round. The Game's slots are read at
 * their offsets, found once from the class. */

typedef struct {
    int ready;
    PyTypeObject *game;
    Py_ssize_t rules, n, out, hands, values, counts, known, stock, pile, kinds, pickable, to_move,
        phase, drawn, moves, events, veil, discards, fast, scores;
    /* The slots of the moves and of the rule set (frozen dataclasses with slots). */
    Py_ssize_t d_cards, d_mask, d_value, w_card, r_draw_first, r_slapdown, r_pickup,
        r_threshold, r_above, r_jokers_in_sets, r_joker_pair, r_max_set, r_run_naturals,
        r_joker_in_run;
    PyTypeObject *discard_t, *draw_t, *yaniv_t, *rules_t;
    PyObject *discarded, *drew, *phase_start, *phase_draw, *phase_discard, *value, *classify,
        *pickable_of, *yaniv, *draw_stock, *draws, *draws_of, *pure_apply, *pure_legal, *single,
        *broken, *minus_one, *s_stock, *s_pile, *s_off, *no_cards;
    Py_ssize_t draws_limit;
} Engine;

static Engine E;

#define SLOT(obj, name) (*(PyObject **)((char *)(obj) + E.name))
/* A rule's value (borrowed; NULL where unset), from a rule set of the exact RuleSet type. */
#define RULE(rules, name) SLOT(rules, r_##name)
/* Replace a slot's value, taking ``value``'s reference. */
static inline void set_slot(PyObject *obj, Py_ssize_t off, PyObject *value) {
    PyObject **at = (PyObject **)((char *)obj + off);
    PyObject *old = *at;
    *at = value;
    Py_XDECREF(old);
}

static int offset_of(PyTypeObject *type, const char *name, Py_ssize_t *off) {
    PyObject *descr = PyDict_GetItemString(type->tp_dict, name); /* borrowed */
    if (descr == NULL || !PyObject_TypeCheck(descr, &PyMemberDescr_Type)) {
        PyErr_Format(PyExc_TypeError, "%s has no slot %s", type->tp_name, name);
        return -1;
    }
    PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
    if (member->type != T_OBJECT_EX) {
        PyErr_Format(PyExc_TypeError, "%s's slot %s is not an object slot", type->tp_name, name);
        return -1;
    }
    *off = member->offset;
    return 0;
}

/* A card mask's value, where it is an exact int of cards 0..53. */
static inline int mask_value(PyObject *v, uint64_t *out) {
    long long x;
    int overflow = 0;
    if (v == NULL || !PyLong_CheckExact(v)) return 0;
    x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow || x < 0 || (uint64_t)x >> 54) return 0;
    *out = (uint64_t)x;
    return 1;
}

static inline int is_list(PyObject *v) { return v != NULL && PyList_CheckExact(v); }

/* The per-seat lists, each an exact list of n ints, with seat p's entries in range. */
typedef struct {
    long p, n;
    PyObject *hands, *values, *counts, *known;
    uint64_t hand, known_mask;
    long value, count;
} Seat;

static int read_seat(PyObject *game, Seat *s) {
    if (!small_int(SLOT(game, n), 2, 9, &s->n)) return 0;
    if (!small_int(SLOT(game, to_move), 0, s->n, &s->p)) return 0;
    s->hands = SLOT(game, hands);
    s->values = SLOT(game, values);
    s->counts = SLOT(game, counts);
    s->known = SLOT(game, known);
    if (!is_list(s->hands) || !is_list(s->values) || !is_list(s->counts) || !is_list(s->known))
        return 0;
    if (PyList_GET_SIZE(s->hands) != s->n || PyList_GET_SIZE(s->values) != s->n ||
        PyList_GET_SIZE(s->counts) != s->n || PyList_GET_SIZE(s->known) != s->n)
        return 0;
    return mask_value(PyList_GET_ITEM(s->hands, s->p), &s->hand) &&
           mask_value(PyList_GET_ITEM(s->known, s->p), &s->known_mask) &&
           small_int(PyList_GET_ITEM(s->values, s->p), -1000000, 1000000, &s->value) &&
           small_int(PyList_GET_ITEM(s->counts, s->p), -1000, 1000, &s->count);
}

/* Store seat p's hand, known cards, value and count (known cards often stay as they were). */
static int write_seat(Seat *s) {
    PyObject *v;
    uint64_t known_before;
    if ((v = PyLong_FromUnsignedLongLong(s->hand)) == NULL) return -1;
    PyList_SetItem(s->hands, s->p, v);
    if (!mask_value(PyList_GET_ITEM(s->known, s->p), &known_before) ||
        known_before != s->known_mask) {
        if ((v = PyLong_FromUnsignedLongLong(s->known_mask)) == NULL) return -1;
        PyList_SetItem(s->known, s->p, v);
    }
    if ((v = PyLong_FromLong(s->value)) == NULL) return -1;
    PyList_SetItem(s->values, s->p, v);
    if ((v = PyLong_FromLong(s->count)) == NULL) return -1;
    PyList_SetItem(s->counts, s->p, v);
    return 0;
}

/* Whether a flag rule is set: 1, 0, or -1 where it is not a bool (game.py's then). */
static inline int flag(PyObject *v) {
    if (v == Py_True) return 1;
    if (v == Py_False) return 0;
    return -1;
}

/* Whether the game's rule set is one these functions read: an exact RuleSet, its flags bools,
 * slapdown a str and pickup a str. */
static inline int rules_ok(PyObject *rules) {
    return rules != NULL && Py_TYPE(rules) == E.rules_t && flag(RULE(rules, draw_first)) >= 0 &&
           flag(RULE(rules, above)) >= 0 && RULE(rules, slapdown) != NULL &&
           PyUnicode_CheckExact(RULE(rules, slapdown)) && RULE(rules, pickup) != NULL &&
           RULE(rules, threshold) != NULL;
}

/* discards.pickable(group, kind, pickup) (R10) for a group of two cards or more, the kinds
 * as classify gives them (SET 1, RUN 2, BROKEN -1); the Python function for anything else. */
static PyObject *tuple_of(Py_ssize_t n, PyObject *a, PyObject *b, PyObject *c, PyObject *d);

static PyObject *pickable_c(PyObject *group, PyObject *kind_o, PyObject *pickup) {
    long kind;
    Py_ssize_t n = PyTuple_GET_SIZE(group);
    int mode = -1; /* ends, run_top_set_any, run_ends_set_any, any */
    if (PyUnicode_CheckExact(pickup)) {
        static const char *const MODES[] = {"ends", "run_top_set_any", "run_ends_set_any", "any"};
        for (int i = 0; i < 4 && mode < 0; i++)
            if (PyUnicode_CompareWithASCIIString(pickup, MODES[i]) == 0) mode = i;
    }
    if (n < 2 || mode < 0 || !small_int(kind_o, -1, 3, &kind) || kind == 0)
        return PyObject_CallFunctionObjArgs(E.pickable_of, group, kind_o, pickup, NULL);
    PyObject *first = PyTuple_GET_ITEM(group, 0), *last = PyTuple_GET_ITEM(group, n - 1);
    if (kind == -1 || mode == 0 || (mode == 2 && kind == 2))
        return tuple_of(2, first, last, NULL, NULL);
    if (kind == 1) return Py_NewRef(group);
    if (mode == 1) return tuple_of(1, last, NULL, NULL, NULL);
    /* any: a joker inside a run can never be taken */
    PyObject *out = PyTuple_New(n);
    if (out == NULL) return NULL;
    Py_ssize_t m = 0;
    PyTuple_SET_ITEM(out, m++, Py_NewRef(first));
    for (Py_ssize_t i = 1; i < n - 1; i++) {
        PyObject *c = PyTuple_GET_ITEM(group, i);
        long card;
        if (!small_int(c, 0, 1L << 30, &card)) { /* not a card int: the Python function's */
            Py_DECREF(out);
            return PyObject_CallFunctionObjArgs(E.pickable_of, group, kind_o, pickup, NULL);
        }
        if (card < 52) PyTuple_SET_ITEM(out, m++, Py_NewRef(c));
    }
    PyTuple_SET_ITEM(out, m++, Py_NewRef(last));
    if (m < n && _PyTuple_Resize(&out, m) < 0) return NULL;
    return out;
}

/* discards.pickable, for tests: after setup, any group (a tuple), kind and pickup. */
static PyObject *core_pickable(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3 || !E.ready || !PyTuple_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError, "pickable(group: tuple, kind, pickup), after setup");
        return NULL;
    }
    if (PyTuple_GET_SIZE(args[0]) == 1) return Py_NewRef(args[0]);
    return pickable_c(args[0], args[1], args[2]);
}

/* game.py's _end_turn(p): the turn passes to the next seat still in, whose pickable cards are
 * the top group's. */
static int end_turn(PyObject *game, long p, long n) {
    PyObject *out = SLOT(game, out), *pile = SLOT(game, pile), *kinds = SLOT(game, kinds);
    long nxt = (p + 1) % n;
    for (;;) {
        int is_out = PyObject_IsTrue(PyList_GET_ITEM(out, nxt));
        if (is_out < 0) return -1;
        if (!is_out) break;
        nxt = (nxt + 1) % n;
    }
    PyObject *group = PyList_GET_ITEM(pile, PyList_GET_SIZE(pile) - 1);
    PyObject *pickable;
    if (PyTuple_GET_SIZE(group) == 1) {
        pickable = Py_NewRef(group);
    } else {
        pickable = pickable_c(group, PyList_GET_ITEM(kinds, PyList_GET_SIZE(kinds) - 1),
                              RULE(SLOT(game, rules), pickup));
        if (pickable == NULL) return -1;
    }
    set_slot(game, E.pickable, pickable);
    PyObject *to_move = PyLong_FromLong(nxt);
    if (to_move == NULL) return -1;
    set_slot(game, E.to_move, to_move);
    set_slot(game, E.phase, Py_NewRef(E.phase_start));
    set_slot(game, E.drawn, Py_NewRef(E.minus_one));
    set_slot(game, E.veil, Py_NewRef(Py_None));
    return 0;
}

/* Whether the pile, kinds and out are laid out as game.py lays them out. */
static int table_ok(PyObject *game, long n) {
    PyObject *pile = SLOT(game, pile), *kinds = SLOT(game, kinds), *out = SLOT(game, out);
    if (!is_list(pile) || !is_list(kinds) || !is_list(out) || PyList_GET_SIZE(out) != n)
        return 0;
    Py_ssize_t size = PyList_GET_SIZE(pile);
    if (size != PyList_GET_SIZE(kinds)) return 0;
    for (Py_ssize_t i = size - 2 < 0 ? 0 : size - 2; i < size; i++) {
        PyObject *g = PyList_GET_ITEM(pile, i);
        if (!PyTuple_CheckExact(g) || PyTuple_GET_SIZE(g) == 0) return 0;
    }
    return is_list(SLOT(game, stock)) && is_list(SLOT(game, moves)) && is_list(SLOT(game, events));
}

static PyObject *pure_apply(PyObject *game, PyObject *move) {
    return PyObject_CallFunctionObjArgs(E.pure_apply, game, move, NULL);
}

/* A new tuple of ``n`` items, each a borrowed reference made new (Py_BuildValue parses a format
 * at every call: this is a hot path). */
static PyObject *tuple_of(Py_ssize_t n, PyObject *a, PyObject *b, PyObject *c, PyObject *d) {
    PyObject *t = PyTuple_New(n), *items[4] = {a, b, c, d};
    if (t == NULL) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) PyTuple_SET_ITEM(t, i, Py_NewRef(items[i]));
    return t;
}

static PyObject *append_move(PyObject *game, long p, PyObject *move) {
    PyObject *seat = PyLong_FromLong(p);
    if (seat == NULL) return NULL;
    PyObject *entry = tuple_of(2, seat, move, NULL, NULL);
    Py_DECREF(seat);
    if (entry == NULL) return NULL;
    int rc = PyList_Append(SLOT(game, moves), entry);
    Py_DECREF(entry);
    return rc < 0 ? NULL : Py_None;
}

/* discards.classify(cards, rules) for a group of two cards or more: SINGLE 0, SET 1, RUN 2,
 * BROKEN -1; -2 where the cards or the rules are not as it expects (the caller then asks
 * discards.classify). */
static int classify(PyObject *cards, PyObject *rules) {
    Py_ssize_t n = PyTuple_GET_SIZE(cards);
    long card[64], max_set, run_naturals;
    int js = flag(RULE(rules, jokers_in_sets)), pair = flag(RULE(rules, joker_pair));
    PyObject *in_run = RULE(rules, joker_in_run);
    if (n > 64 || js < 0 || pair < 0 || in_run == NULL || !PyUnicode_Check(in_run) ||
        !small_int(RULE(rules, max_set), 0, 1000, &max_set) ||
        !small_int(RULE(rules, run_naturals), 0, 1000, &run_naturals))
        return -2;
    Py_ssize_t naturals = 0, first = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!small_int(PyTuple_GET_ITEM(cards, i), 0, 54, &card[i])) return -2;
        if (card[i] < 52) {
            naturals++;
            if (first < 0) first = i;
        }
    }
    if (n == 1) return 0;
    if (!naturals) return n == 2 && pair ? 1 : -1;
    long rank = card[first] % 13 + 1;
    int same = 1;
    for (Py_ssize_t i = 0; i < n; i++)
        if (card[i] < 52 && card[i] % 13 + 1 != rank) same = 0;
    if (same && (naturals == n || js)) return max_set && n > max_set ? -1 : 1;
    if (n < 3 || naturals < run_naturals) return -1;
    int never = PyUnicode_CompareWithASCIIString(in_run, "never") == 0;
    if (never && naturals != n) return -1;
    long suit = card[first] / 13, low = card[first] % 13 + 1 - first;
    if (low < 1 || low + n - 1 > 13) return -1;
    for (Py_ssize_t i = 0; i < n; i++)
        if (card[i] < 52 && (card[i] / 13 != suit || card[i] % 13 + 1 != low + i)) return -1;
    if (PyUnicode_CompareWithASCIIString(in_run, "gaps_only") == 0 &&
        (card[0] >= 52 || card[n - 1] >= 52))
        return -1;
    return 2;
}

static PyObject *do_discard(PyObject *game, Seat *s, PyObject *move, PyObject *rules) {
    PyObject *cards = SLOT(move, d_cards), *mask_o = SLOT(move, d_mask);
    PyObject *value_o = SLOT(move, d_value);
    uint64_t mask;
    long value;
    PyObject *result = NULL, *kind = NULL;
    if (cards == NULL || !PyTuple_CheckExact(cards) || !mask_value(mask_o, &mask) ||
        !small_int(value_o, -1000000, 1000000, &value))
        return pure_apply(game, move);
    Py_INCREF(cards);
    if (append_move(game, s->p, move) == NULL) goto done;
    s->hand ^= mask;
    s->known_mask &= ~mask;
    s->value -= value;
    s->count -= PyTuple_GET_SIZE(cards);
    if (write_seat(s) < 0) goto done;
    if (PyList_Append(SLOT(game, pile), cards) < 0) goto done;
    if (PyTuple_GET_SIZE(cards) == 1) {
        kind = Py_NewRef(E.single);
    } else {
        int k = classify(cards, rules);
        kind = k == -2 ? PyObject_CallFunctionObjArgs(E.classify, cards, rules, NULL)
                       : PyLong_FromLong(k);
    }
    if (kind == NULL || PyList_Append(SLOT(game, kinds), kind) < 0) goto done;
    PyObject *seat = PyLong_FromLong(s->p);
    if (seat == NULL) goto done;
    PyObject *event = tuple_of(3, E.discarded, seat, cards, NULL);
    Py_DECREF(seat);
    if (event == NULL) goto done;
    int rc = PyList_Append(SLOT(game, events), event);
    Py_DECREF(event);
    if (rc < 0) goto done;
    if (RULE(rules, draw_first) == Py_True) { /* the discard ends a draw-first turn */
        if (end_turn(game, s->p, s->n) < 0) goto done;
    } else {
        set_slot(game, E.phase, Py_NewRef(E.phase_draw));
    }
    result = Py_NewRef(Py_None);
done:
    Py_DECREF(cards);
    Py_XDECREF(kind);
    return result;
}

static PyObject *do_draw(PyObject *game, Seat *s, PyObject *move, PyObject *rules) {
    PyObject *card_o = SLOT(move, w_card);
    if (card_o == NULL) return pure_apply(game, move);
    Py_INCREF(card_o);
    PyObject *stock = SLOT(game, stock), *pile = SLOT(game, pile), *kinds = SLOT(game, kinds);
    PyObject *result = NULL, *event = NULL;
    long card;
    int from_stock = card_o == Py_None, first = RULE(rules, draw_first) == Py_True;
    /* The previous discard lies under this turn's discard, or on top with draw-first. */
    Py_ssize_t under = first ? 1 : 2;
    if (from_stock) {
        /* slapdown's stock draws may open a window (never before a draw-first discard), and
         * an empty stock raises: game.py's */
        PyObject *slapdown = RULE(rules, slapdown);
        int off = first || slapdown == E.s_off || PyUnicode_Compare(slapdown, E.s_off) == 0;
        if (!off || PyList_GET_SIZE(stock) == 0 ||
            !small_int(PyList_GET_ITEM(stock, PyList_GET_SIZE(stock) - 1), 0, 54, &card)) {
            result = pure_apply(game, move);
            goto done;
        }
    } else if (!small_int(card_o, 0, 54, &card) || PyList_GET_SIZE(pile) < under) {
        result = pure_apply(game, move);
        goto done;
    }
    if (append_move(game, s->p, move) == NULL) goto done;
    if (from_stock) {
        Py_ssize_t last = PyList_GET_SIZE(stock) - 1;
        PyObject *top = Py_NewRef(PyList_GET_ITEM(stock, last));
        if (PyList_SetSlice(stock, last, last + 1, NULL) < 0) {
            Py_DECREF(top);
            goto done;
        }
        PyObject *seat = PyLong_FromLong(s->p);
        event = seat == NULL ? NULL : tuple_of(4, E.drew, seat, E.s_stock, top);
        Py_XDECREF(seat);
        Py_DECREF(top);
    } else {
        Py_ssize_t i = PyList_GET_SIZE(pile) - under;
        PyObject *group = PyList_GET_ITEM(pile, i);
        Py_ssize_t size = PyTuple_GET_SIZE(group);
        if (size == 1) {
            if (PyList_SetSlice(pile, i, i + 1, NULL) < 0) goto done;
            if (PyList_SetSlice(kinds, i, i + 1, NULL) < 0) goto done;
        } else {
            Py_ssize_t k = -1;
            for (Py_ssize_t j = 0; j < size && k < 0; j++) {
                int eq = PyObject_RichCompareBool(PyTuple_GET_ITEM(group, j), card_o, Py_EQ);
                if (eq < 0) goto done;
                if (eq) k = j;
            }
            if (k < 0) { /* not in the group: tuple.index's own error, as game.py raises it */
                PyObject *r = PyObject_CallMethod(group, "index", "O", card_o);
                Py_XDECREF(r);
                goto done;
            }
            PyObject *rest = PyTuple_New(size - 1);
            if (rest == NULL) goto done;
            for (Py_ssize_t j = 0, m = 0; j < size; j++) {
                if (j == k) continue;
                PyTuple_SET_ITEM(rest, m++, Py_NewRef(PyTuple_GET_ITEM(group, j)));
            }
            PyList_SetItem(pile, i, rest);
            PyList_SetItem(kinds, i, Py_NewRef(E.broken));
        }
        s->known_mask |= (uint64_t)1 << card;
        PyObject *seat = PyLong_FromLong(s->p);
        event = seat == NULL ? NULL : tuple_of(4, E.drew, seat, E.s_pile, card_o);
        Py_XDECREF(seat);
    }
    if (event == NULL || PyList_Append(SLOT(game, events), event) < 0) goto done;
    s->hand |= (uint64_t)1 << card;
    s->value += PyLong_AsLong(PyTuple_GET_ITEM(E.value, card));
    s->count += 1;
    if (write_seat(s) < 0) goto done;
    if (PyList_GET_SIZE(SLOT(game, stock)) == 0) {
        PyObject *r = PyObject_CallMethod(game, "_refill", NULL);
        if (r == NULL) goto done;
        Py_DECREF(r);
    }
    if (first) { /* the turn's discard is next; its one draw is made */
        PyObject *drawn = from_stock ? Py_NewRef(E.minus_one) : Py_NewRef(card_o);
        set_slot(game, E.phase, Py_NewRef(E.phase_discard));
        set_slot(game, E.drawn, drawn);
        set_slot(game, E.pickable, Py_NewRef(E.no_cards));
    } else if (end_turn(game, s->p, s->n) < 0) {
        goto done;
    }
    result = Py_NewRef(Py_None);
done:
    Py_DECREF(card_o);
    Py_XDECREF(event);
    return result;
}

/* game.py's Game.apply (see above for what is left to it). */
static PyObject *core_apply(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "apply(game, move)");
        return NULL;
    }
    PyObject *game = args[0], *move = args[1];
    if (!E.ready || Py_TYPE(game) != E.game) return pure_apply(game, move);
    PyObject *rules = SLOT(game, rules);
    Seat s;
    if (!rules_ok(rules) || !read_seat(game, &s) || !table_ok(game, s.n))
        return pure_apply(game, move);
    PyTypeObject *type = Py_TYPE(move);
    if (type == E.discard_t) return do_discard(game, &s, move, rules);
    if (type == E.draw_t) return do_draw(game, &s, move, rules);
    if (type == E.yaniv_t) {
        if (append_move(game, s.p, move) == NULL) return NULL;
        return PyObject_CallMethod(game, "_showdown", "l", s.p);
    }
    return pure_apply(game, move);
}

/* game.py's draw_options in a phase where a draw is due and the hand holds a card (a new list):
 * the stock first (while it holds a card), then the pickable cards' draws, each tuple of draws
 * kept in game.py's own cache; None where the pickable cards are not as game.py lays them. */
static PyObject *draw_list(PyObject *game) {
    PyObject *pickable = SLOT(game, pickable), *stock = SLOT(game, stock);
    if (pickable == NULL || !PyTuple_CheckExact(pickable) || !is_list(stock))
        Py_RETURN_NONE;
    PyObject *draws = PyDict_GetItemWithError(E.draws_of, pickable); /* borrowed */
    if (draws != NULL) {
        Py_INCREF(draws);
    } else {
        if (PyErr_Occurred()) return NULL;
        Py_ssize_t size = PyTuple_GET_SIZE(pickable);
        long c = 0;
        for (Py_ssize_t i = 0; i < size; i++)
            if (!small_int(PyTuple_GET_ITEM(pickable, i), 0, 54, &c))
                Py_RETURN_NONE;
        if (PyDict_GET_SIZE(E.draws_of) >= E.draws_limit) PyDict_Clear(E.draws_of);
        draws = PyTuple_New(size);
        if (draws == NULL) return NULL;
        for (Py_ssize_t i = 0; i < size; i++) {
            small_int(PyTuple_GET_ITEM(pickable, i), 0, 54, &c);
            PyTuple_SET_ITEM(draws, i, Py_NewRef(PyTuple_GET_ITEM(E.draws, c)));
        }
        if (PyDict_SetItem(E.draws_of, pickable, draws) < 0) {
            Py_DECREF(draws);
            return NULL;
        }
    }
    int with_stock = PyList_GET_SIZE(stock) > 0;
    Py_ssize_t size = PyTuple_GET_SIZE(draws);
    PyObject *out = PyList_New(size + with_stock);
    if (out != NULL) {
        if (with_stock) PyList_SET_ITEM(out, 0, Py_NewRef(E.draw_stock));
        for (Py_ssize_t i = 0; i < size; i++)
            PyList_SET_ITEM(out, i + with_stock, Py_NewRef(PyTuple_GET_ITEM(draws, i)));
    }
    Py_DECREF(draws);
    return out;
}

/* game.py's Game.legal_moves in a draw-first game: at a turn start the draws (none for an
 * empty hand, R22), a Yaniv call first where it may be made; after the draw the discards but
 * the whole hand and the card just taken from the pile laid alone (R21). */
static PyObject *first_legal_moves(PyObject *game, PyObject *phase, PyObject *rules) {
    long n, p, value, threshold, count, drawn;
    PyObject *hands = SLOT(game, hands), *values = SLOT(game, values);
    PyObject *counts = SLOT(game, counts), *lister = SLOT(game, discards);
    if ((phase != E.phase_start && phase != E.phase_discard) ||
        !small_int(SLOT(game, n), 2, 9, &n) || !small_int(SLOT(game, to_move), 0, n, &p) ||
        !is_list(hands) || !is_list(values) || !is_list(counts) || PyList_GET_SIZE(hands) != n ||
        PyList_GET_SIZE(values) != n || PyList_GET_SIZE(counts) != n || lister == NULL)
        return PyObject_CallOneArg(E.pure_legal, game);
    if (phase == E.phase_start) {
        if (!small_int(PyList_GET_ITEM(values, p), -1000000, 1000000, &value) ||
            !small_int(PyList_GET_ITEM(counts, p), 0, 1000, &count) ||
            !small_int(RULE(rules, threshold), -1000000, 1000000, &threshold))
            return PyObject_CallOneArg(E.pure_legal, game);
        PyObject *list = count ? draw_list(game) : PyList_New(0);
        if (list == Py_None) {
            Py_DECREF(list);
            return PyObject_CallOneArg(E.pure_legal, game);
        }
        if (list == NULL) return NULL;
        if ((value <= threshold || RULE(rules, above) == Py_True) &&
            PyList_Insert(list, 0, E.yaniv) < 0) {
            Py_DECREF(list);
            return NULL;
        }
        return list;
    }
    uint64_t hand;
    PyObject *key = PyList_GET_ITEM(hands, p);
    if (!mask_value(key, &hand) || !small_int(SLOT(game, drawn), -1, 54, &drawn))
        return PyObject_CallOneArg(E.pure_legal, game);
    PyObject *every = PyObject_CallOneArg(lister, key);
    if (every == NULL) return NULL;
    if (!PyTuple_Check(every)) {
        Py_DECREF(every);
        return PyObject_CallOneArg(E.pure_legal, game);
    }
    Py_ssize_t size = PyTuple_GET_SIZE(every), kept = 0;
    PyObject *small[64], **items = size <= 64 ? small : PyMem_Malloc(size * sizeof *items);
    if (items == NULL) {
        Py_DECREF(every);
        return PyErr_NoMemory();
    }
    PyObject *made = NULL;
    for (Py_ssize_t i = 0; i < size; i++) {
        PyObject *d = PyTuple_GET_ITEM(every, i), *cards;
        uint64_t mask;
        long only;
        if (Py_TYPE(d) != E.discard_t || !mask_value(SLOT(d, d_mask), &mask) ||
            (cards = SLOT(d, d_cards)) == NULL || !PyTuple_CheckExact(cards)) {
            made = PyObject_CallOneArg(E.pure_legal, game);
            goto done;
        }
        if (mask == hand) continue; /* a card stays in the hand */
        if (PyTuple_GET_SIZE(cards) == 1 && small_int(PyTuple_GET_ITEM(cards, 0), 0, 54, &only) &&
            only == drawn)
            continue; /* the card just taken from the pile is not laid again */
        items[kept++] = d;
    }
    made = tuple_subtype_of(Py_TYPE(every), items, kept);
done:
    if (items != small) PyMem_Free(items);
    Py_DECREF(every);
    return made;
}

/* game.py's Game.legal_moves: a discard-first turn's start and draw, a draw-first turn's. */
static PyObject *core_legal_moves(PyObject *module, PyObject *game) {
    if (!E.ready || Py_TYPE(game) != E.game)
        return PyObject_CallOneArg(E.pure_legal, game);
    PyObject *phase = SLOT(game, phase), *rules = SLOT(game, rules);
    if (!rules_ok(rules)) return PyObject_CallOneArg(E.pure_legal, game);
    if (RULE(rules, draw_first) == Py_True) return first_legal_moves(game, phase, rules);
    if (phase == E.phase_start) {
        long n, p, value, threshold;
        PyObject *hands = SLOT(game, hands), *values = SLOT(game, values);
        PyObject *lister = SLOT(game, discards);
        if (!small_int(SLOT(game, n), 2, 9, &n) || !small_int(SLOT(game, to_move), 0, n, &p) ||
            !is_list(hands) || !is_list(values) || PyList_GET_SIZE(hands) != n ||
            PyList_GET_SIZE(values) != n || lister == NULL ||
            !small_int(PyList_GET_ITEM(values, p), -1000000, 1000000, &value))
            return PyObject_CallOneArg(E.pure_legal, game);
        if (!small_int(RULE(rules, threshold), -1000000, 1000000, &threshold))
            return PyObject_CallOneArg(E.pure_legal, game);
        int yaniv = value <= threshold || RULE(rules, above) == Py_True;
        PyObject *discards = PyObject_CallOneArg(lister, PyList_GET_ITEM(hands, p));
        if (discards == NULL || !yaniv) return discards;
        if (!PyTuple_Check(discards)) {
            Py_DECREF(discards);
            return PyObject_CallOneArg(E.pure_legal, game);
        }
        Py_ssize_t size = PyTuple_GET_SIZE(discards);
        PyObject *small[64], **items = size < 64 ? small : PyMem_Malloc((size + 1) * sizeof *items);
        if (items == NULL) {
            Py_DECREF(discards);
            return PyErr_NoMemory();
        }
        items[0] = E.yaniv;
        for (Py_ssize_t i = 0; i < size; i++) items[i + 1] = PyTuple_GET_ITEM(discards, i);
        PyObject *made = tuple_subtype_of(Py_TYPE(discards), items, size + 1);
        if (items != small) PyMem_Free(items);
        Py_DECREF(discards);
        return made;
    }
    if (phase == E.phase_draw) {
        PyObject *list = draw_list(game);
        if (list != Py_None) return list;
        Py_DECREF(list);
    }
    return PyObject_CallOneArg(E.pure_legal, game);
}


/* Game.apply and Game.legal_moves themselves, as method descriptors of the Game class (setup
 * returns them and game.py puts them on the class where the core is built): what game.py's
 * Python methods do (the core where the game's ``_fast`` is set, the pure method otherwise),
 * without a Python frame on the way. */
static int is_fast(PyObject *self) {
    PyObject *fast = SLOT(self, fast);
    if (fast == NULL) { /* unset: the attribute's own error, as the Python method raises it */
        PyObject *v = PyObject_GetAttrString(self, "_fast");
        Py_XDECREF(v);
        return v == NULL ? -1 : PyObject_IsTrue(v);
    }
    return fast == Py_True ? 1 : fast == Py_False ? 0 : PyObject_IsTrue(fast);
}

static PyObject *method_apply(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                              PyObject *kwnames) {
    static const char *const names[] = {"move", NULL};
    PyObject *move;
    Py_ssize_t given = nargs + (kwnames == NULL ? 0 : PyTuple_GET_SIZE(kwnames));
    if (given != 1 || (kwnames != NULL && PyTuple_GET_SIZE(kwnames) &&
                       PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, 0), names[0]))) {
        PyErr_SetString(PyExc_TypeError, "Game.apply() takes one argument: move");
        return NULL;
    }
    move = args[0];
    int fast = is_fast(self);
    if (fast < 0) return NULL;
    if (fast) {
        PyObject *both[2] = {self, move};
        return core_apply(NULL, both, 2);
    }
    return PyObject_CallFunctionObjArgs(E.pure_apply, self, move, NULL);
}

static PyObject *method_legal_moves(PyObject *self, PyObject *unused) {
    int fast = is_fast(self);
    if (fast < 0) return NULL;
    if (fast) return core_legal_moves(NULL, self);
    return PyObject_CallOneArg(E.pure_legal, self);
}

static PyMethodDef game_methods[] = {
    {"apply", (PyCFunction)(void (*)(void))method_apply, METH_FASTCALL | METH_KEYWORDS, NULL},
    {"legal_moves", (PyCFunction)method_legal_moves, METH_NOARGS, NULL},
};

/* What the engine's functions need of game.py, given once at its import; returns the method
 * descriptors of Game.apply and Game.legal_moves (their docstrings: ``docs``). */
static PyObject *core_setup(PyObject *module, PyObject *args) {
    PyTypeObject *game, *discard_t, *draw_t, *yaniv_t, *rules_t;
    const char *apply_doc, *legal_doc;
    PyObject *discarded, *drew, *phase_start, *phase_draw, *phase_discard, *value, *classify,
        *pickable_of, *yaniv, *draw_stock, *draws, *draws_of, *pure_apply_f, *pure_legal, *single,
        *broken;
    Py_ssize_t draws_limit;
    if (!PyArg_ParseTuple(args, "O!O!O!O!O!OOOOOO!OOOOO!O!nOOOOss", &PyType_Type, &game,
                          &PyType_Type, &rules_t, &PyType_Type, &discard_t, &PyType_Type, &draw_t,
                          &PyType_Type, &yaniv_t, &discarded, &drew, &phase_start, &phase_draw,
                          &phase_discard, &PyTuple_Type, &value, &classify,
                          &pickable_of, &yaniv, &draw_stock, &PyTuple_Type, &draws, &PyDict_Type,
                          &draws_of, &draws_limit, &pure_apply_f, &pure_legal, &single, &broken,
                          &apply_doc, &legal_doc))
        return NULL;
    if (PyTuple_GET_SIZE(value) != 54 || PyTuple_GET_SIZE(draws) != 54) {
        PyErr_SetString(PyExc_ValueError, "VALUE and DRAWS hold one entry per card (54)");
        return NULL;
    }
    Engine e = {0};
    if (offset_of(game, "rules", &e.rules) < 0 || offset_of(game, "n", &e.n) < 0 ||
        offset_of(game, "out", &e.out) < 0 || offset_of(game, "hands", &e.hands) < 0 ||
        offset_of(game, "values", &e.values) < 0 || offset_of(game, "counts", &e.counts) < 0 ||
        offset_of(game, "known", &e.known) < 0 || offset_of(game, "stock", &e.stock) < 0 ||
        offset_of(game, "pile", &e.pile) < 0 || offset_of(game, "kinds", &e.kinds) < 0 ||
        offset_of(game, "pickable", &e.pickable) < 0 ||
        offset_of(game, "_to_move", &e.to_move) < 0 || offset_of(game, "phase", &e.phase) < 0 ||
        offset_of(game, "drawn", &e.drawn) < 0 || offset_of(game, "moves", &e.moves) < 0 ||
        offset_of(game, "_events", &e.events) < 0 || offset_of(game, "_veil", &e.veil) < 0 ||
        offset_of(game, "_discards", &e.discards) < 0 || offset_of(game, "_fast", &e.fast) < 0 ||
        offset_of(game, "scores", &e.scores) < 0 ||
        offset_of(discard_t, "cards", &e.d_cards) < 0 ||
        offset_of(discard_t, "mask", &e.d_mask) < 0 ||
        offset_of(discard_t, "value", &e.d_value) < 0 ||
        offset_of(draw_t, "card", &e.w_card) < 0 ||
        offset_of(rules_t, "draw_first", &e.r_draw_first) < 0 ||
        offset_of(rules_t, "slapdown", &e.r_slapdown) < 0 ||
        offset_of(rules_t, "pickup", &e.r_pickup) < 0 ||
        offset_of(rules_t, "yaniv_threshold", &e.r_threshold) < 0 ||
        offset_of(rules_t, "yaniv_above_threshold", &e.r_above) < 0 ||
        offset_of(rules_t, "jokers_in_sets", &e.r_jokers_in_sets) < 0 ||
        offset_of(rules_t, "joker_pair", &e.r_joker_pair) < 0 ||
        offset_of(rules_t, "max_set", &e.r_max_set) < 0 ||
        offset_of(rules_t, "run_naturals", &e.r_run_naturals) < 0 ||
        offset_of(rules_t, "joker_in_run", &e.r_joker_in_run) < 0)
        return NULL;
    e.game = (PyTypeObject *)Py_NewRef(game);
    e.rules_t = (PyTypeObject *)Py_NewRef(rules_t);
    e.discard_t = (PyTypeObject *)Py_NewRef(discard_t);
    e.draw_t = (PyTypeObject *)Py_NewRef(draw_t);
    e.yaniv_t = (PyTypeObject *)Py_NewRef(yaniv_t);
    e.discarded = Py_NewRef(discarded);
    e.drew = Py_NewRef(drew);
    e.phase_start = Py_NewRef(phase_start);
    e.phase_draw = Py_NewRef(phase_draw);
    e.phase_discard = Py_NewRef(phase_discard);
    e.value = Py_NewRef(value);
    e.classify = Py_NewRef(classify);
    e.pickable_of = Py_NewRef(pickable_of);
    e.yaniv = Py_NewRef(yaniv);
    e.draw_stock = Py_NewRef(draw_stock);
    e.draws = Py_NewRef(draws);
    e.draws_of = Py_NewRef(draws_of);
    e.draws_limit = draws_limit;
    e.pure_apply = Py_NewRef(pure_apply_f);
    e.pure_legal = Py_NewRef(pure_legal);
    e.single = Py_NewRef(single);
    e.broken = Py_NewRef(broken);
    if ((e.minus_one = PyLong_FromLong(-1)) == NULL) return NULL;
    if ((e.no_cards = PyTuple_New(0)) == NULL) return NULL;
    if ((e.s_stock = PyUnicode_InternFromString("stock")) == NULL) return NULL;
    if ((e.s_pile = PyUnicode_InternFromString("pile")) == NULL) return NULL;
    if ((e.s_off = PyUnicode_InternFromString("off")) == NULL) return NULL;
    e.ready = 1;
    E = e; /* set up once, at game.py's import; a second setup leaks the first's references */
    /* The docstrings live as long as the module: copied, since game.py's strings may go. */
    static char apply_text[1024], legal_text[1024];
    snprintf(apply_text, sizeof apply_text, "apply($self, /, move)\n--\n\n%s", apply_doc);
    snprintf(legal_text, sizeof legal_text, "legal_moves($self, /)\n--\n\n%s", legal_doc);
    game_methods[0].ml_doc = apply_text;
    game_methods[1].ml_doc = legal_text;
    PyObject *apply_m = PyDescr_NewMethod(game, &game_methods[0]);
    PyObject *legal_m = apply_m == NULL ? NULL : PyDescr_NewMethod(game, &game_methods[1]);
    if (legal_m == NULL) {
        Py_XDECREF(apply_m);
        return NULL;
    }
    return Py_BuildValue("(NN)", apply_m, legal_m);
}

/* discards.classify, for tests: the kind, or None where it would ask discards.classify. */
static PyObject *core_classify(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyTuple_CheckExact(args[0]) || !E.ready ||
        Py_TYPE(args[1]) != E.rules_t) {
        PyErr_SetString(PyExc_TypeError, "classify(cards: tuple, rules: RuleSet), after setup");
        return NULL;
    }
    if (PyTuple_GET_SIZE(args[0]) < 2) Py_RETURN_NONE; /* apply never asks for fewer */
    int k = classify(args[0], args[1]);
    if (k == -2) Py_RETURN_NONE;
    return PyLong_FromLong(k);
}


/* envs/observation.py's Observer._card_bits: the card planes of ``seat``'s observation as one
 * int (bit k is entry k): its hand; each other seat's known cards at its plane (``shifts``, a
 * list of (seat, shift)); from ``pile_shift`` on, the pile's cards, the top discard's, the
 * pickable ones and the card just drawn (when ``seat`` is to move). None where the game is not
 * laid out as game.py lays it out (the caller then reads it in Python). */
static PyObject *core_card_bits(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "card_bits(game, seat, shifts, pile_shift)");
        return NULL;
    }
    PyObject *game = args[0], *shifts = args[2];
    long seat, pile_shift, n, to_move, drawn;
    if (!E.ready || Py_TYPE(game) != E.game || !PyList_CheckExact(shifts) ||
        !small_int(SLOT(game, n), 2, 9, &n) || !small_int(args[1], 0, n, &seat) ||
        !small_int(args[3], 0, 54 * 9, &pile_shift) ||
        !small_int(SLOT(game, to_move), -1, n, &to_move) ||
        !small_int(SLOT(game, drawn), -1, 54, &drawn))
        Py_RETURN_NONE;
    PyObject *hands = SLOT(game, hands), *known = SLOT(game, known), *pile = SLOT(game, pile);
    PyObject *pickable = SLOT(game, pickable);
    if (!is_list(hands) || !is_list(known) || !is_list(pile) || pickable == NULL ||
        !PyTuple_CheckExact(pickable) || PyList_GET_SIZE(hands) != n || PyList_GET_SIZE(known) != n)
        Py_RETURN_NONE;
    long top_at = pile_shift + 4 * 54; /* the planes end here */
    unsigned char raw[(54 * 12 + 7) / 8 + 8];
    size_t nbytes = (size_t)(top_at + 7) / 8;
    if (nbytes > sizeof raw) Py_RETURN_NONE;
    memset(raw, 0, sizeof raw);
#define SET_BIT(i) (raw[(i) >> 3] |= (unsigned char)(1u << ((i) & 7)))
#define SET_MASK(mask, shift)                                                  \
    for (uint64_t rest_ = (mask); rest_; rest_ &= rest_ - 1) SET_BIT((long)ctz64(rest_) + (shift))
    uint64_t mask;
    if (!mask_value(PyList_GET_ITEM(hands, seat), &mask)) Py_RETURN_NONE;
    SET_MASK(mask, 0);
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(shifts); i++) {
        PyObject *pair = PyList_GET_ITEM(shifts, i);
        long s, shift;
        if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2 ||
            !small_int(PyTuple_GET_ITEM(pair, 0), 0, n, &s) ||
            !small_int(PyTuple_GET_ITEM(pair, 1), 0, pile_shift - 53, &shift) ||
            !mask_value(PyList_GET_ITEM(known, s), &mask))
            Py_RETURN_NONE;
        SET_MASK(mask, shift);
    }
    Py_ssize_t groups = PyList_GET_SIZE(pile);
    uint64_t below = 0, top = 0, take = 0;
    for (Py_ssize_t g = 0; g < groups; g++) {
        PyObject *group = PyList_GET_ITEM(pile, g);
        if (!PyTuple_CheckExact(group)) Py_RETURN_NONE;
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(group); j++) {
            long card;
            if (!small_int(PyTuple_GET_ITEM(group, j), 0, 54, &card)) Py_RETURN_NONE;
            if (g == groups - 1)
                top |= (uint64_t)1 << card;
            else
                below |= (uint64_t)1 << card;
        }
    }
    for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(pickable); j++) {
        long card;
        if (!small_int(PyTuple_GET_ITEM(pickable, j), 0, 54, &card)) Py_RETURN_NONE;
        take |= (uint64_t)1 << card;
    }
    SET_MASK(below | top, pile_shift);
    SET_MASK(top, pile_shift + 54);
    SET_MASK(take, pile_shift + 108);
    if (drawn >= 0 && to_move == seat) SET_BIT(drawn + pile_shift + 162);
#undef SET_MASK
#undef SET_BIT
#if PY_VERSION_HEX >= 0x030D0000
    return PyLong_FromUnsignedNativeBytes(raw, nbytes, Py_ASNATIVEBYTES_LITTLE_ENDIAN);
#else
    return _PyLong_FromByteArray(raw, nbytes, 1, 0);
#endif
}

/* ------------------------------------------------------------------ Writer, Actions, write_mask
 *
 * The environments' per-step work: envs/observation.py's ``Observer.write`` (a seat's whole
 * observation), envs/actions.py's ``ActionTable.legal_actions`` and ``MaskBuffer.update``.
 * Each answers False or None, writing nothing, where its inputs are not as game.py and the
 * environments lay them out (another seat's slap window included: its observation is read
 * from the view); the Python twin then does the work, and raises what it raises. */

/* An exact int's value as a long long, where it fits (0 otherwise). */
static inline int exact_ll(PyObject *v, long long *out) {
    if (v == NULL || !PyLong_CheckExact(v)) return 0;
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow) return 0;
    *out = x;
    return 1;
}

/* The card planes of ``seat``'s observation as masks of cards: [0] its hand, [k] for
 * k = 1..n-1 the known cards of seat (seat + k) % n, then the pile, its top group, the
 * pickable cards and the card just drawn (when ``seat`` is to move): Observer._card_bits. */
static int card_masks(PyObject *game, long seat, long n, long to_move, long drawn,
                      uint64_t *masks) {
    PyObject *hands = SLOT(game, hands), *known = SLOT(game, known), *pile = SLOT(game, pile);
    PyObject *pickable = SLOT(game, pickable);
    if (!is_list(hands) || !is_list(known) || !is_list(pile) || pickable == NULL ||
        !PyTuple_CheckExact(pickable) || PyList_GET_SIZE(hands) != n ||
        PyList_GET_SIZE(known) != n)
        return 0;
    if (!mask_value(PyList_GET_ITEM(hands, seat), &masks[0])) return 0;
    for (long k = 1; k < n; k++)
        if (!mask_value(PyList_GET_ITEM(known, (seat + k) % n), &masks[k])) return 0;
    Py_ssize_t groups = PyList_GET_SIZE(pile);
    uint64_t below = 0, top = 0, take = 0;
    for (Py_ssize_t g = 0; g < groups; g++) {
        PyObject *group = PyList_GET_ITEM(pile, g);
        if (!PyTuple_CheckExact(group)) return 0;
        uint64_t cards = 0;
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(group); j++) {
            long card;
            if (!small_int(PyTuple_GET_ITEM(group, j), 0, 54, &card)) return 0;
            cards |= (uint64_t)1 << card;
        }
        if (g == groups - 1)
            top = cards;
        else
            below |= cards;
    }
    for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(pickable); j++) {
        long card;
        if (!small_int(PyTuple_GET_ITEM(pickable, j), 0, 54, &card)) return 0;
        take |= (uint64_t)1 << card;
    }
    masks[n] = below | top;
    masks[n + 1] = top;
    masks[n + 2] = take;
    masks[n + 3] = drawn >= 0 && to_move == seat ? (uint64_t)1 << drawn : 0;
    return 1;
}

/* A writable, C-contiguous, one-dimensional buffer of ``count`` items at least, of one byte
 * (format "b", "B" or none) or float32 (``want_float``); 0 where it is not one. */
static int item_buffer(PyObject *obj, Py_buffer *view, int want_float, Py_ssize_t count) {
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyErr_Clear();
        return 0;
    }
    const char *format = view->format == NULL ? "B" : view->format;
    if (format[0] == '<' || format[0] == '=' || format[0] == '@') format++;
    int ok = view->ndim == 1 && view->len >= count * view->itemsize &&
             (want_float ? view->itemsize == 4 && strcmp(format, "f") == 0
                         : view->itemsize == 1 && (strcmp(format, "b") == 0 ||
                                                   strcmp(format, "B") == 0));
    if (!ok) PyBuffer_Release(view);
    return ok;
}

/* Each byte's bits as eight float32 entries, lowest bit first (filled at the module's import). */
static float BYTE_FLOATS[256][8];

/* envs/observation.py's Observer.write for one rule set and player count (its layout and
 * scales given once): ``writer(game, seat, out)`` writes every part but ``rules`` (which never
 * changes) and answers True, or False having written nothing. */
typedef struct {
    PyObject_HEAD
    long n, size, sizes_at, scores_at, out_at, turn_at, phase_at, stock_at, value_at;
    double inv_hand, inv_limit, inv_stock, inv_value;
    long long cap;
} Writer;

static int Writer_init(Writer *self, PyObject *args, PyObject *kwds) {
    if (!PyArg_ParseTuple(args, "lllllllllddddL", &self->n, &self->size, &self->sizes_at,
                          &self->scores_at, &self->out_at, &self->turn_at, &self->phase_at,
                          &self->stock_at, &self->value_at, &self->inv_hand, &self->inv_limit,
                          &self->inv_stock, &self->inv_value, &self->cap))
        return -1;
    long n = self->n;
    /* The layout Observer makes: the card planes, then these parts in this order. */
    if (n < 2 || n > 8 || self->sizes_at != 54 * (n + 4) || self->scores_at != self->sizes_at + n ||
        self->out_at != self->scores_at + n || self->turn_at != self->out_at + n ||
        self->phase_at != self->turn_at + n || self->stock_at != self->phase_at + 6 ||
        self->value_at != self->stock_at + 1 || self->size <= self->value_at) {
        PyErr_SetString(PyExc_ValueError, "Writer: not the layout of an Observer");
        return -1;
    }
    return 0;
}

/* The writer's work into ``f`` (``size`` floats): 1, or 0 having written nothing. */
static int writer_write(Writer *self, PyObject *game, long seat, float *f) {
    long n = self->n, to_move, drawn, phase;
    if (!E.ready || Py_TYPE(game) != E.game || !small_int(SLOT(game, n), n, n + 1, &n) ||
        seat < 0 || seat >= n || !small_int(SLOT(game, to_move), -1, n, &to_move) ||
        !small_int(SLOT(game, drawn), -1, 54, &drawn))
        return 0;
    PyObject *phase_o = SLOT(game, phase);
    if (phase_o == NULL || !PyLong_Check(phase_o)) return 0;
    phase = PyLong_AsLong(phase_o);
    if (phase < 0 || phase > 5) {
        PyErr_Clear();
        return 0;
    }
    if (phase == 3 && seat != to_move) return 0; /* another seat's slap window: a view */
    uint64_t masks[12];
    if (!card_masks(game, seat, n, to_move, drawn, masks)) return 0;
    PyObject *counts = SLOT(game, counts), *scores = SLOT(game, scores), *out = SLOT(game, out);
    PyObject *values = SLOT(game, values), *stock = SLOT(game, stock);
    if (!is_list(counts) || !is_list(scores) || !is_list(out) || !is_list(values) ||
        !is_list(stock) || PyList_GET_SIZE(counts) != n || PyList_GET_SIZE(scores) != n ||
        PyList_GET_SIZE(out) != n || PyList_GET_SIZE(values) != n)
        return 0;
    long long count[8], score[8], value;
    int is_out[8];
    for (long k = 0; k < n; k++) {
        long s = (seat + k) % n;
        PyObject *o = PyList_GET_ITEM(out, s);
        if (!exact_ll(PyList_GET_ITEM(counts, s), &count[k]) ||
            !exact_ll(PyList_GET_ITEM(scores, s), &score[k]) || (o != Py_True && o != Py_False))
            return 0;
        is_out[k] = o == Py_True;
    }
    if (!exact_ll(PyList_GET_ITEM(values, seat), &value)) return 0;
    /* The planes: entry 54 * plane + card, eight entries a byte of the mask at a time. */
    for (long plane = 0; plane < n + 4; plane++) {
        float *at = f + 54 * plane;
        uint64_t m = masks[plane];
        for (int b = 0; b < 6; b++) memcpy(at + 8 * b, BYTE_FLOATS[(m >> (8 * b)) & 0xFF], 32);
        memcpy(at + 48, BYTE_FLOATS[(m >> 48) & 0x3F], 24);
    }
    /* The numbers, multiplied in double precision and stored as float32, as numpy does. */
    for (long k = 0; k < n; k++) {
        long long capped = score[k] < self->cap ? score[k] : self->cap;
        f[self->sizes_at + k] = (float)((double)count[k] * self->inv_hand);
        f[self->scores_at + k] = (float)((double)capped * self->inv_limit);
        f[self->out_at + k] = is_out[k] ? 1.0f : 0.0f;
        f[self->turn_at + k] = to_move >= 0 && (to_move - seat + n) % n == k ? 1.0f : 0.0f;
    }
    for (long p = 0; p < 6; p++) f[self->phase_at + p] = p == phase ? 1.0f : 0.0f;
    f[self->stock_at] = (float)((double)PyList_GET_SIZE(stock) * self->inv_stock);
    f[self->value_at] = (float)((double)value * self->inv_value);
    return 1;
}

static PyObject *Writer_call(Writer *self, PyObject *args, PyObject *kwds) {
    PyObject *game, *seat_o, *out_o;
    long seat;
    if (!PyArg_UnpackTuple(args, "writer", 3, 3, &game, &seat_o, &out_o)) return NULL;
    if (!small_int(seat_o, 0, self->n, &seat)) Py_RETURN_FALSE;
    Py_buffer view;
    if (!item_buffer(out_o, &view, 1, self->size)) Py_RETURN_FALSE;
    int wrote = writer_write(self, game, seat, (float *)view.buf);
    PyBuffer_Release(&view);
    return PyBool_FromLong(wrote);
}

static PyTypeObject WriterType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "yaniv._core.Writer",
    .tp_basicsize = sizeof(Writer),
    .tp_call = (ternaryfunc)Writer_call,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A seat's observation written into a float32 array (Observer.write), compiled.",
    .tp_init = (initproc)Writer_init,
    .tp_new = PyType_GenericNew,
};

/* envs/actions.py's ActionTable.legal_actions at the start of a turn and in phase draw:
 * ``actions(game)`` is the list of legal action indices, or None (the table's Python then). */
typedef struct {
    PyObject_HEAD
    PyObject *singles, *sets, *runs, *of_rank, *of_suit, *pair;
    PyObject *draw_of; /* tuple of 54: the action of drawing each card */
    PyObject *stock, *yaniv; /* the actions of ``draw stock`` and ``yaniv`` */
    int jokers_in_sets, run_jokers, run_naturals;
} Actions;

static void Actions_dealloc(Actions *self) {
    PyObject_GC_UnTrack(self);
    Py_CLEAR(self->singles);
    Py_CLEAR(self->sets);
    Py_CLEAR(self->runs);
    Py_CLEAR(self->of_rank);
    Py_CLEAR(self->of_suit);
    Py_CLEAR(self->pair);
    Py_CLEAR(self->draw_of);
    Py_CLEAR(self->stock);
    Py_CLEAR(self->yaniv);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Actions_traverse(Actions *self, visitproc visit, void *arg) {
    Py_VISIT(self->singles);
    Py_VISIT(self->sets);
    Py_VISIT(self->runs);
    Py_VISIT(self->of_rank);
    Py_VISIT(self->of_suit);
    Py_VISIT(self->pair);
    Py_VISIT(self->draw_of);
    Py_VISIT(self->stock);
    Py_VISIT(self->yaniv);
    return 0;
}

static int Actions_init(Actions *self, PyObject *args, PyObject *kwds) {
    PyObject *singles, *sets, *runs, *of_rank, *of_suit, *pair, *draw_of, *stock, *yaniv;
    int jokers_in_sets, run_jokers, run_naturals;
    if (!PyArg_ParseTuple(args, "O!O!O!OOOppiO!O!O!", &PyTuple_Type, &singles, &PyDict_Type,
                          &sets, &PyDict_Type, &runs, &of_rank, &of_suit, &pair,
                          &jokers_in_sets, &run_jokers, &run_naturals, &PyTuple_Type, &draw_of,
                          &PyLong_Type, &stock, &PyLong_Type, &yaniv))
        return -1;
    if (PyTuple_GET_SIZE(singles) != 54 || PyTuple_GET_SIZE(draw_of) != 54) {
        PyErr_SetString(PyExc_ValueError, "singles and draw_of: one entry per card (54)");
        return -1;
    }
#define KEEP(field) Py_INCREF(field); Py_XSETREF(self->field, field)
    KEEP(singles);
    KEEP(sets);
    KEEP(runs);
    KEEP(of_rank);
    KEEP(of_suit);
    KEEP(pair);
    KEEP(draw_of);
    KEEP(stock);
    KEEP(yaniv);
#undef KEEP
    self->jokers_in_sets = jokers_in_sets;
    self->run_jokers = run_jokers;
    self->run_naturals = run_naturals;
    return 0;
}

/* ActionTable._draws: the pickable cards' draws, then the stock's where it is not empty. */
static PyObject *actions_draws(Actions *self, PyObject *game) {
    PyObject *pickable = SLOT(game, pickable), *stock = SLOT(game, stock);
    if (pickable == NULL || !PyTuple_CheckExact(pickable) || !is_list(stock)) Py_RETURN_NONE;
    Py_ssize_t size = PyTuple_GET_SIZE(pickable);
    long cards[64];
    if (size > 64) Py_RETURN_NONE;
    for (Py_ssize_t i = 0; i < size; i++)
        if (!small_int(PyTuple_GET_ITEM(pickable, i), 0, 54, &cards[i])) Py_RETURN_NONE;
    int with_stock = PyList_GET_SIZE(stock) > 0;
    PyObject *list = PyList_New(size + with_stock);
    if (list == NULL) return NULL;
    for (Py_ssize_t i = 0; i < size; i++)
        PyList_SET_ITEM(list, i, Py_NewRef(PyTuple_GET_ITEM(self->draw_of, cards[i])));
    if (with_stock) PyList_SET_ITEM(list, size, Py_NewRef(self->stock));
    return list;
}

/* The legal actions of ``game`` (a new list), None where it is not laid out as expected. */
static PyObject *actions_legal(Actions *self, PyObject *game) {
    if (!E.ready || Py_TYPE(game) != E.game) Py_RETURN_NONE;
    PyObject *rules = SLOT(game, rules), *phase = SLOT(game, phase);
    if (!rules_ok(rules)) Py_RETURN_NONE;
    if (phase == E.phase_draw) return actions_draws(self, game);
    if (phase != E.phase_start) Py_RETURN_NONE;
    long n, p, value, threshold;
    PyObject *hands = SLOT(game, hands), *values = SLOT(game, values);
    if (!small_int(SLOT(game, n), 2, 9, &n) || !small_int(SLOT(game, to_move), 0, n, &p) ||
        !is_list(hands) || !is_list(values) || PyList_GET_SIZE(hands) != n ||
        PyList_GET_SIZE(values) != n ||
        !small_int(PyList_GET_ITEM(values, p), -1000000, 1000000, &value) ||
        !small_int(RULE(rules, threshold), -1000000, 1000000, &threshold))
        Py_RETURN_NONE;
    PyObject *list;
    if (RULE(rules, draw_first) == Py_True) {
        list = actions_draws(self, game);
    } else {
        uint64_t hand;
        if (hand_of(PyList_GET_ITEM(hands, p), &hand)) Py_RETURN_NONE;
        Parts parts = {self->singles,        self->sets,       self->runs,
                       self->of_rank,        self->of_suit,    self->pair,
                       self->jokers_in_sets, self->run_jokers, self->run_naturals};
        list = compose(&parts, hand);
    }
    if (list == NULL || list == Py_None) return list;
    if ((value <= threshold || RULE(rules, above) == Py_True) &&
        PyList_Append(list, self->yaniv) < 0) {
        Py_DECREF(list);
        return NULL;
    }
    return list;
}

static PyObject *Actions_call(Actions *self, PyObject *args, PyObject *kwds) {
    PyObject *game;
    if (!PyArg_UnpackTuple(args, "actions", 1, 1, &game)) return NULL;
    return actions_legal(self, game);
}

static PyTypeObject ActionsType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "yaniv._core.Actions",
    .tp_basicsize = sizeof(Actions),
    .tp_dealloc = (destructor)Actions_dealloc,
    .tp_call = (ternaryfunc)Actions_call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "The legal actions of a game (ActionTable.legal_actions), compiled.",
    .tp_traverse = (traverseproc)Actions_traverse,
    .tp_init = (initproc)Actions_init,
    .tp_new = PyType_GenericNew,
};

/* MaskBuffer.update: entries ``old`` of the byte buffer ``raw`` set to 0, then ``new`` to 1.
 * False, writing nothing, where an index is not an exact int in the buffer's range. */
static PyObject *core_write_mask(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "write_mask(raw, old, new)");
        return NULL;
    }
    PyObject *old = args[1], *new = args[2];
    if (!PyList_CheckExact(old) || !PyList_CheckExact(new)) Py_RETURN_FALSE;
    Py_buffer view;
    if (!item_buffer(args[0], &view, 0, 0)) Py_RETURN_FALSE;
    PyObject *lists[2] = {old, new};
    for (int k = 0; k < 2; k++)
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(lists[k]); i++) {
            long at;
            if (!small_int(PyList_GET_ITEM(lists[k], i), 0, (long)view.len, &at)) {
                PyBuffer_Release(&view);
                Py_RETURN_FALSE;
            }
        }
    unsigned char *raw = (unsigned char *)view.buf;
    for (int k = 0; k < 2; k++)
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(lists[k]); i++)
            raw[PyLong_AsLong(PyList_GET_ITEM(lists[k], i))] = (unsigned char)k;
    PyBuffer_Release(&view);
    Py_RETURN_TRUE;
}

/* ------------------------------------------------------------------ Builder, score_round
 *
 * Builder: ``builder(*values)`` is ``cls(*values)`` for a frozen dataclass with slots and no
 * __post_init__ (state.py's and scoring.py's values): the same object, its slots filled at
 * their offsets, without the dataclass's __init__ (which sets each field through
 * object.__setattr__). score_round: scoring.py's ``score_round`` (R14-R20), its RoundScore made
 * by a Builder; whatever it does not read as expected (a rule's value, a list's items) goes to
 * the pure function, which answers it. */

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall; /* calls skip the tuple of arguments */
    PyTypeObject *cls;
    Py_ssize_t count;
    Py_ssize_t offsets[32];
} Builder;

static void Builder_dealloc(Builder *self) {
    Py_CLEAR(self->cls);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Builder_init(Builder *self, PyObject *args, PyObject *kwds) {
    PyTypeObject *cls;
    PyObject *names;
    if (!PyArg_ParseTuple(args, "O!O!", &PyType_Type, &cls, &PyTuple_Type, &names)) return -1;
    Py_ssize_t count = PyTuple_GET_SIZE(names);
    if (count > 32 || self->cls != NULL) {
        PyErr_SetString(PyExc_ValueError, "Builder: at most 32 fields, set up once");
        return -1;
    }
    PyObject *post = PyObject_GetAttrString((PyObject *)cls, "__post_init__");
    if (post != NULL) {
        Py_DECREF(post);
        PyErr_Format(PyExc_TypeError, "Builder: %s has a __post_init__", cls->tp_name);
        return -1;
    }
    PyErr_Clear();
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *name = PyTuple_GET_ITEM(names, i);
        if (!PyUnicode_Check(name) || offset_of(cls, PyUnicode_AsUTF8(name), &self->offsets[i]) < 0)
            return -1;
    }
    Py_INCREF(cls);
    Py_XSETREF(self->cls, cls);
    self->count = count;
    return 0;
}

/* A new instance of the builder's class from its fields' values (new references taken). */
static PyObject *build(Builder *self, PyObject *const *values) {
    PyObject *obj = self->cls->tp_alloc(self->cls, 0);
    if (obj == NULL) return NULL;
    for (Py_ssize_t i = 0; i < self->count; i++)
        *(PyObject **)((char *)obj + self->offsets[i]) = Py_NewRef(values[i]);
    return obj;
}

static PyObject *Builder_vectorcall(PyObject *callable, PyObject *const *args, size_t nargsf,
                                    PyObject *kwnames) {
    Builder *self = (Builder *)callable;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (kwnames != NULL && PyTuple_GET_SIZE(kwnames)) {
        PyErr_SetString(PyExc_TypeError, "a builder takes its fields' values in order");
        return NULL;
    }
    if (nargs != self->count) {
        PyErr_Format(PyExc_TypeError, "%s: %zd values for %zd fields", self->cls->tp_name, nargs,
                     self->count);
        return NULL;
    }
    return build(self, args);
}

static PyObject *Builder_call(PyObject *self, PyObject *args, PyObject *kwds) {
    if (kwds != NULL && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "a builder takes its fields' values in order");
        return NULL;
    }
    return Builder_vectorcall(self, &PyTuple_GET_ITEM(args, 0), PyTuple_GET_SIZE(args), NULL);
}

static PyObject *Builder_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    Builder *self = (Builder *)type->tp_alloc(type, 0);
    if (self != NULL) self->vectorcall = Builder_vectorcall;
    return (PyObject *)self;
}

static PyTypeObject BuilderType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "yaniv._core.Builder",
    .tp_basicsize = sizeof(Builder),
    .tp_dealloc = (destructor)Builder_dealloc,
    .tp_call = Builder_call,
    .tp_vectorcall_offset = offsetof(Builder, vectorcall),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "cls(*values) for a frozen dataclass with slots, its slots filled directly.",
    .tp_init = (initproc)Builder_init,
    .tp_new = Builder_new,
};

static struct {
    int ready;
    PyObject *pure;          /* scoring.score_round */
    Builder *round_score;    /* RoundScore's builder */
    PyObject *yaniv, *assaf, *deliberate; /* ResultKind's members */
    Py_ssize_t threshold, ties, scoring, penalty, bonus, targets, amount, step, end_mode, limit,
        next_starter;
} S;

/* An exact str rule's index among ``choices`` (NULL-ended), or -1. */
static int choice_of(PyObject *v, const char *const *choices) {
    if (v == NULL || !PyUnicode_CheckExact(v)) return -1;
    for (int i = 0; choices[i] != NULL; i++)
        if (PyUnicode_CompareWithASCIIString(v, choices[i]) == 0) return i;
    return -1;
}

/* _remaining_from: ``seat`` if still in, else the next one clockwise that is. */
static long remaining_from(long seat, const int *out, long n) {
    for (long k = 0; k < n; k++) {
        long s = (seat + k) % n;
        if (!out[s]) return s;
    }
    return seat;
}

static PyObject *tuple_of_longs(const long long *v, long n) {
    PyObject *t = PyTuple_New(n);
    if (t == NULL) return NULL;
    for (long i = 0; i < n; i++) {
        PyObject *x = PyLong_FromLongLong(v[i]);
        if (x == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, x);
    }
    return t;
}

static PyObject *tuple_of_seats(const long *v, long n) {
    long long w[8];
    for (long i = 0; i < n; i++) w[i] = v[i];
    return tuple_of_longs(w, n);
}

static PyObject *core_score_round(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 5 || !S.ready) {
        PyErr_SetString(PyExc_TypeError, "score_round(rules, scores, out, values, caller)");
        return NULL;
    }
    PyObject *rules = args[0], *scores_o = args[1], *out_o = args[2], *values_o = args[3];
    static const char *const TIES[] = {"all", "clockwise", "counterclockwise", NULL};
    static const char *const SCORING[] = {"standard", "caller_only", NULL};
    static const char *const BONUS[] = {"halve", "subtract", "none", NULL};
    static const char *const END[] = {"elimination", "first_over", NULL};
    static const char *const STARTER[] = {"winner", "caller", NULL};
#define PURE() return PyObject_Vectorcall(S.pure, args, 5, NULL)
    if (!E.ready || Py_TYPE(rules) != E.rules_t || !PyList_CheckExact(scores_o) ||
        !PyList_CheckExact(out_o) || !PyList_CheckExact(values_o))
        PURE();
    long n = (long)PyList_GET_SIZE(values_o), caller;
    long long threshold, penalty, amount, step, limit;
#define AT(name) (*(PyObject **)((char *)rules + S.name))
    int ties = choice_of(AT(ties), TIES), caller_only = choice_of(AT(scoring), SCORING);
    int bonus = choice_of(AT(bonus), BONUS), end = choice_of(AT(end_mode), END);
    int starter = choice_of(AT(next_starter), STARTER);
    PyObject *targets = AT(targets);
    if (n < 2 || n > 8 || PyList_GET_SIZE(scores_o) != n || PyList_GET_SIZE(out_o) != n ||
        !small_int(args[4], 0, n, &caller) || ties < 0 || caller_only < 0 || bonus < 0 ||
        end < 0 || starter < 0 || targets == NULL || !PyTuple_CheckExact(targets) ||
        !exact_ll(AT(threshold), &threshold) || !exact_ll(AT(penalty), &penalty) ||
        !exact_ll(AT(amount), &amount) || !exact_ll(AT(step), &step) ||
        !exact_ll(AT(limit), &limit) || step <= 0)
        PURE();
    long long value[8], score[8], target[16];
    int out[8];
    Py_ssize_t ntargets = PyTuple_GET_SIZE(targets);
    if (ntargets > 16) PURE();
    for (Py_ssize_t i = 0; i < ntargets; i++)
        if (!exact_ll(PyTuple_GET_ITEM(targets, i), &target[i])) PURE();
    /* Far below what a long long holds: sums of these stay exact. */
    const long long BIG = (long long)1 << 40;
    if (threshold < -BIG || threshold > BIG || penalty < -BIG || penalty > BIG) PURE();
    for (long s = 0; s < n; s++) {
        PyObject *o = PyList_GET_ITEM(out_o, s);
        if (!exact_ll(PyList_GET_ITEM(values_o, s), &value[s]) ||
            !exact_ll(PyList_GET_ITEM(scores_o, s), &score[s]) || (o != Py_True && o != Py_False) ||
            value[s] < -BIG || value[s] > BIG || score[s] < -BIG || score[s] > BIG)
            PURE();
        out[s] = o == Py_True;
    }
#undef AT
    long long c = value[caller], points[8] = {0}, bonuses[8] = {0};
    long others[8], low[8], zero[8], n_others = 0, n_low = 0, n_zero = 0;
    for (long k = 1; k < n; k++) {
        long s = (caller + k) % n;
        if (!out[s]) others[n_others++] = s;
    }
    PyObject *kind;
    if (c > threshold) {
        kind = S.deliberate;
        for (long i = 0; i < n_others; i++)
            if (value[others[i]] <= threshold) low[n_low++] = others[i];
    } else {
        for (long i = 0; i < n_others; i++)
            if (value[others[i]] <= c) low[n_low++] = others[i];
        kind = n_low ? S.assaf : S.yaniv;
    }
    long long best = 0;
    for (long i = 0; i < n_low; i++)
        if (i == 0 || value[low[i]] < best) best = value[low[i]];
    for (long i = 0; i < n_low; i++)
        if (value[low[i]] == best) zero[n_zero++] = low[i];
    if (ties == 1 && n_zero > 1) {
        n_zero = 1;
    } else if (ties == 2 && n_zero > 1) {
        zero[0] = zero[n_zero - 1];
        n_zero = 1;
    }
    if (kind == S.yaniv) {
        for (long i = 0; i < n_others; i++) points[others[i]] = value[others[i]];
    } else if (kind == S.assaf && caller_only == 1) {
        points[caller] = penalty;
    } else {
        points[caller] = c + penalty;
        for (long i = 0; i < n_others; i++) {
            int zeroed = 0;
            for (long j = 0; j < n_zero; j++) zeroed |= zero[j] == others[i];
            if (!zeroed) points[others[i]] = value[others[i]];
        }
    }
    long long new_scores[8];
    int new_out[8];
    for (long s = 0; s < n; s++) {
        new_scores[s] = score[s];
        new_out[s] = out[s];
        if (out[s] || !points[s]) continue;
        long long sc = score[s] + points[s], off = 0;
        /* scoring.bonus: Python's // and % floor, as these do for the non-negative */
        if (sc != 0 && bonus == 0) {
            for (Py_ssize_t i = 0; i < ntargets; i++)
                if (target[i] == sc) {
                    long long half = sc >= 0 ? sc / 2 : -((-sc + 1) / 2);
                    off = sc - half;
                    break;
                }
        } else if (sc != 0 && bonus == 1) {
            long long r = sc % step;
            if (r < 0) r += step;
            off = r == 0 ? amount : 0;
        }
        bonuses[s] = off;
        new_scores[s] = sc - off;
    }
    long newly[8], winners[8], n_newly = 0, n_winners = 0;
    if (end == 0) {
        long remaining[8], n_remaining = 0;
        for (long s = 0; s < n; s++)
            if (!out[s] && new_scores[s] > limit) {
                newly[n_newly++] = s;
                new_out[s] = 1;
            }
        for (long s = 0; s < n; s++)
            if (!out[s] && !new_out[s]) remaining[n_remaining++] = s;
        if (n_remaining == 1) {
            winners[n_winners++] = remaining[0];
        } else if (n_remaining == 0) {
            long long lowest = 0;
            for (long i = 0; i < n_newly; i++)
                if (i == 0 || new_scores[newly[i]] < lowest) lowest = new_scores[newly[i]];
            for (long i = 0; i < n_newly; i++)
                if (new_scores[newly[i]] == lowest) winners[n_winners++] = newly[i];
        }
    } else {
        int over = 0, first = 1;
        long long lowest = 0;
        for (long s = 0; s < n; s++)
            if (!out[s]) {
                over |= new_scores[s] > limit;
                if (first || new_scores[s] < lowest) lowest = new_scores[s];
                first = 0;
            }
        if (over)
            for (long s = 0; s < n; s++)
                if (!out[s] && new_scores[s] == lowest) winners[n_winners++] = s;
    }
    long winner = kind == S.yaniv ? caller : n_zero ? zero[0] : n_others ? others[0] : -1;
    if (winner < 0) PURE(); /* no other seat in: scoring.py's own IndexError */
    winner = remaining_from(winner, new_out, n);
    PyObject *next = NULL;
    if (!n_winners) {
        long base = starter == 0 ? winner : caller;
        next = PyLong_FromLong(remaining_from(base, new_out, n));
    } else {
        next = Py_NewRef(Py_None);
    }
#undef PURE
    PyObject *fields[12] = {NULL};
    fields[0] = Py_NewRef(kind);
    fields[1] = PyLong_FromLong(caller);
    fields[2] = PyList_AsTuple(values_o);
    fields[3] = tuple_of_seats(zero, n_zero);
    fields[4] = tuple_of_longs(points, n);
    fields[5] = tuple_of_longs(bonuses, n);
    fields[6] = tuple_of_longs(new_scores, n);
    fields[7] = tuple_of_seats(newly, n_newly);
    fields[8] = PyTuple_New(n);
    if (fields[8] != NULL)
        for (long s = 0; s < n; s++)
            PyTuple_SET_ITEM(fields[8], s, Py_NewRef(new_out[s] ? Py_True : Py_False));
    fields[9] = PyLong_FromLong(winner);
    fields[10] = next;
    fields[11] = tuple_of_seats(winners, n_winners);
    PyObject *made = NULL;
    int ok = 1;
    for (int i = 0; i < 12; i++) ok &= fields[i] != NULL;
    if (ok) made = build(S.round_score, fields);
    for (int i = 0; i < 12; i++) Py_XDECREF(fields[i]);
    return made;
}

/* What score_round needs of scoring.py, given once at game.py's import: the pure function,
 * RoundScore's builder, ResultKind's three members and the rule set's type. */
static PyObject *core_setup_scoring(PyObject *module, PyObject *args) {
    PyObject *pure, *builder, *yaniv, *assaf, *deliberate;
    PyTypeObject *rules_t;
    if (!PyArg_ParseTuple(args, "OO!OOOO!", &pure, &BuilderType, &builder, &yaniv, &assaf,
                          &deliberate, &PyType_Type, &rules_t))
        return NULL;
    if (((Builder *)builder)->count != 12) {
        PyErr_SetString(PyExc_ValueError, "RoundScore has 12 fields");
        return NULL;
    }
    if (offset_of(rules_t, "yaniv_threshold", &S.threshold) < 0 ||
        offset_of(rules_t, "assaf_ties", &S.ties) < 0 ||
        offset_of(rules_t, "assaf_scoring", &S.scoring) < 0 ||
        offset_of(rules_t, "assaf_penalty", &S.penalty) < 0 ||
        offset_of(rules_t, "bonus", &S.bonus) < 0 ||
        offset_of(rules_t, "bonus_targets", &S.targets) < 0 ||
        offset_of(rules_t, "bonus_amount", &S.amount) < 0 ||
        offset_of(rules_t, "bonus_step", &S.step) < 0 ||
        offset_of(rules_t, "end_mode", &S.end_mode) < 0 ||
        offset_of(rules_t, "score_limit", &S.limit) < 0 ||
        offset_of(rules_t, "next_starter", &S.next_starter) < 0)
        return NULL;
    S.pure = Py_NewRef(pure);
    S.round_score = (Builder *)Py_NewRef(builder);
    S.yaniv = Py_NewRef(yaniv);
    S.assaf = Py_NewRef(assaf);
    S.deliberate = Py_NewRef(deliberate);
    S.ready = 1; /* set up once, at game.py's import */
    Py_RETURN_NONE;
}

/* game.py's _set_hand for every seat of a deal: each hand's mask, value and count, no card
 * known. False, changing nothing, where the game or the hands are not laid out as game.py
 * lays them out (game.py then sets them itself). */
static PyObject *core_lay_hands(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "lay_hands(game, hands)");
        return NULL;
    }
    PyObject *game = args[0], *hands_o = args[1];
    long n;
    if (!E.ready || Py_TYPE(game) != E.game || !small_int(SLOT(game, n), 2, 9, &n) ||
        !PyTuple_CheckExact(hands_o) || PyTuple_GET_SIZE(hands_o) != n)
        Py_RETURN_FALSE;
    PyObject *lists[4] = {SLOT(game, hands), SLOT(game, values), SLOT(game, counts),
                          SLOT(game, known)};
    for (int i = 0; i < 4; i++)
        if (!is_list(lists[i]) || PyList_GET_SIZE(lists[i]) != n) Py_RETURN_FALSE;
    uint64_t masks[8];
    long values[8], counts[8];
    for (long s = 0; s < n; s++) {
        PyObject *hand = PyTuple_GET_ITEM(hands_o, s);
        if (!PyTuple_CheckExact(hand)) Py_RETURN_FALSE;
        masks[s] = 0;
        values[s] = 0;
        counts[s] = (long)PyTuple_GET_SIZE(hand);
        for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(hand); j++) {
            long card, value;
            if (!small_int(PyTuple_GET_ITEM(hand, j), 0, 54, &card) ||
                !small_int(PyTuple_GET_ITEM(E.value, card), 0, 1000, &value))
                Py_RETURN_FALSE;
            masks[s] |= (uint64_t)1 << card; /* mask_of: a card twice is one bit, as there */
            values[s] += value;
        }
    }
    for (long s = 0; s < n; s++) {
        PyObject *made[4] = {PyLong_FromUnsignedLongLong(masks[s]), PyLong_FromLong(values[s]),
                             PyLong_FromLong(counts[s]), PyLong_FromLong(0)};
        for (int i = 0; i < 4; i++) {
            if (made[i] == NULL) {
                for (int k = 0; k < 4; k++) Py_XDECREF(made[k]);
                return NULL;
            }
        }
        for (int i = 0; i < 4; i++) PyList_SetItem(lists[i], s, made[i]);
    }
    Py_RETURN_TRUE;
}

/* ------------------------------------------------------------------ seeded_shuffle
 *
 * random.Random(text).shuffle(x) without the generator object: CPython's Mersenne Twister
 * (Modules/_randommodule.c: init_genrand, init_by_array, genrand_uint32), seeded as
 * random.seed seeds it from the int that random.py makes of a str (its bytes followed by
 * their SHA-512 digest, read big-endian; game.py passes that int), then shuffled as
 * random.shuffle does (getrandbits of the bound's bit length, redrawn until under it).
 * game.py checks at import that it gives this Python's own orders, and shuffles with a
 * random.Random where it does not. */

#define MT_N 624
#define MT_M 397

typedef struct {
    uint32_t state[MT_N];
    int index;
} MT;

static void mt_init(MT *mt, uint32_t s) {
    mt->state[0] = s;
    for (int i = 1; i < MT_N; i++)
        mt->state[i] = 1812433253U * (mt->state[i - 1] ^ (mt->state[i - 1] >> 30)) + (uint32_t)i;
    mt->index = MT_N;
}

/* init_by_array starts from init_genrand(19650218) every time: made once. */
static MT MT_START;
static int MT_START_READY;

static void mt_init_by_array(MT *mt, const uint32_t *key, size_t length) {
    if (!MT_START_READY) {
        mt_init(&MT_START, 19650218U);
        MT_START_READY = 1;
    }
    *mt = MT_START;
    size_t i = 1, j = 0, k = MT_N > length ? MT_N : length;
    uint32_t *s = mt->state;
    for (; k; k--) {
        s[i] = (s[i] ^ ((s[i - 1] ^ (s[i - 1] >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= MT_N) {
            s[0] = s[MT_N - 1];
            i = 1;
        }
        if (j >= length) j = 0;
    }
    for (k = MT_N - 1; k; k--) {
        s[i] = (s[i] ^ ((s[i - 1] ^ (s[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
        i++;
        if (i >= MT_N) {
            s[0] = s[MT_N - 1];
            i = 1;
        }
    }
    s[0] = 0x80000000U;
}

static uint32_t mt_next(MT *mt) {
    static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
    uint32_t y, *s = mt->state;
    if (mt->index >= MT_N) {
        int kk;
        for (kk = 0; kk < MT_N - MT_M; kk++) {
            y = (s[kk] & 0x80000000U) | (s[kk + 1] & 0x7fffffffU);
            s[kk] = s[kk + MT_M] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        for (; kk < MT_N - 1; kk++) {
            y = (s[kk] & 0x80000000U) | (s[kk + 1] & 0x7fffffffU);
            s[kk] = s[kk + (MT_M - MT_N)] ^ (y >> 1) ^ mag01[y & 0x1U];
        }
        y = (s[MT_N - 1] & 0x80000000U) | (s[0] & 0x7fffffffU);
        s[MT_N - 1] = s[MT_M - 1] ^ (y >> 1) ^ mag01[y & 0x1U];
        mt->index = 0;
    }
    y = s[mt->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

static PyObject *core_seeded_shuffle(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyLong_CheckExact(args[0]) || !PyList_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "seeded_shuffle(key: int, x: list)");
        return NULL;
    }
    PyObject *key_o = args[0], *x = args[1];
    /* random_seed: the int's absolute value as 32-bit words, least significant first. */
    PyObject *n = PyNumber_Absolute(key_o);
    if (n == NULL) return NULL;
    int64_t bits = (int64_t)_PyLong_NumBits(n);
    if (bits < 0) {
        Py_DECREF(n);
        return NULL;
    }
    size_t keyused = bits == 0 ? 1 : (size_t)((bits - 1) / 32 + 1);
    uint32_t small[64], *key = keyused <= 64 ? small : PyMem_Malloc(keyused * 4);
    if (key == NULL) {
        Py_DECREF(n);
        return PyErr_NoMemory();
    }
    unsigned char *bytes = (unsigned char *)key;
#if PY_VERSION_HEX >= 0x030D0000
    int rc = PyLong_AsNativeBytes(n, bytes, (Py_ssize_t)keyused * 4,
                                  Py_ASNATIVEBYTES_LITTLE_ENDIAN |
                                      Py_ASNATIVEBYTES_UNSIGNED_BUFFER) < 0
                 ? -1
                 : 0;
#else
    int rc = _PyLong_AsByteArray((PyLongObject *)n, bytes, keyused * 4, 1, 0);
#endif
    Py_DECREF(n);
    if (rc < 0) {
        if (key != small) PyMem_Free(key);
        return NULL;
    }
    /* the bytes little-endian, as the words on any machine */
    for (size_t w = 0; w < keyused; w++)
        key[w] = (uint32_t)bytes[4 * w] | (uint32_t)bytes[4 * w + 1] << 8 |
                 (uint32_t)bytes[4 * w + 2] << 16 | (uint32_t)bytes[4 * w + 3] << 24;
    MT mt;
    mt_init_by_array(&mt, key, keyused);
    if (key != small) PyMem_Free(key);
    for (Py_ssize_t i = PyList_GET_SIZE(x) - 1; i > 0; i--) {
        uint64_t bound = (uint64_t)i + 1;
        int k = 64 - __builtin_clzll(bound);
        if (k > 32) {
            PyErr_SetString(PyExc_ValueError, "seeded_shuffle: a list of at most 2**32 items");
            return NULL;
        }
        uint64_t r;
        do r = mt_next(&mt) >> (32 - k); while (r >= bound);
        PyObject *a = PyList_GET_ITEM(x, i), *b = PyList_GET_ITEM(x, (Py_ssize_t)r);
        PyList_SET_ITEM(x, i, b);
        PyList_SET_ITEM(x, (Py_ssize_t)r, a);
    }
    Py_RETURN_NONE;
}

#include "_playout.c"
#include "_envstep.c"
#include "_plan.c"

/* ------------------------------------------------------------------ module */

static PyMethodDef core_methods[] = {
    {"apply", (PyCFunction)(void (*)(void))core_apply, METH_FASTCALL,
     "game.py's Game.apply for the common turns; the rest goes to the pure method."},
    {"legal_moves", (PyCFunction)core_legal_moves, METH_O,
     "game.py's Game.legal_moves for the common phases; the rest goes to the pure method."},
    {"compose", (PyCFunction)(void (*)(void))core_compose, METH_FASTCALL,
     "discards.compose for any parts; None where the hand or the parts are not as expected."},
    {"write_planes", (PyCFunction)(void (*)(void))core_write_planes, METH_FASTCALL,
     "Observer._write_bits: bits into float32 entries; False where the inputs are not as expected."},
    {"shuffle", (PyCFunction)(void (*)(void))core_shuffle, METH_FASTCALL,
     "random.Random.shuffle, step for step, drawing from the generator's getrandbits."},
    {"card_bits", (PyCFunction)(void (*)(void))core_card_bits, METH_FASTCALL,
     "Observer._card_bits; None where the game is not laid out as game.py lays it out."},
    {"classify", (PyCFunction)(void (*)(void))core_classify, METH_FASTCALL,
     "discards.classify of two cards or more; None where it would ask discards.classify."},
    {"cards_of", (PyCFunction)core_cards_of, METH_O,
     "The cards of a bitmask, in ascending card order."},
    {"set_cards_of_fallback", (PyCFunction)core_set_cards_of_fallback, METH_O,
     "cards.py's pure cards_of, for what is not a mask of cards 0..63."},
    {"write_mask", (PyCFunction)(void (*)(void))core_write_mask, METH_FASTCALL,
     "MaskBuffer.update: entries old set to 0, then new to 1; False where not as expected."},
    {"pickable", (PyCFunction)(void (*)(void))core_pickable, METH_FASTCALL,
     "discards.pickable (R10), as the compiled end of a turn reads it."},
    {"lay_hands", (PyCFunction)(void (*)(void))core_lay_hands, METH_FASTCALL,
     "game.py's _set_hand for every seat of a deal; False where not as expected."},
    {"seeded_shuffle", (PyCFunction)(void (*)(void))core_seeded_shuffle, METH_FASTCALL,
     "random.Random(text).shuffle(x), given the int random.seed makes of the text."},
    {"score_round", (PyCFunction)(void (*)(void))core_score_round, METH_FASTCALL,
     "scoring.py's score_round; what it does not read as expected goes to the pure one."},
    {"setup_scoring", (PyCFunction)core_setup_scoring, METH_VARARGS,
     "What score_round needs of scoring.py (called once, at game.py's import)."},
    {"play_out", (PyCFunction)(void (*)(void))core_play_out, METH_FASTCALL,
     "playout.py's pure loop; None where the game is not one it plays (the pure loop's then)."},
    {"setup_playout", (PyCFunction)core_setup_playout, METH_VARARGS,
     "What play_out needs of game.py beyond setup's (called once, at its import)."},
    {"play_random", (PyCFunction)(void (*)(void))core_play_random, METH_FASTCALL,
     "gym_env.py's random opponents moving until the learner's turn; how many moves made."},
    {"turn_plan", (PyCFunction)(void (*)(void))core_turn_plan, METH_FASTCALL,
     "heuristics.py's turn_plan loop; None where an input is not as it takes it."},
    {"discards_after_draw", (PyCFunction)(void (*)(void))core_discards_after_draw, METH_FASTCALL,
     "heuristics.py's best_discard_after_draw; None where an input is not as it takes it."},
    {"rollout_turns", (PyCFunction)(void (*)(void))core_rollout_turns, METH_FASTCALL,
     "rollout.py's rollout_turns: the turns made in C, one after another, where it can."},
    {"skewed_front", (PyCFunction)(void (*)(void))core_skewed_front, METH_FASTCALL,
     "search.py's _skewed_to_front; None where an input is not as it takes it."},
    {"after_draw_choice", (PyCFunction)(void (*)(void))core_after_draw_choice, METH_FASTCALL,
     "heuristics.py's after_draw_choice; None where an input is not as it takes it."},
    {"draw_first_choice", (PyCFunction)(void (*)(void))core_draw_first_choice, METH_FASTCALL,
     "heuristics.py's draw_first_choice; None where an input is not as it takes it."},
    {"rollout_turn", (PyCFunction)(void (*)(void))core_rollout_turn, METH_FASTCALL,
     "rollout.py's rollout_turn at a discard-first turn start; None where it is not one."},
    {"setup_rollout", (PyCFunction)core_setup_rollout, METH_VARARGS,
     "What rollout_turn needs of rollout.py and heuristics.py (once, at rollout.py's import)."},
    {"win_raw", (PyCFunction)core_win_raw, METH_O,
     "utility.py's _raw_chances; None where the tables are not as it takes them."},
    {"setup_plan", (PyCFunction)core_setup_plan, METH_VARARGS,
     "What turn_plan needs of heuristics.py (called once, at its import)."},
    {"setup", (PyCFunction)core_setup, METH_VARARGS,
     "What apply and legal_moves need of game.py (called once, at its import)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "yaniv._core",
    .m_doc = "The compiled core of the engine's hot paths; each function has a pure-Python twin.",
    .m_size = -1,
    .m_methods = core_methods,
};

PyMODINIT_FUNC PyInit__core(void) {
    RUN_STARTS = 0;
    for (int s = 0; s < 4; s++)
        for (int r = 0; r < 11; r++) RUN_STARTS |= (uint64_t)1 << (s * 13 + r);
    for (int r = 0; r < 13; r++) {
        RANK_BITS[r] = 0;
        for (int s = 0; s < 4; s++) RANK_BITS[r] |= (uint64_t)1 << (s * 13 + r);
    }
    for (int b = 0; b < 256; b++)
        for (int k = 0; k < 8; k++) BYTE_FLOATS[b][k] = (b >> k) & 1 ? 1.0f : 0.0f;
    if (PyType_Ready(&ListerType) < 0 || PyType_Ready(&WriterType) < 0 ||
        PyType_Ready(&ActionsType) < 0 || PyType_Ready(&BuilderType) < 0 ||
        PyType_Ready(&SeatBuffersType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&core_module);
    if (m == NULL) return NULL;
    /* yaniv/compiled.py uses a build of this very interface only (see CORE_ABI there). */
    if (PyModule_AddIntConstant(m, "ABI", CORE_ABI) < 0 ||
        PyModule_AddObjectRef(m, "Lister", (PyObject *)&ListerType) < 0 ||
        PyModule_AddObjectRef(m, "Writer", (PyObject *)&WriterType) < 0 ||
        PyModule_AddObjectRef(m, "Actions", (PyObject *)&ActionsType) < 0 ||
        PyModule_AddObjectRef(m, "Builder", (PyObject *)&BuilderType) < 0 ||
        PyModule_AddObjectRef(m, "SeatBuffers", (PyObject *)&SeatBuffersType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
