/* The Dreyfus-Wagner programme of missions/measures/steiner.py (dreyfus_wagner), compiled.
 *
 * Why C: the programme is 3^k merges over ~100 nodes plus one shortest-path pass per
 * terminal subset (4096 at k = 12); as numpy gathers and scipy calls it took 50-200 ms at
 * 10-12 terminals, which a table room's status pays on every tap that crosses a star
 * (docs/figures.md, the room status figures; their history in benchmarks/log/). Here the
 * same programme runs 8-10x faster. It is built with the package (pyproject.toml,
 * [tool.setuptools] ext-modules); tests/test_steiner_merge.py checks it against the numpy
 * programme it replaced and tests/test_status_fast_paths.py against the plain recursion.
 *
 * dp[S][v] = the least weight of a connected node set holding the terminals of S and v
 * (node weights counted, v's included); pred[S][v] = the node the shortest-path pass of S
 * reached v from, or -1 where dp[S][v] is S's merge (or S's own terminal).
 *
 * Subsets run in increasing number: every proper submask of S is smaller than S, so its row
 * is final. Merge: dp[S][v] = min over halves S1 (holding S's lowest terminal) of
 * dp[S1][v] + dp[S - S1][v] - w[v]. Pass: dp[S][v] = min(dp[S][v], dp[S][u] + w[v]) over
 * arcs u -> v, Dial's buckets (the labels are integers; a connected set weighs at most the
 * sum of all weights, so a merged label above that sum is no shortest label and is dropped).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define INF 1000000000  /* missions/measures/steiner.py INF: "unreachable" (INF + INF < 2^31) */
#define BUCKETS (1 << 24)  /* the most label values a pass keeps buckets for */

/* One shortest-path pass in place: row[v] = min(row[v], row[u] + w[v] + ex[j]) over arcs j: u -> v
 * (``ex``: per-arc extra costs, or NULL for none); prow[v] = u where an arc lowered row[v]. Labels above ``limit`` are "unreachable" (INF):
 * the caller sizes ``head`` (limit + 1 buckets) so that no shortest label is above it. */
static void shortest_pass(int n, const int32_t *indptr, const int32_t *indices, const int32_t *w,
                          const int32_t *ex, int64_t limit, int32_t *row, int32_t *prow, int32_t *head,
                          int32_t *node, int32_t *next) {
    int32_t top = 0;
    for (int64_t d = 0; d <= limit; d++) head[d] = -1;
    for (int v = 0; v < n; v++) {
        if (row[v] <= limit) {
            node[top] = v; next[top] = head[row[v]]; head[row[v]] = top; top++;
        } else {
            row[v] = INF;
        }
    }
    for (int64_t d = 0; d <= limit; d++) {
        while (head[d] >= 0) {  /* a node whose arc weighs 0 joins this bucket and is popped next */
            int32_t e = head[d];
            head[d] = next[e];
            int32_t u = node[e];
            if (row[u] != d) continue;  /* stale: a shorter label came later */
            for (int32_t j = indptr[u]; j < indptr[u + 1]; j++) {
                int32_t v = indices[j];
                if (ex && ex[j] >= INF) continue;  /* (an arc that cannot be taken) */
                int32_t nd = (int32_t)d + w[v] + (ex ? ex[j] : 0);
                if (nd < row[v] && nd <= limit) {
                    row[v] = nd; prow[v] = u;
                    node[top] = v; next[top] = head[nd]; head[nd] = top; top++;
                }
            }
        }
    }
}

#define INF16 16383  /* "unreachable" in the 16-bit copy the merges read (INF16 + INF16 < 2^15) */
#define MAX16 8000  /* weights summing up to this: every finite label fits the 16-bit copy */

