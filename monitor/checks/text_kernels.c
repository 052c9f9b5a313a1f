/* text_kernels: text primitives of the checks in C, for the compiled build; their
   Python references (monitor/checks/kernels.py) are the interpreted build's code.

   Both replace C-level work that mypyc cannot speed up:

   * the conflict check's sentence pre-filter: a passage's sentences are
     lower.translate(digits -> '#').split(b". ") less the empty ones, and two passages are
     compared further only when they share one. In Python that costs a bytes object per
     sentence and a set per passage, ~15 us a bench trace (two thirds of the conflict check).
     Here each sentence is hashed in place, eight bytes at a time, and a passage's keys are
     one bytes object: its sorted, distinct 64-bit sentence hashes. Equal sentences always
     give equal keys, so ``shares`` never misses a shared sentence; two different sentences
     may collide, so a True from ``shares`` is confirmed on the sentences themselves by the
     caller (PassageFacts), and ``count`` is a lower bound of the number of distinct
     sentences. The hash is not seeded per process: keys are compared only within one
     process, and an attacker who forces collisions only makes the check confirm more.
   * ``contains``: a substring test with the C library's memmem, 2.5-4x faster than
     ``needle in haystack`` on a 5 KB context (the grounding check looks up each of the
     answer's words in the whole context).
   * ``phrasing``: the risk's new-phrasing count, how many of the answer's word trigrams
     the context and the question do not hold. The Python reference puts the context's
     words one space apart with a regular expression (~30 us on a 5 KB context, most of
     what the risk costs) and searches that; here the context is not rewritten: each
     trigram's longest word is found with memmem and its neighbours read in place across
     the separators, the same answer on any bytes. */

#define _GNU_SOURCE /* memmem */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define ONES 0x0101010101010101ULL
#define HIGH 0x8080808080808080ULL

/* Each byte of ``x`` that is an ASCII digit replaced by '#' (bytes.translate's mask). */
static inline uint64_t mask_digits(uint64_t x) {
    uint64_t a = x ^ (0x30 * ONES);                        /* digits become 0..9 */
    uint64_t ge10 = ((a & ~HIGH) + (0x76 * ONES)) & HIGH;  /* low seven bits >= 10 */
    uint64_t digit = ~(ge10 | (a & HIGH)) & HIGH;          /* 0x80 on each digit byte */
    uint64_t m = (digit >> 7) * 0xFF;
    return (x & ~m) | (('#' * ONES) & m);
}

static inline uint64_t mix(uint64_t h, uint64_t w) {
    h = (h ^ w) * 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 29);
}

/* The hash of s[0:n] with its digits masked. The length is mixed in a round of its own:
   xor-ed into the seed, it cancelled against the first word (" \0" and "#" collided). */
static uint64_t sentence_hash(const char *s, Py_ssize_t n) {
    uint64_t h = mix(0x243F6A8885A308D3ULL, (uint64_t)n);
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = mix(h, mask_digits(w));
    }
    if (i < n) {
        uint64_t w = 0;
        memcpy(&w, s + i, (size_t)(n - i)); /* the padding is zero bytes, which stay zero */
        h = mix(h, mask_digits(w));
    }
    h *= 0xBF58476D1CE4E5B9ULL;
    return h ^ (h >> 31);
}

static int compare_keys(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* keys(lower: bytes) -> bytes: the sorted, distinct hashes of lower's sentences (split at
   ". " as bytes.split does, empty ones left out, digits masked), 8 native-endian bytes each. */
