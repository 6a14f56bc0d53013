/* The environments' step, compiled: a seat's observation and mask together, and the random
 * opponents' moves between two of the learner's.
 *
 *   SeatBuffers    envs/seat_buffers.py's SeatBuffers: ``update(game)`` writes the seat's
 *                  observation and action mask once per position, ``allows(game, index)``
 *                  reads an action's legality from the mask of that position
 *   play_random    envs/gym_env.py's random opponents (_RandomFromGame) moving until the
 *                  learner's turn, the round's end or a seat that is not one of them
 *
 * Both do what their Python twins do through the same functions (the Writer, the Actions, the
 * Python fallbacks they are given, Game.apply and Game.legal_moves); tests/test_envs.py holds
 * each to its twin. Included by _core.c (one translation unit: it reads the same Engine). */

/* A position as the environments key it: the round's move list (by identity: a deal makes a
 * new one) and its length (moves are only appended). */
static PyObject *moves_of(PyObject *game) {
    if (E.ready && Py_TYPE(game) == E.game) return Py_XNewRef(SLOT(game, moves));
    return PyObject_GetAttrString(game, "moves");
}

static int to_move_of(PyObject *game, long *to_move) {
    PyObject *v = E.ready && Py_TYPE(game) == E.game ? Py_XNewRef(SLOT(game, to_move))
                                                     : PyObject_GetAttrString(game, "_to_move");
    if (v == NULL) return -1;
    long x = PyLong_AsLong(v);
    Py_DECREF(v);
    if (x == -1 && PyErr_Occurred()) return -1;
    *to_move = x;
    return 0;
}

typedef struct {
    PyObject_HEAD
    long seat;
    PyObject *writer;      /* the Observer's Writer, or None (pure observations) */
    PyObject *rewrite;     /* ObservationBuffer.rewrite: the observation in Python */
    PyObject *actions;     /* the ActionTable's Actions, or None */
    PyObject *legal;       /* ActionTable.legal_actions */
    PyObject *observation; /* the two numpy arrays, as the Python twin shows them */
    PyObject *mask;
    PyObject *on;          /* the mask's entries that are 1 (a list of ints) */
    PyObject *moves;       /* the position written (NULL: none) ... */
    Py_ssize_t made;       /* ... and its move list's length then */
    Py_buffer floats, bytes; /* the arrays' memory, held while the object lives */
    int has_floats, has_bytes;
} SeatBuffers;

static void SeatBuffers_dealloc(SeatBuffers *self) {
    PyObject_GC_UnTrack(self);
    if (self->has_floats) PyBuffer_Release(&self->floats);
    if (self->has_bytes) PyBuffer_Release(&self->bytes);
    Py_CLEAR(self->writer);
    Py_CLEAR(self->rewrite);
    Py_CLEAR(self->actions);
    Py_CLEAR(self->legal);
    Py_CLEAR(self->observation);
    Py_CLEAR(self->mask);
    Py_CLEAR(self->on);
    Py_CLEAR(self->moves);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int SeatBuffers_traverse(SeatBuffers *self, visitproc visit, void *arg) {
    Py_VISIT(self->writer);
    Py_VISIT(self->rewrite);
    Py_VISIT(self->actions);
    Py_VISIT(self->legal);
    Py_VISIT(self->observation);
    Py_VISIT(self->mask);
    Py_VISIT(self->on);
    Py_VISIT(self->moves);
    return 0;
}

/* SeatBuffers(seat, writer, rewrite, actions, legal, observation, mask): the arrays are a
 * float32 and an int8 array, one-dimensional and contiguous, the mask all zeros. */
static int SeatBuffers_init(SeatBuffers *self, PyObject *args, PyObject *kwds) {
    long seat;
    PyObject *writer, *rewrite, *actions, *legal, *observation, *mask;
    if (!PyArg_ParseTuple(args, "lOOOOOO", &seat, &writer, &rewrite, &actions, &legal,
                          &observation, &mask))
        return -1;
    if ((writer != Py_None && !PyObject_TypeCheck(writer, &WriterType)) ||
        (actions != Py_None && !PyObject_TypeCheck(actions, &ActionsType)) ||
        !PyCallable_Check(rewrite) || !PyCallable_Check(legal)) {
        PyErr_SetString(PyExc_TypeError,
                        "SeatBuffers(seat, Writer or None, rewrite, Actions or None, legal, "
                        "observation, mask)");
        return -1;
    }
    if (self->has_floats || self->has_bytes) {
        PyErr_SetString(PyExc_TypeError, "SeatBuffers: made once");
        return -1;
    }
    long size = writer == Py_None ? 0 : ((Writer *)writer)->size;
    if (!item_buffer(observation, &self->floats, 1, size)) {
        PyErr_SetString(PyExc_ValueError, "SeatBuffers: observation is not a float32 array");
        return -1;
    }
    self->has_floats = 1;
    if (!item_buffer(mask, &self->bytes, 0, 0)) {
        PyErr_SetString(PyExc_ValueError, "SeatBuffers: mask is not an int8 array");
        return -1;
    }
    self->has_bytes = 1;
    self->seat = seat;
    self->writer = Py_NewRef(writer);
    self->rewrite = Py_NewRef(rewrite);
    self->actions = Py_NewRef(actions);
    self->legal = Py_NewRef(legal);
    self->observation = Py_NewRef(observation);
    self->mask = Py_NewRef(mask);
    if ((self->on = PyList_New(0)) == NULL) return -1;
    self->moves = NULL;
    self->made = -1;
    return 0;
}

/* Whether the buffers hold the position ``moves`` (a new reference) stands for. */
static inline int seat_fresh(SeatBuffers *self, PyObject *moves) {
    return moves != NULL && moves == self->moves && PyList_CheckExact(moves) &&
           PyList_GET_SIZE(moves) == self->made;
}

/* The legal actions of ``game`` for this seat: a new list, its items checked ints in range. */
static PyObject *seat_legal(SeatBuffers *self, PyObject *game) {
    PyObject *found = self->actions == Py_None ? Py_NewRef(Py_None)
                                               : actions_legal((Actions *)self->actions, game);
    if (found == Py_None) {
        Py_DECREF(found);
        found = PyObject_CallOneArg(self->legal, game);
    }
    if (found == NULL) return NULL;
    if (!PyList_CheckExact(found)) {
        Py_SETREF(found, PySequence_List(found));
        if (found == NULL) return NULL;
    }
    long at;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(found); i++)
        if (!small_int(PyList_GET_ITEM(found, i), 0, (long)self->bytes.len, &at)) {
            PyErr_Format(PyExc_ValueError, "legal actions: %R is not an action of the table",
                         PyList_GET_ITEM(found, i));
            Py_DECREF(found);
            return NULL;
        }
    return found;
}