static int run(int n, const int32_t *indptr, const int32_t *indices, const int32_t *w, const int32_t *ex,
               int64_t maxl, int k, const int32_t *terms, int32_t *dp, int32_t *pred) {
    int32_t arcs = indptr[n];
    int64_t full = (int64_t)1 << k;
    /* The merges are 3^k / 2 row pairs, the bulk of the work: where the labels are small (every
     * sheet's graph: at most ~100 nodes), they read a 16-bit copy of the table, half the memory
     * and twice the lanes of a vector min (SSE2's pminsw; a 32-bit min needs SSE4.1). */
    int small = maxl <= MAX16;
    int32_t *acc = malloc(sizeof(int32_t) * (size_t)n);
    int16_t *acc16 = small ? malloc(sizeof(int16_t) * (size_t)n) : NULL;
    int16_t *dp16 = small ? malloc(sizeof(int16_t) * (size_t)(full * n)) : NULL;
    int32_t *head = malloc(sizeof(int32_t) * (size_t)(maxl + 1));
    int32_t *node = malloc(sizeof(int32_t) * (size_t)(n + arcs + 1));
    int32_t *next = malloc(sizeof(int32_t) * (size_t)(n + arcs + 1));
    if (!acc || !head || !node || !next || (small && (!acc16 || !dp16))) {
        free(acc); free(acc16); free(dp16); free(head); free(node); free(next);
        return -1;
    }
    for (int64_t i = 0; i < full * n; i++) { dp[i] = INF; pred[i] = -1; }
    for (int64_t s = 1; s < full; s++) {
        int32_t *row = dp + s * n;
        if ((s & (s - 1)) == 0) {
            int t = 0;
            while (((int64_t)1 << t) != s) t++;
            row[terms[t]] = w[terms[t]];
        } else if (small) {
            int64_t low = s & -s, rest = s ^ low;
            for (int v = 0; v < n; v++) acc16[v] = 2 * INF16;
            for (int64_t sub = (rest - 1) & rest;; sub = (sub - 1) & rest) {  /* proper submasks, descending */
                const int16_t *a = dp16 + (low | sub) * n, *b = dp16 + (s ^ (low | sub)) * n;
                for (int v = 0; v < n; v++) {
                    int16_t c = (int16_t)(a[v] + b[v]);
                    acc16[v] = c < acc16[v] ? c : acc16[v];
                }
                if (sub == 0) break;
            }
            for (int v = 0; v < n; v++) row[v] = acc16[v] >= INF16 ? INF : acc16[v] - w[v];
        } else {
            int64_t low = s & -s, rest = s ^ low;
            for (int v = 0; v < n; v++) acc[v] = 2 * INF;
            for (int64_t sub = (rest - 1) & rest;; sub = (sub - 1) & rest) {
                const int32_t *a = dp + (low | sub) * n, *b = dp + (s ^ (low | sub)) * n;
                for (int v = 0; v < n; v++) {
                    int32_t c = a[v] + b[v];
                    acc[v] = c < acc[v] ? c : acc[v];
                }
                if (sub == 0) break;
            }
            for (int v = 0; v < n; v++) {
                int32_t c = acc[v] - w[v];
                row[v] = c < INF ? c : INF;
            }
        }
        shortest_pass(n, indptr, indices, w, ex, maxl, row, pred + s * n, head, node, next);
        if (small)
            for (int v = 0; v < n; v++) dp16[s * n + v] = row[v] >= INF16 ? INF16 : (int16_t)row[v];
    }
    free(acc); free(acc16); free(dp16); free(head); free(node); free(next);
    return 0;
}

/* --- from Python: lists of ints in, bytes of int32 out (no array conversions: a room's split
 * asks for thousands of small programmes a status, where building arrays cost more than the
 * programme itself) --- */
typedef struct {
    Py_ssize_t n;
    int32_t *indptr, *indices, *w, *ex;  /* ex: per arc its extra cost, or NULL */
    /* The most a cheapest label can be: every node's weight plus, per node, its dearest
     * finite out-arc extra (a cheapest set is a tree: one parent arc a node). Labels above
     * it are no shortest labels, so a pass keeps buckets up to it only. */
    int64_t total;
} Graph;

static void free_graph(Graph *g) { free(g->indptr); free(g->indices); free(g->w); free(g->ex); }

/* One int of a sequence into lo..hi (``clip``: values above hi read as hi, else refused): -1
 * with a ValueError naming the argument. */
static int int_item(PyObject *o, const char *what, long long lo, long long hi, int clip, int32_t *out) {
    long long x = PyLong_AsLongLong(o);
    if (x == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s: integers expected", what);
        return -1;
    }
    if (x < lo) { PyErr_Format(PyExc_ValueError, "%s: %lld is below %lld", what, x, lo); return -1; }
    if (x > hi && !clip) { PyErr_Format(PyExc_ValueError, "%s: %lld is above %lld", what, x, hi); return -1; }
    if (x > hi) x = hi;  /* (labels: anything from INF up is unreachable) */
    *out = (int32_t)x;
    return 0;
}

static int read_ints(PyObject *seq, const char *what, long long lo, long long hi, int clip, int32_t **out,
                     Py_ssize_t *len) {
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast) { PyErr_Clear(); PyErr_Format(PyExc_ValueError, "%s: a sequence of integers expected", what); return -1; }
    Py_ssize_t m = PySequence_Fast_GET_SIZE(fast);
    *out = malloc(sizeof(int32_t) * (size_t)(m + 1));
    if (!*out) { Py_DECREF(fast); PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < m; i++)
        if (int_item(PySequence_Fast_GET_ITEM(fast, i), what, lo, hi, clip, *out + i)) { Py_DECREF(fast); return -1; }
    Py_DECREF(fast);
    *len = m;
    return 0;
}