static PyObject *keys(PyObject *self, PyObject *arg) {
    char *s;
    Py_ssize_t n;
    if (PyBytes_AsStringAndSize(arg, &s, &n) < 0) return NULL;
    uint64_t small[256];
    Py_ssize_t cap = n / 2 + 1, k = 0; /* a sentence is at least one byte and its ". " */
    uint64_t *out = cap <= 256 ? small : PyMem_Malloc((size_t)cap * sizeof(uint64_t));
    if (out == NULL) return PyErr_NoMemory();
    const char *p = s, *end = s + n;
    for (;;) {
        const char *dot = p;
        while ((dot = memchr(dot, '.', (size_t)(end - dot))) != NULL) {
            if (dot + 1 < end && dot[1] == ' ') break;
            dot++;
        }
        const char *stop = dot != NULL ? dot : end;
        if (stop > p) out[k++] = sentence_hash(p, stop - p);
        if (dot == NULL) break;
        p = dot + 2;
    }
    if (k > 32) {
        qsort(out, (size_t)k, sizeof(uint64_t), compare_keys);
    } else { /* a passage's few sentences: insertion sort beats qsort's calls */
        for (Py_ssize_t i = 1; i < k; i++) {
            uint64_t v = out[i];
            Py_ssize_t j = i;
            for (; j > 0 && out[j - 1] > v; j--) out[j] = out[j - 1];
            out[j] = v;
        }
    }
    Py_ssize_t distinct = 0;
    for (Py_ssize_t i = 0; i < k; i++) {
        if (distinct == 0 || out[distinct - 1] != out[i]) out[distinct++] = out[i];
    }
    PyObject *result = PyBytes_FromStringAndSize((const char *)out, distinct * 8);
    if (out != small) PyMem_Free(out);
    return result;
}

static int as_keys(PyObject *arg, const uint64_t **keys, Py_ssize_t *count) {
    char *s;
    Py_ssize_t n;
    if (PyBytes_AsStringAndSize(arg, &s, &n) < 0) return -1;
    if (n % 8 != 0) {
        PyErr_SetString(PyExc_ValueError, "not a key string (its length is not a multiple of 8)");
        return -1;
    }
    *keys = (const uint64_t *)s; /* bytes objects' data is aligned well beyond 8 */
    *count = n / 8;
    return 0;
}

/* shares(a: bytes, b: bytes) -> bool: the two key strings have a key in common. */
static PyObject *shares(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    const uint64_t *x, *y;
    Py_ssize_t nx, ny;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "shares() takes two key strings");
        return NULL;
    }
    if (as_keys(args[0], &x, &nx) < 0 || as_keys(args[1], &y, &ny) < 0) return NULL;
    Py_ssize_t i = 0, j = 0;
    while (i < nx && j < ny) {
        if (x[i] == y[j]) Py_RETURN_TRUE;
        if (x[i] < y[j]) i++;
        else j++;
    }
    Py_RETURN_FALSE;
}

/* contains(haystack: bytes, needle: bytes) -> bool: ``needle in haystack``. */
static PyObject *contains(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    char *h, *n;
    Py_ssize_t nh, nn;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "contains() takes a haystack and a needle");
        return NULL;
    }
    if (PyBytes_AsStringAndSize(args[0], &h, &nh) < 0) return NULL;
    if (PyBytes_AsStringAndSize(args[1], &n, &nn) < 0) return NULL;
    if (memmem(h, (size_t)nh, n, (size_t)nn) != NULL) Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

/* A word byte of the risk's phrasing: an ASCII letter or digit, or any byte of a multi-byte
   character (kernels._WORD_BYTES). */
static unsigned char word_byte[256];

static void init_word_bytes(void) {
    for (int c = 0; c < 256; c++) {
        word_byte[c] = c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z')
                       || (c >= 'A' && c <= 'Z');
    }
}

/* The General Punctuation block's three bytes (U+2000-U+206F: E2 80-81 xx) at s[i]. */
static inline int punctuation_at(const unsigned char *s, Py_ssize_t i, Py_ssize_t n) {
    return s[i] == 0xE2 && i + 2 < n && (s[i + 1] == 0x80 || s[i + 1] == 0x81)
           && s[i + 2] >= 0x80 && s[i + 2] <= 0xBF;
}

/* Whether s[i] is the last byte of a separator: ASCII that is not a letter or a digit, or
   the last of a General Punctuation character's three bytes (E2 is only ever a lead byte). */