static PyObject *SeatBuffers_update(SeatBuffers *self, PyObject *game) {
    PyObject *moves = moves_of(game);
    if (moves == NULL) return NULL;
    if (seat_fresh(self, moves)) {
        Py_DECREF(moves);
        Py_RETURN_NONE;
    }
    Py_CLEAR(self->moves); /* nothing is fresh until both are written */
    long to_move;
    if (to_move_of(game, &to_move) < 0) goto fail;
    if (self->writer == Py_None ||
        !writer_write((Writer *)self->writer, game, self->seat, (float *)self->floats.buf)) {
        PyObject *r = PyObject_CallOneArg(self->rewrite, game);
        if (r == NULL) goto fail;
        Py_DECREF(r);
    }
    PyObject *legal = to_move == self->seat ? seat_legal(self, game) : PyList_New(0);
    if (legal == NULL) goto fail;
    unsigned char *raw = (unsigned char *)self->bytes.buf;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(self->on); i++)
        raw[PyLong_AsLong(PyList_GET_ITEM(self->on, i))] = 0;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(legal); i++)
        raw[PyLong_AsLong(PyList_GET_ITEM(legal, i))] = 1;
    Py_SETREF(self->on, legal);
    self->made = PyList_CheckExact(moves) ? PyList_GET_SIZE(moves) : -1;
    self->moves = moves; /* the reference taken above */
    Py_RETURN_NONE;
fail:
    Py_DECREF(moves);
    return NULL;
}

static PyObject *SeatBuffers_allows(SeatBuffers *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2 || !PyLong_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "allows(game, index: int)");
        return NULL;
    }
    PyObject *game = args[0];
    int overflow = 0;
    long index = PyLong_AsLongAndOverflow(args[1], &overflow);
    if (overflow || index < 0 || index >= (long)self->bytes.len) Py_RETURN_FALSE;
    PyObject *moves = moves_of(game);
    if (moves == NULL) return NULL;
    int fresh = seat_fresh(self, moves);
    Py_DECREF(moves);
    if (fresh) return PyBool_FromLong(((unsigned char *)self->bytes.buf)[index]);
    PyObject *legal = PyObject_CallOneArg(self->legal, game); /* as the Python twin asks */
    if (legal == NULL) return NULL;
    int in = PySequence_Contains(legal, args[1]);
    Py_DECREF(legal);
    return in < 0 ? NULL : PyBool_FromLong(in);
}

