/* The Dreyfus-Wagner programme of nochmal/steiner.py (dreyfus_wagner), compiled.
 *
 * Why C: the programme is 3^k merges over ~100 nodes plus one shortest-path pass per
 * terminal subset (4096 at k = 12); as numpy gathers and scipy calls it took 50-200 ms at
 * 10-12 terminals, which a table room's status pays on every tap that crosses a star
 * (issue 19, benchmarks/RESULTS.md "Room status: a compiled Dreyfus-Wagner"). Here the
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

#define INF 1000000000  /* nochmal/steiner.py INF: "unreachable" (INF + INF < 2^31) */
#define BUCKETS (1 << 24)  /* the most label values a pass keeps buckets for */

/* One shortest-path pass in place: row[v] = min(row[v], row[u] + w[v]) over arcs u -> v;
 * prow[v] = u where an arc lowered row[v]. Labels above ``limit`` are "unreachable" (INF):
 * the caller sizes ``head`` (limit + 1 buckets) so that no shortest label is above it. */
static void shortest_pass(int n, const int32_t *indptr, const int32_t *indices, const int32_t *w,
                          int64_t limit, int32_t *row, int32_t *prow, int32_t *head, int32_t *node,
                          int32_t *next) {
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
                int32_t nd = (int32_t)d + w[v];
                if (nd < row[v] && nd <= limit) {
                    row[v] = nd; prow[v] = u;
                    node[top] = v; next[top] = head[nd]; head[nd] = top; top++;
                }
            }
        }
    }
}