static inline int separator_ends_at(const unsigned char *s, Py_ssize_t i) {
    if (s[i] < 0x80) return !word_byte[s[i]];
    return s[i] <= 0xBF && i >= 2 && s[i - 2] == 0xE2 && (s[i - 1] == 0x80 || s[i - 1] == 0x81);
}

/* The length of the separator that starts at s[i] (0: s[i] starts a word). */
static inline Py_ssize_t separator_at(const unsigned char *s, Py_ssize_t i, Py_ssize_t n) {
    if (s[i] < 0x80) return word_byte[s[i]] ? 0 : 1;
    return punctuation_at(s, i, n) ? 3 : 0;
}

/* The words of s[0:n] appended to out, each after one space, with their start offsets in
   out (after the space) and lengths. Returns the number of words; out needs n + 1 bytes,
   starts and lengths n / 2 + 1 entries. */
static Py_ssize_t split_words(const unsigned char *s, Py_ssize_t n, unsigned char *out,
                              Py_ssize_t *starts, Py_ssize_t *lengths) {
    Py_ssize_t end = 0, words = 0;
    for (Py_ssize_t i = 0; i < n;) {
        Py_ssize_t skip = separator_at(s, i, n);
        if (skip) {
            i += skip;
            continue;
        }
        out[end++] = ' ';
        starts[words] = end;
        while (i < n && !separator_at(s, i, n)) out[end++] = s[i++];
        lengths[words] = end - starts[words];
        words++;
    }
    return words;
}

/* Whether text[end - 1] is no byte of a separator begun before it: the third word of a
   trigram may be the start of a longer one, but not a word cut by a dash (text that is not
   UTF-8 only: a word of the answer ends with a whole character). */
static inline int whole_end(const unsigned char *text, Py_ssize_t end, Py_ssize_t n) {
    return !(end >= 1 && punctuation_at(text, end - 1, n))
           && !(end >= 2 && punctuation_at(text, end - 2, n));
}

/* Whether the words of text[0:n] (as split_words reads them) hold w[0] and w[1] in a row
   and then a word that starts with w[2]. Looked up without splitting the text: each
   occurrence of the longest of the three (the rarest, mostly) is checked in place, the
   words before it read backwards across the separators, those after it forwards. */
static int holds_trigram(const unsigned char *text, Py_ssize_t n, const unsigned char *w[3],
                         const Py_ssize_t len[3]) {
    int k = 0;
    if (len[1] > len[k]) k = 1;
    if (len[2] > len[k]) k = 2;
    const unsigned char *at = text, *end = text + n;
    while ((at = memmem(at, (size_t)(end - at), w[k], (size_t)len[k])) != NULL) {
        Py_ssize_t pos = at - text;
        at++;
        /* the anchor is a word of its own (the third may be the start of a longer one) */
        if (pos > 0 && !separator_ends_at(text, pos - 1)) continue;
        Py_ssize_t after = pos + len[k];
        if (k < 2 ? after >= n || !separator_at(text, after, n) : !whole_end(text, after, n))
            continue;
        /* the words before it, backwards */
        Py_ssize_t p = pos; /* the start of the word last matched */
        int ok = 1;
        for (int j = k - 1; j >= 0 && ok; j--) {
            Py_ssize_t q = p - 1; /* the last byte before it: a separator (checked) */
            while (q >= 0 && separator_ends_at(text, q)) q -= text[q] < 0x80 ? 1 : 3;
            Py_ssize_t start = q + 1 - len[j];
            ok = start >= 0 && memcmp(text + start, w[j], (size_t)len[j]) == 0
                 && (start == 0 || separator_ends_at(text, start - 1));
            p = start;
        }
        /* the words after it, forwards */
        for (int j = k + 1; j < 3 && ok; j++) {
            Py_ssize_t q = after; /* a separator (checked) */
            Py_ssize_t skip;
            while (q < n && (skip = separator_at(text, q, n)) != 0) q += skip;
            ok = q + len[j] <= n && memcmp(text + q, w[j], (size_t)len[j]) == 0;
            after = q + len[j];
            if (ok) ok = j < 2 ? after < n && separator_at(text, after, n) : whole_end(text, after, n);
        }
        if (ok) return 1;
    }
    return 0;
}