static PyMethodDef SeatBuffers_methods[] = {
    {"update", (PyCFunction)SeatBuffers_update, METH_O,
     "Write the seat's observation and mask for ``game`` where it stands (once a position)."},
    {"allows", (PyCFunction)(void (*)(void))SeatBuffers_allows, METH_FASTCALL,
     "Whether action ``index`` is legal in ``game`` now (read from the mask where it is of it)."},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef SeatBuffers_members[] = {
    {"seat", T_LONG, offsetof(SeatBuffers, seat), READONLY, "The seat."},
    {"observation", T_OBJECT_EX, offsetof(SeatBuffers, observation), READONLY,
     "The observation array (written in place)."},
    {"mask", T_OBJECT_EX, offsetof(SeatBuffers, mask), READONLY,
     "The action mask array (written in place)."},
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject SeatBuffersType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "yaniv._core.SeatBuffers",
    .tp_basicsize = sizeof(SeatBuffers),
    .tp_dealloc = (destructor)SeatBuffers_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "A seat's observation and action mask kept in place (envs/seat_buffers.py).",
    .tp_traverse = (traverseproc)SeatBuffers_traverse,
    .tp_init = (initproc)SeatBuffers_init,
    .tp_new = PyType_GenericNew,
    .tp_methods = SeatBuffers_methods,
    .tp_members = SeatBuffers_members,
};

/* play_random(game, learner, rngs): the random opponents' moves, each what gym_env.py's
 * _RandomFromGame chooses (Yaniv where legal at or under the threshold, else
 * ``rng.choice(game.legal_moves())``, drawn as random.Random.choice draws: getrandbits of the
 * count's bit length until under the count), while the seat to move is not ``learner`` and
 * has a generator in ``rngs`` (one per seat, None for the others, each an exact
 * random.Random); it stops where a round ends. Returns how many moves it made. */
static PyObject *core_play_random(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    static PyObject *s_getrandbits;
    if (nargs != 3 || !PyList_CheckExact(args[2])) {
        PyErr_SetString(PyExc_TypeError, "play_random(game, learner: int, rngs: list)");
        return NULL;
    }
    PyObject *game = args[0], *rngs = args[2];
    long learner, made = 0;
    if (!small_int(args[1], 0, 9, &learner) || !E.ready || Py_TYPE(game) != E.game)
        return PyLong_FromLong(0);
    if (s_getrandbits == NULL &&
        (s_getrandbits = PyUnicode_InternFromString("getrandbits")) == NULL)
        return NULL;
    for (;;) {
        long n, p;
        if (!small_int(SLOT(game, n), 2, 9, &n) || PyList_GET_SIZE(rngs) != n ||
            !small_int(SLOT(game, to_move), 0, n, &p) || p == learner)
            break; /* (-1 once the round is over) */
        PyObject *rng = PyList_GET_ITEM(rngs, p), *rules = SLOT(game, rules);
        PyObject *values = SLOT(game, values);
        if (rng == Py_None || !is_list(values) || PyList_GET_SIZE(values) != n || rules == NULL ||
            Py_TYPE(rules) != E.rules_t || RULE(rules, threshold) == NULL)
            break;
        PyObject *moves = method_legal_moves(game, NULL);
        if (moves == NULL) return NULL;
        Py_ssize_t size;
        PyObject **items;
        if (PyTuple_Check(moves)) { /* a MoveList: a tuple in memory (discards.py) */
            size = PyTuple_GET_SIZE(moves);
            items = &PyTuple_GET_ITEM(moves, 0);
        } else if (PyList_CheckExact(moves)) {
            size = PyList_GET_SIZE(moves);
            items = &PyList_GET_ITEM(moves, 0);
        } else {
            Py_DECREF(moves);
            break;
        }
        if (size == 0) { /* the Python twin raises; leave it to it */
            Py_DECREF(moves);
            break;
        }
        PyObject *move = NULL;
        int low = PyObject_RichCompareBool(PyList_GET_ITEM(values, p), RULE(rules, threshold),
                                           Py_LE);
        if (low < 0) goto fail;
        if (low) {
            for (Py_ssize_t i = 0; i < size && move == NULL; i++)
                if (items[i] == E.yaniv) move = E.yaniv;
            if (move == NULL) { /* by equality, as ``in`` finds it */
                int in = PySequence_Contains(moves, E.yaniv);
                if (in < 0) goto fail;
                if (in) move = E.yaniv;
            }
        }
        if (move == NULL) {
            int k = 64 - __builtin_clzll((unsigned long long)size);
            PyObject *bits = PyLong_FromLong(k);
            if (bits == NULL) goto fail;
            long r;
            do {
                PyObject *drawn = PyObject_CallMethodOneArg(rng, s_getrandbits, bits);
                if (drawn == NULL) {
                    Py_DECREF(bits);
                    goto fail;
                }
                r = PyLong_AsLong(drawn);
                Py_DECREF(drawn);
                if (r == -1 && PyErr_Occurred()) {
                    Py_DECREF(bits);
                    goto fail;
                }
            } while (r >= size);
            Py_DECREF(bits);
            move = items[r];
        }
        Py_INCREF(move);
        PyObject *result = method_apply(game, &move, 1, NULL);
        Py_DECREF(move);
        Py_DECREF(moves);
        if (result == NULL) return NULL;
        Py_DECREF(result);
        made++;
        continue;
    fail:
        Py_DECREF(moves);
        return NULL;
    }
    return PyLong_FromLong(made);
}
