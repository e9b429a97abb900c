"""The distinct rules of a greedy run, numbered in order of first appearance (compiled as C++).

Algorithm 1 draws a fresh candidate pool at every step.  For each candidate
the selection must know whether it repeats an earlier candidate of the same
pool, a candidate of an earlier pool, or a rule already chosen.
:class:`RuleRegistry` keeps every distinct rule (head, tail) seen so far in a
hash table keyed by its ids and numbers the rules 0, 1, 2, ... in order of
first appearance, so that these questions become comparisons of integers:
no Python tuple is built per candidate.
"""
import numpy as np

from libc.stdint cimport int32_t, int64_t
from libcpp.vector cimport vector

from corset._ext._typedefs cimport index_t, ptr_t

cdef extern from *:
    """
    #include <new>
    #include <string>
    #include <unordered_map>
    #include <stdint.h>
    #include <vector>
    typedef std::unordered_map<std::string, int64_t> corset_rule_map;

    static inline void corset_append_ids(std::string& key, const int32_t* ids, int64_t start, int64_t stop) {
        if (stop > start)  /* ids may be NULL for an empty batch of ids */
            key.append(reinterpret_cast<const char*>(ids + start), static_cast<size_t>(stop - start) * sizeof(int32_t));
    }

    /* The number of rule r, adding it when new.  Its key (in ``key``, reused):
       its head ids, the separator -1 (never an id), its tail ids, as raw int32
       bytes.  A lookup comes first: most rules are repeats, and emplace would
       build a node, copying the key, before looking. */
    static inline int64_t corset_number(corset_rule_map* map, std::string& key, Py_ssize_t r,
                                        const int64_t* head_indptr, const int32_t* head_ids,
                                        const int64_t* tail_indptr, const int32_t* tail_ids) {
        const int32_t separator = -1;
        key.clear();
        corset_append_ids(key, head_ids, head_indptr[r], head_indptr[r + 1]);
        key.append(reinterpret_cast<const char*>(&separator), sizeof(int32_t));
        corset_append_ids(key, tail_ids, tail_indptr[r], tail_indptr[r + 1]);
        corset_rule_map::const_iterator it = map->find(key);
        if (it != map->end())
            return it->second;
        int64_t number = static_cast<int64_t>(map->size());
        map->emplace(key, number);
        return number;
    }

    /* The number of every rule of a batch.  Returns 0, or -1 when memory ran
       out (the map is left as it was before the failing insertion). */
    static int corset_register_rules(corset_rule_map* map,
                                     const int64_t* head_indptr, const int32_t* head_ids,
                                     const int64_t* tail_indptr, const int32_t* tail_ids,
                                     Py_ssize_t n_rules, int64_t* out) {
        try {
            std::string key;
            for (Py_ssize_t r = 0; r < n_rules; ++r)
                out[r] = corset_number(map, key, r, head_indptr, head_ids, tail_indptr, tail_ids);
            return 0;
        } catch (const std::bad_alloc&) {
            return -1;
        }
    }

    /* register_pool's core: number every rule of a pool, keep the first
       occurrence of each (pool order) in the output CSR, and flag it 1 when
       its number is new (>= n_before) and 2 when it is a chosen rule.
       ``seen`` holds, per number, the last call that emitted it; ``chosen``
       flags chosen numbers.  The output arrays are sized for the whole pool.
       Returns the number of rules kept, or -1 when memory ran out. */
    static Py_ssize_t corset_register_pool(corset_rule_map* map, std::vector<int64_t>* seen,
                                           const std::vector<unsigned char>* chosen, int64_t call,
                                           const int64_t* head_indptr, const int32_t* head_ids,
                                           const int64_t* tail_indptr, const int32_t* tail_ids,
                                           Py_ssize_t n_rules,
                                           int64_t* out_head_indptr, int32_t* out_head_ids,
                                           int64_t* out_tail_indptr, int32_t* out_tail_ids,
                                           int64_t* out_numbers, unsigned char* out_flags) {
        try {
            std::string key;
            const int64_t n_before = static_cast<int64_t>(map->size());
            Py_ssize_t kept = 0;
            out_head_indptr[0] = 0;
            out_tail_indptr[0] = 0;
            for (Py_ssize_t r = 0; r < n_rules; ++r) {
                int64_t number = corset_number(map, key, r, head_indptr, head_ids, tail_indptr, tail_ids);
                if (static_cast<size_t>(number) >= seen->size())
                    seen->resize(static_cast<size_t>(number) + 1, -1);
                if ((*seen)[number] == call)
                    continue;  /* repeats an earlier candidate of this pool */
                (*seen)[number] = call;
                int64_t h = out_head_indptr[kept], t = out_tail_indptr[kept];
                for (int64_t p = head_indptr[r]; p < head_indptr[r + 1]; ++p) out_head_ids[h++] = head_ids[p];
                for (int64_t p = tail_indptr[r]; p < tail_indptr[r + 1]; ++p) out_tail_ids[t++] = tail_ids[p];
                out_head_indptr[kept + 1] = h;
                out_tail_indptr[kept + 1] = t;
                out_numbers[kept] = number;
                out_flags[kept] = (number >= n_before ? 1 : 0)
                    | ((static_cast<size_t>(number) < chosen->size() && (*chosen)[number]) ? 2 : 0);
                ++kept;
            }
            return kept;
        } catch (const std::bad_alloc&) {
            return -1;
        }
    }
    """
    cppclass corset_rule_map:
        corset_rule_map() except +
        size_t size() noexcept nogil
        void clear() noexcept nogil
    int corset_register_rules(corset_rule_map* rule_map, const int64_t* head_indptr, const int32_t* head_ids,
                              const int64_t* tail_indptr, const int32_t* tail_ids,
                              Py_ssize_t n_rules, int64_t* out) noexcept nogil
    Py_ssize_t corset_register_pool(corset_rule_map* rule_map, vector[int64_t]* seen,
                                    const vector[unsigned char]* chosen, int64_t call,
                                    const int64_t* head_indptr, const int32_t* head_ids,
                                    const int64_t* tail_indptr, const int32_t* tail_ids, Py_ssize_t n_rules,
                                    int64_t* out_head_indptr, int32_t* out_head_ids,
                                    int64_t* out_tail_indptr, int32_t* out_tail_ids,
                                    int64_t* out_numbers, unsigned char* out_flags) noexcept nogil