/* phrasing(answer: bytes, context: bytes, question: bytes, most: int) -> (int, int): how
   many of the answer's word trigrams (at most ``most``, evenly spread) are found in neither
   the context nor the question, and how many were looked up (0 when the answer has fewer
   than three words); the reference is kernels._phrasing. */
static PyObject *phrasing(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    char *a, *c, *q;
    Py_ssize_t na, nc, nq;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError,
                        "phrasing() takes an answer, a context, a question and a count");
        return NULL;
    }
    if (PyBytes_AsStringAndSize(args[0], &a, &na) < 0) return NULL;
    if (PyBytes_AsStringAndSize(args[1], &c, &nc) < 0) return NULL;
    if (PyBytes_AsStringAndSize(args[2], &q, &nq) < 0) return NULL;
    Py_ssize_t most = PyLong_AsSsize_t(args[3]);
    if (most == -1 && PyErr_Occurred()) return NULL;
    if (most < 1) {
        PyErr_SetString(PyExc_ValueError, "phrasing() needs a count of at least 1");
        return NULL;
    }
    /* the answer's words, and where each starts */
    unsigned char *answer = PyMem_Malloc((size_t)na + 1);
    Py_ssize_t *starts = PyMem_Malloc(sizeof(Py_ssize_t) * ((size_t)na + 2));
    if (answer == NULL || starts == NULL) {
        PyMem_Free(answer);
        PyMem_Free(starts);
        return PyErr_NoMemory();
    }
    Py_ssize_t *lengths = starts + (na / 2 + 1);
    Py_ssize_t words = split_words((const unsigned char *)a, na, answer, starts, lengths);
    Py_ssize_t novel = 0, looked = 0;
    if (words >= 3) {
        /* the context and the question, one space between them (a trigram may span it) */
        Py_ssize_t n = nc + 1 + nq;
        unsigned char *text = PyMem_Malloc((size_t)n);
        if (text == NULL) {
            PyMem_Free(answer);
            PyMem_Free(starts);
            return PyErr_NoMemory();
        }
        memcpy(text, c, (size_t)nc);
        text[nc] = ' ';
        memcpy(text + nc + 1, q, (size_t)nq);
        Py_ssize_t count = words - 2;
        Py_ssize_t step = (count + most - 1) / most;
        for (Py_ssize_t i = 0; i < count; i += step) {
            const unsigned char *w[3] = {answer + starts[i], answer + starts[i + 1],
                                         answer + starts[i + 2]};
            looked++;
            if (!holds_trigram(text, n, w, lengths + i)) novel++;
        }
        PyMem_Free(text);
    }
    PyMem_Free(answer);
    PyMem_Free(starts);
    return Py_BuildValue("(nn)", novel, looked);
}

/* count(keys: bytes) -> int: how many keys (at most the number of distinct sentences). */
static PyObject *count(PyObject *self, PyObject *arg) {
    const uint64_t *x;
    Py_ssize_t n;
    if (as_keys(arg, &x, &n) < 0) return NULL;
    return PyLong_FromSsize_t(n);
}

static PyMethodDef methods[] = {
    {"keys", keys, METH_O, "The sorted, distinct hashes of a lower-cased passage's sentences."},
    {"shares", (PyCFunction)(void (*)(void))shares, METH_FASTCALL,
     "Whether two key strings have a key in common."},
    {"count", count, METH_O, "How many keys a key string holds."},
    {"contains", (PyCFunction)(void (*)(void))contains, METH_FASTCALL,
     "Whether the needle occurs in the haystack (two bytes objects)."},
    {"phrasing", (PyCFunction)(void (*)(void))phrasing, METH_FASTCALL,
     "How many of the answer's word trigrams the context and question do not hold, of how many."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "text_kernels",
    "Text primitives of the checks in C (see monitor/checks/kernels.py).", -1,
    methods,
};

PyMODINIT_FUNC PyInit_text_kernels(void) {
    init_word_bytes();
    return PyModule_Create(&module);
}