/* adj (per node its out-neighbours), weight (per node, >= 0) and extra (None, or per node a
 * list parallel to its adj row: the arc's extra cost, >= 0; INF or more: no arc) into CSR arrays. */
static int read_graph(PyObject *adj, PyObject *weight, PyObject *extra, Graph *g) {
    memset(g, 0, sizeof *g);
    Py_ssize_t nw;
    if (read_ints(weight, "weight", 0, BUCKETS, 0, &g->w, &nw)) return -1;
    PyObject *rows = PySequence_Fast(adj, "adj");
    if (!rows) { PyErr_Clear(); PyErr_SetString(PyExc_ValueError, "adj: a list of neighbour lists expected"); return -1; }
    g->n = PySequence_Fast_GET_SIZE(rows);
    if (g->n != nw) {
        PyErr_Format(PyExc_ValueError, "weight: %zd weights for %zd nodes", nw, g->n);
        Py_DECREF(rows);
        return -1;
    }
    Py_ssize_t cap = 4 * g->n + 4, arcs = 0;
    g->indptr = malloc(sizeof(int32_t) * (size_t)(g->n + 1));
    g->indices = malloc(sizeof(int32_t) * (size_t)cap);
    if (!g->indptr || !g->indices) { Py_DECREF(rows); PyErr_NoMemory(); return -1; }
    g->indptr[0] = 0;
    for (Py_ssize_t u = 0; u < g->n; u++) {
        PyObject *row = PySequence_Fast(PySequence_Fast_GET_ITEM(rows, u), "adj");
        if (!row) { PyErr_Clear(); PyErr_SetString(PyExc_ValueError, "adj: a list of neighbour lists expected"); Py_DECREF(rows); return -1; }
        Py_ssize_t m = PySequence_Fast_GET_SIZE(row);
        if (arcs + m > cap) {
            while (arcs + m > cap) cap *= 2;
            int32_t *more = realloc(g->indices, sizeof(int32_t) * (size_t)cap);
            if (!more) { Py_DECREF(row); Py_DECREF(rows); PyErr_NoMemory(); return -1; }
            g->indices = more;
        }
        for (Py_ssize_t i = 0; i < m; i++) {
            int32_t v;
            if (int_item(PySequence_Fast_GET_ITEM(row, i), "adj", 0, g->n - 1, 0, &v)) { Py_DECREF(row); Py_DECREF(rows); return -1; }
            g->indices[arcs++] = v;
        }
        Py_DECREF(row);
        g->indptr[u + 1] = (int32_t)arcs;
    }
    Py_DECREF(rows);
    for (Py_ssize_t v = 0; v < g->n; v++) g->total += g->w[v];
    if (extra != Py_None) {
        PyObject *xrows = PySequence_Fast(extra, "extra");
        if (!xrows) { PyErr_Clear(); PyErr_SetString(PyExc_ValueError, "extra: None or a list of lists like adj expected"); return -1; }
        if (PySequence_Fast_GET_SIZE(xrows) != g->n) {
            PyErr_Format(PyExc_ValueError, "extra: %zd rows for %zd nodes", PySequence_Fast_GET_SIZE(xrows), g->n);
            Py_DECREF(xrows);
            return -1;
        }
        g->ex = malloc(sizeof(int32_t) * (size_t)(g->indptr[g->n] + 1));
        if (!g->ex) { Py_DECREF(xrows); PyErr_NoMemory(); return -1; }
        for (Py_ssize_t u = 0; u < g->n; u++) {
            int32_t *row = NULL;
            Py_ssize_t m = 0;
            if (read_ints(PySequence_Fast_GET_ITEM(xrows, u), "extra", 0, INF, 1, &row, &m)) { free(row); Py_DECREF(xrows); return -1; }
            if (m != g->indptr[u + 1] - g->indptr[u]) {
                PyErr_Format(PyExc_ValueError, "extra: node %zd has %zd costs for %d arcs", u, m,
                             (int)(g->indptr[u + 1] - g->indptr[u]));
                free(row); Py_DECREF(xrows);
                return -1;
            }
            int32_t dearest = 0;
            for (Py_ssize_t i = 0; i < m; i++) {
                g->ex[g->indptr[u] + i] = row[i];
                if (row[i] < INF && row[i] > dearest) dearest = row[i];
            }
            g->total += dearest;
            free(row);
        }
        Py_DECREF(xrows);
    }
    if (g->total > BUCKETS) { PyErr_SetString(PyExc_ValueError, "weight: too large (their sum sizes the buckets)"); return -1; }
    return 0;
}

