/* text_kernels: two text primitives of the checks in C, for the compiled build; their
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
     answer's words in the whole context). */

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
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "text_kernels",
    "Text primitives of the checks in C (see monitor/checks/kernels.py).", -1,
    methods,
};

PyMODINIT_FUNC PyInit_text_kernels(void) { return PyModule_Create(&module); }