cdef class RuleRegistry:
    """Every distinct rule seen so far, numbered in order of first appearance.

    Examples
    --------
    >>> import numpy as np
    >>> from corset._ext._ruleset import RuleRegistry
    >>> registry = RuleRegistry()
    >>> ptr = lambda *v: np.array(v, dtype=np.int64)
    >>> ids = lambda *v: np.array(v, dtype=np.int32)
    >>> # rules ({0}, {1}), ({0, 2}, {1}), ({0}, {1})
    >>> registry.register(ptr(0, 1, 3, 4), ids(0, 0, 2, 0), ptr(0, 1, 2, 3), ids(1, 1, 1)).tolist()
    [0, 1, 0]
    >>> len(registry)
    2
    """
    cdef corset_rule_map rules
    cdef vector[int64_t] seen            # per number: the last register_pool call that kept it
    cdef vector[unsigned char] chosen    # per number: 1 for a chosen rule
    cdef int64_t calls

    def __len__(self):
        return self.rules.size()

    def clear(self):
        """Forget every rule (numbering starts again at 0) and every chosen mark."""
        self.rules.clear()
        self.seen.clear()
        self.chosen.clear()

    def mark_chosen(self, int64_t number):
        """Flag rule ``number`` as chosen (see :meth:`register_pool`)."""
        if number < 0 or <size_t> number >= self.rules.size():
            raise ValueError(f"no rule has number {number} (registry of {self.rules.size()} rules)")
        if <size_t> number >= self.chosen.size():
            self.chosen.resize(number + 1, 0)
        self.chosen[number] = 1

    def register_pool(self, const ptr_t[::1] head_indptr, const index_t[::1] head_ids,
                      const ptr_t[::1] tail_indptr, const index_t[::1] tail_ids):
        """Register a candidate pool and keep each rule's first occurrence.

        Parameters
        ----------
        head_indptr, head_ids, tail_indptr, tail_ids : ndarray
            The pool as two CSR arrays (validated by the caller); it may hold
            a rule more than once.

        Returns
        -------
        arrays : tuple
            ``(head_indptr, head_ids, tail_indptr, tail_ids)`` of the distinct
            rules, in order of first occurrence in the pool.
        numbers : ndarray of int64
            Their numbers in the registry.
        flags : ndarray of uint8
            Bit 0: the rule was not seen before this pool; bit 1: it was
            marked chosen (:meth:`mark_chosen`).
        """
        cdef Py_ssize_t n = head_indptr.shape[0] - 1, kept
        if n < 0 or tail_indptr.shape[0] != n + 1:
            raise ValueError("head_indptr and tail_indptr must describe the same number of rules")
        out_hp = np.zeros(n + 1, dtype=np.int64)
        out_hi = np.empty(max(head_ids.shape[0], 1), dtype=np.int32)
        out_tp = np.zeros(n + 1, dtype=np.int64)
        out_ti = np.empty(max(tail_ids.shape[0], 1), dtype=np.int32)
        numbers = np.empty(max(n, 1), dtype=np.int64)
        flags = np.empty(max(n, 1), dtype=np.uint8)
        if n == 0:
            return (out_hp, out_hi[:0], out_tp, out_ti[:0]), numbers[:0], flags[:0]
        cdef int64_t[::1] hp = out_hp, tp = out_tp, nv = numbers
        cdef int32_t[::1] hi = out_hi, ti = out_ti
        cdef unsigned char[::1] fv = flags
        cdef const int32_t* h = &head_ids[0] if head_ids.shape[0] > 0 else NULL
        cdef const int32_t* t = &tail_ids[0] if tail_ids.shape[0] > 0 else NULL
        self.calls += 1
        with nogil:
            kept = corset_register_pool(&self.rules, &self.seen, &self.chosen, self.calls,
                                        &head_indptr[0], h, &tail_indptr[0], t, n,
                                        &hp[0], &hi[0], &tp[0], &ti[0], &nv[0], &fv[0])
        if kept < 0:
            raise MemoryError("RuleRegistry: out of memory")
        arrays = (out_hp[:kept + 1], out_hi[:out_hp[kept]], out_tp[:kept + 1], out_ti[:out_tp[kept]])
        return arrays, numbers[:kept], flags[:kept]

    def register(self, const ptr_t[::1] head_indptr, const index_t[::1] head_ids,
                 const ptr_t[::1] tail_indptr, const index_t[::1] tail_ids):
        """The number of each rule of a CSR batch, adding the rules not seen before.

        Parameters
        ----------
        head_indptr, head_ids, tail_indptr, tail_ids : ndarray
            The rules as two CSR arrays with the same number of rows (int64
            offsets, int32 ids; validated by the caller).

        Returns
        -------
        ndarray of int64
            For each rule, its number: the number of distinct rules registered
            before its first appearance (in this batch or an earlier one).
        """
        cdef Py_ssize_t n = head_indptr.shape[0] - 1
        cdef int status = 0
        if n < 0 or tail_indptr.shape[0] != n + 1:
            raise ValueError("head_indptr and tail_indptr must describe the same number of rules")
        out = np.empty(max(n, 0), dtype=np.int64)
        if n == 0:
            return out
        cdef int64_t[::1] v = out
        cdef const int32_t* h = &head_ids[0] if head_ids.shape[0] > 0 else NULL
        cdef const int32_t* t = &tail_ids[0] if tail_ids.shape[0] > 0 else NULL
        with nogil:
            status = corset_register_rules(&self.rules, &head_indptr[0], h, &tail_indptr[0], t, n, &v[0])
        if status != 0:
            raise MemoryError("RuleRegistry: out of memory")
        return out