static PyObject *dreyfus_wagner(PyObject *self, PyObject *args) {
    PyObject *adj, *weight, *terms_seq, *extra = Py_None;
    if (!PyArg_ParseTuple(args, "OOO|O", &adj, &weight, &terms_seq, &extra)) return NULL;
    Graph g;
    int32_t *terms = NULL;
    Py_ssize_t k = 0;
    PyObject *dp = NULL, *pred = NULL, *result = NULL;
    if (read_graph(adj, weight, extra, &g)) goto done;
    if (read_ints(terms_seq, "terms", 0, g.n - 1, 0, &terms, &k)) goto done;
    if (k < 1 || k > 20) { PyErr_SetString(PyExc_ValueError, "terms: 1..20 terminals"); goto done; }
    Py_ssize_t cells = ((Py_ssize_t)1 << k) * g.n;
    dp = PyBytes_FromStringAndSize(NULL, cells * 4);
    pred = PyBytes_FromStringAndSize(NULL, cells * 4);
    if (!dp || !pred) goto done;
    int rc;
    int32_t *dpb = (int32_t *)PyBytes_AS_STRING(dp), *prb = (int32_t *)PyBytes_AS_STRING(pred);
    Py_BEGIN_ALLOW_THREADS  /* the status worker's threads (nochmal/web/rooms/status.py) may run meanwhile */
    rc = run((int)g.n, g.indptr, g.indices, g.w, g.ex, g.total, (int)k, terms, dpb, prb);
    Py_END_ALLOW_THREADS
    if (rc) { PyErr_NoMemory(); goto done; }
    result = PyTuple_Pack(2, dp, pred);
done:
    free_graph(&g);
    free(terms);
    Py_XDECREF(dp);
    Py_XDECREF(pred);
    return result;
}

static PyObject *relax(PyObject *self, PyObject *args) {
    PyObject *adj, *weight, *init, *extra = Py_None;
    if (!PyArg_ParseTuple(args, "OOO|O", &adj, &weight, &init, &extra)) return NULL;
    Graph g;
    int32_t *start = NULL, *head = NULL, *node = NULL, *next = NULL;
    Py_ssize_t m = 0;
    PyObject *label = NULL, *pred = NULL, *result = NULL;
    if (read_graph(adj, weight, extra, &g)) goto done;
    if (read_ints(init, "init", 0, INF, 1, &start, &m)) goto done;
    if (m != g.n) { PyErr_Format(PyExc_ValueError, "init: %zd labels for %zd nodes", m, g.n); goto done; }
    int64_t high = 0;  /* the highest finite label: no shortest label is above it plus every weight */
    for (Py_ssize_t v = 0; v < g.n; v++)
        if (start[v] < INF && start[v] > high) high = start[v];
    if (high + g.total > BUCKETS) { PyErr_SetString(PyExc_ValueError, "init: labels too large"); goto done; }
    label = PyBytes_FromStringAndSize(NULL, g.n * 4);
    pred = PyBytes_FromStringAndSize(NULL, g.n * 4);
    head = malloc(sizeof(int32_t) * (size_t)(high + g.total + 1));
    node = malloc(sizeof(int32_t) * (size_t)(g.n + g.indptr[g.n] + 1));
    next = malloc(sizeof(int32_t) * (size_t)(g.n + g.indptr[g.n] + 1));
    if (!label || !pred || !head || !node || !next) { if (!PyErr_Occurred()) PyErr_NoMemory(); goto done; }
    int32_t *row = (int32_t *)PyBytes_AS_STRING(label), *prow = (int32_t *)PyBytes_AS_STRING(pred);
    for (Py_ssize_t v = 0; v < g.n; v++) { row[v] = start[v]; prow[v] = -1; }
    shortest_pass((int)g.n, g.indptr, g.indices, g.w, g.ex, high + g.total, row, prow, head, node, next);
    result = PyTuple_Pack(2, label, pred);
done:
    free_graph(&g);
    free(start); free(head); free(node); free(next);
    Py_XDECREF(label);
    Py_XDECREF(pred);
    return result;
}

static PyMethodDef methods[] = {
    {"dreyfus_wagner", dreyfus_wagner, METH_VARARGS,
     "dreyfus_wagner(adj, weight, terms, extra=None) -> (dp, pred): bytes of int32, 2^k rows of n (adj: per"
     " node its out-neighbours; the arc u -> v weighs weight[v] plus extra[u][i] where v is adj[u][i])."},
    {"relax", relax, METH_VARARGS,
     "relax(adj, weight, init, extra=None) -> (label, pred): bytes of int32, n each: one shortest-path pass from init;"
     " pred: the node each label came from (-1: its own)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_steiner", NULL, -1, methods};

PyMODINIT_FUNC PyInit__steiner(void) { return PyModule_Create(&module); }