static int run(int n, const int32_t *indptr, const int32_t *indices, const int32_t *w,
               int k, const int32_t *terms, int32_t *dp, int32_t *pred) {
    int64_t maxl = 0;
    for (int v = 0; v < n; v++) maxl += w[v];
    int32_t arcs = indptr[n];
    int32_t *acc = malloc(sizeof(int32_t) * (size_t)n);
    int32_t *head = malloc(sizeof(int32_t) * (size_t)(maxl + 1));
    int32_t *node = malloc(sizeof(int32_t) * (size_t)(n + arcs + 1));
    int32_t *next = malloc(sizeof(int32_t) * (size_t)(n + arcs + 1));
    if (!acc || !head || !node || !next) {
        free(acc); free(head); free(node); free(next);
        return -1;
    }
    int64_t full = (int64_t)1 << k;
    for (int64_t i = 0; i < full * n; i++) { dp[i] = INF; pred[i] = -1; }
    for (int64_t s = 1; s < full; s++) {
        int32_t *row = dp + s * n;
        if ((s & (s - 1)) == 0) {
            int t = 0;
            while (((int64_t)1 << t) != s) t++;
            row[terms[t]] = w[terms[t]];
        } else {
            int64_t low = s & -s, rest = s ^ low;
            for (int v = 0; v < n; v++) acc[v] = 2 * INF;
            for (int64_t sub = (rest - 1) & rest;; sub = (sub - 1) & rest) {  /* proper submasks, descending */
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
        shortest_pass(n, indptr, indices, w, maxl, row, pred + s * n, head, node, next);
    }
    free(acc); free(head); free(node); free(next);
    return 0;
}

static int int32_buffer(Py_buffer *b, const char *what, Py_ssize_t items) {
    if (b->itemsize != 4 || b->len != items * 4) {
        PyErr_Format(PyExc_ValueError, "%s: expected %zd int32 items, got %zd bytes", what, items, b->len);
        return -1;
    }
    return 0;
}

/* The graph's buffers (CSR arcs, node weights): -1 with a ValueError naming the argument. */
static int check_graph(Py_buffer *indptr, Py_buffer *indices, Py_buffer *w, int64_t *total) {
    Py_ssize_t n = w->len / 4;
    const int32_t *ip = indptr->buf, *ix = indices->buf, *wt = w->buf;
    if (int32_buffer(w, "w", n) || int32_buffer(indptr, "indptr", n + 1)) return -1;
    if (ip[0] != 0) { PyErr_SetString(PyExc_ValueError, "indptr: must start at 0"); return -1; }
    for (Py_ssize_t v = 0; v < n; v++)
        if (ip[v + 1] < ip[v]) { PyErr_SetString(PyExc_ValueError, "indptr: must not decrease"); return -1; }
    if (int32_buffer(indices, "indices", ip[n])) return -1;
    for (Py_ssize_t j = 0; j < ip[n]; j++)
        if (ix[j] < 0 || ix[j] >= n) { PyErr_SetString(PyExc_ValueError, "indices: node out of range"); return -1; }
    *total = 0;
    for (Py_ssize_t v = 0; v < n; v++) {
        if (wt[v] < 0) { PyErr_SetString(PyExc_ValueError, "w: weights must be >= 0"); return -1; }
        *total += wt[v];
    }
    if (*total > BUCKETS) {
        PyErr_SetString(PyExc_ValueError, "w: weights too large (their sum sizes the buckets)");
        return -1;
    }
    return 0;
}

static PyObject *dreyfus_wagner(PyObject *self, PyObject *args) {
    Py_buffer indptr, indices, w, terms, dp, pred;
    if (!PyArg_ParseTuple(args, "y*y*y*y*w*w*", &indptr, &indices, &w, &terms, &dp, &pred)) return NULL;
    PyObject *result = NULL;
    Py_ssize_t n = w.len / 4, k = terms.len / 4;
    const int32_t *tm = terms.buf;
    int64_t total;
    if (check_graph(&indptr, &indices, &w, &total) || int32_buffer(&terms, "terms", k)) goto done;
    if (k < 1 || k > 20) { PyErr_SetString(PyExc_ValueError, "terms: 1..20 terminals"); goto done; }
    for (Py_ssize_t t = 0; t < k; t++)
        if (tm[t] < 0 || tm[t] >= n) { PyErr_SetString(PyExc_ValueError, "terms: node out of range"); goto done; }
    if (int32_buffer(&dp, "dp", ((Py_ssize_t)1 << k) * n) || int32_buffer(&pred, "pred", ((Py_ssize_t)1 << k) * n))
        goto done;
    int rc;
    Py_BEGIN_ALLOW_THREADS  /* the status worker's threads (nochmal/web/rooms/status.py) may run meanwhile */
    rc = run((int)n, indptr.buf, indices.buf, w.buf, (int)k, tm, dp.buf, pred.buf);
    Py_END_ALLOW_THREADS
    if (rc) { PyErr_NoMemory(); goto done; }
    result = Py_None;
    Py_INCREF(result);
done:
    PyBuffer_Release(&indptr); PyBuffer_Release(&indices); PyBuffer_Release(&w);
    PyBuffer_Release(&terms); PyBuffer_Release(&dp); PyBuffer_Release(&pred);
    return result;
}

static PyObject *relax(PyObject *self, PyObject *args) {
    Py_buffer indptr, indices, w, label, pred;
    if (!PyArg_ParseTuple(args, "y*y*y*w*w*", &indptr, &indices, &w, &label, &pred)) return NULL;
    PyObject *result = NULL;
    int32_t *head = NULL, *node = NULL, *next = NULL;
    Py_ssize_t n = w.len / 4;
    int64_t total;
    if (check_graph(&indptr, &indices, &w, &total) || int32_buffer(&label, "label", n) || int32_buffer(&pred, "pred", n))
        goto done;
    int32_t *row = label.buf, *prow = pred.buf;
    int64_t high = 0;  /* the highest finite label: no shortest label is above it plus every weight */
    for (Py_ssize_t v = 0; v < n; v++) {
        if (row[v] < 0) { PyErr_SetString(PyExc_ValueError, "label: labels must be >= 0"); goto done; }
        if (row[v] < INF && row[v] > high) high = row[v];
        prow[v] = -1;
    }
    if (high + total > BUCKETS) { PyErr_SetString(PyExc_ValueError, "label: labels too large"); goto done; }
    Py_ssize_t arcs = ((int32_t *)indptr.buf)[n];
    head = malloc(sizeof(int32_t) * (size_t)(high + total + 1));
    node = malloc(sizeof(int32_t) * (size_t)(n + arcs + 1));
    next = malloc(sizeof(int32_t) * (size_t)(n + arcs + 1));
    if (!head || !node || !next) { PyErr_NoMemory(); goto done; }
    shortest_pass((int)n, indptr.buf, indices.buf, w.buf, high + total, row, prow, head, node, next);
    result = Py_None;
    Py_INCREF(result);
done:
    free(head); free(node); free(next);
    PyBuffer_Release(&indptr); PyBuffer_Release(&indices); PyBuffer_Release(&w);
    PyBuffer_Release(&label); PyBuffer_Release(&pred);
    return result;
}

static PyMethodDef methods[] = {
    {"dreyfus_wagner", dreyfus_wagner, METH_VARARGS,
     "dreyfus_wagner(indptr, indices, w, terms, dp, pred): fill dp and pred (int32, 2^k x n) in place."},
    {"relax", relax, METH_VARARGS,
     "relax(indptr, indices, w, label, pred): one shortest-path pass on label (int32, n) in place; pred gets"
     " the node each label came from (-1: its own)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_steiner", NULL, -1, methods};

PyMODINIT_FUNC PyInit__steiner(void) { return PyModule_Create(&module); }