def pool_from_jobs(const ptr_t[::1] job_indptr, const index_t[::1] job_ids, const int64_t[::1] first_job,
                   Py_ssize_t n_per_tail, const ptr_t[::1] tail_indptr, const index_t[::1] tail_ids):
    """A candidate pool from per-search heads: the rules (head of each search, its tail).

    Parameters
    ----------
    job_indptr, job_ids : ndarray
        The head found by each search (job), as a CSR (empty: no head).
    first_job : ndarray of int64
        For each sampled tail (row of ``tail_indptr``), its first job: its
        searches are jobs ``first_job[o] .. first_job[o] + n_per_tail - 1``;
        -1 for a tail without searches.  Checked by the caller to lie in range.
    n_per_tail : int
    tail_indptr, tail_ids : ndarray
        The sampled tails as a CSR.

    Returns
    -------
    head_indptr, head_ids, tail_indptr, tail_ids : ndarray
        The pool, tail by tail and search by search, searches without a head
        left out.
    """
    cdef Py_ssize_t n_tails = first_job.shape[0], o, j, r = 0, h = 0, t = 0
    cdef ptr_t p
    cdef Py_ssize_t n_rules = 0, n_head_ids = 0, n_tail_ids = 0
    for o in range(n_tails):
        if first_job[o] < 0:
            continue
        for j in range(first_job[o], first_job[o] + n_per_tail):
            if job_indptr[j + 1] > job_indptr[j]:
                n_rules += 1
                n_head_ids += job_indptr[j + 1] - job_indptr[j]
                n_tail_ids += tail_indptr[o + 1] - tail_indptr[o]
    out_hp = np.zeros(n_rules + 1, dtype=np.int64)
    out_hi = np.empty(n_head_ids, dtype=np.int32)
    out_tp = np.zeros(n_rules + 1, dtype=np.int64)
    out_ti = np.empty(n_tail_ids, dtype=np.int32)
    cdef int64_t[::1] hp = out_hp, tp = out_tp
    cdef int32_t[::1] hi = out_hi, ti = out_ti
    with nogil:
        for o in range(n_tails):
            if first_job[o] < 0:
                continue
            for j in range(first_job[o], first_job[o] + n_per_tail):
                if job_indptr[j + 1] == job_indptr[j]:
                    continue
                for p in range(job_indptr[j], job_indptr[j + 1]):
                    hi[h] = job_ids[p]
                    h += 1
                for p in range(tail_indptr[o], tail_indptr[o + 1]):
                    ti[t] = tail_ids[p]
                    t += 1
                r += 1
                hp[r] = h
                tp[r] = t
    return out_hp, out_hi, out_tp, out_ti


def gather_rows(const ptr_t[::1] indptr, const index_t[::1] ids, const int64_t[::1] rows):
    """Rows ``rows`` of a CSR ``(indptr, ids)``, in that order, as a new CSR (int64 offsets, int32 ids).

    Raises IndexError for a row outside the CSR.
    """
    cdef Py_ssize_t n_rows = indptr.shape[0] - 1, n_out = rows.shape[0], i, total = 0, pos = 0
    cdef int64_t row
    cdef ptr_t p
    for i in range(n_out):
        row = rows[i]
        if row < 0 or row >= n_rows:
            raise IndexError(f"row {row} outside a CSR of {n_rows} rows")
        total += indptr[row + 1] - indptr[row]
    out_indptr = np.zeros(n_out + 1, dtype=np.int64)
    out_ids = np.empty(total, dtype=np.int32)
    cdef int64_t[::1] oi = out_indptr
    cdef int32_t[::1] od = out_ids
    with nogil:
        for i in range(n_out):
            row = rows[i]
            for p in range(indptr[row], indptr[row + 1]):
                od[pos] = ids[p]
                pos += 1
            oi[i + 1] = pos
    return out_indptr, out_ids
