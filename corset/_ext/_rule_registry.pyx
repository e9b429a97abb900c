"""The distinct rules of a greedy run, numbered in order of first appearance (compiled as C++).

Algorithm 1 draws a fresh candidate pool at every step.  For each candidate
the selection must know whether it repeats an earlier candidate of the same
pool, a candidate of an earlier pool, or a rule already chosen.
:class:`RuleRegistry` keeps every distinct rule (head, tail) seen so far and
numbers the rules 0, 1, 2, ... in order of first appearance, so that these
questions become comparisons of integers: no Python tuple is built per
candidate.

The rules are kept in a purpose-built open-addressing hash table (C++, in include/corset_rule_registry.h)
rather than a ``std::unordered_map`` keyed by a byte string.  A lookup there
follows a chain of dependent cache misses (bucket, node, the key's heap
string) and hashes bytes with ``std::hash``; most lookups are repeats of known
rules, so that chain was the whole cost.  Here:

- an *arena* (one ``std::vector<int32_t>``) holds one record per rule: a
  small header (head length, tail length, number, the last pool that kept the
  rule, its chosen mark) followed by its head ids and its tail ids, so that
  a rule costs no heap allocation of its own;
- *slots* (power-of-two capacity, linear probing, load factor at most 5/8)
  hold pairs (64-bit hash, arena position of the record); a lookup compares
  the stored hash first, then the lengths and the ids of the record.  A hit
  touches one slot and one record, which also carries everything
  :meth:`RuleRegistry.register_pool` needs per rule;
- the hash is a multiply-xorshift mix of the ids seeded by the head and tail
  lengths, so that the head/tail boundary is part of the key (head (1, 2)
  with tail (3,) differs from head (1,) with tail (2, 3)); the comparison
  checks the lengths as well;
- ``offsets`` gives the arena position of rule number n's record, so that a
  rule's ids can be read back from its number (``mark_chosen``);
- a batch is looked up in order, but its rules are hashed a few rules ahead
  and their slots and records prefetched, so that the cache misses of
  successive lookups overlap instead of following one another.

Memory: about 16 bytes per slot (1.6 to 3.2 slots per rule) plus a record of
7 + (number of ids) int32 words and an 8-byte offset per rule.
"""
import numpy as np

from libc.stdint cimport int32_t, int64_t

from corset._ext._typedefs cimport index_t, ptr_t

cdef extern from "corset_rule_registry.h":
    cppclass corset_rule_table:
        corset_rule_table() except +
        size_t size() noexcept nogil
        void clear() noexcept nogil
    int corset_register_rules(corset_rule_table* table, const int64_t* head_indptr, const int32_t* head_ids,
                              const int64_t* tail_indptr, const int32_t* tail_ids,
                              Py_ssize_t n_rules, int64_t* out) noexcept nogil
    Py_ssize_t corset_register_pool(corset_rule_table* table, int64_t call,
                                    const int64_t* head_indptr, const int32_t* head_ids,
                                    const int64_t* tail_indptr, const int32_t* tail_ids, Py_ssize_t n_rules,
                                    int64_t* out_head_indptr, int32_t* out_head_ids,
                                    int64_t* out_tail_indptr, int32_t* out_tail_ids,
                                    int64_t* out_numbers, unsigned char* out_flags) noexcept nogil
    void corset_mark_chosen(corset_rule_table* table, int64_t number) noexcept nogil
    const int32_t* corset_rule_ids(corset_rule_table* table, int64_t number,
                                   int64_t* head_len, int64_t* tail_len) noexcept nogil


cdef class RuleRegistry:
    """Every distinct rule seen so far, numbered in order of first appearance.

    The rules live in an open-addressing hash table over an arena of ids (see
    the module docstring).  When memory runs out, a method raises
    :class:`MemoryError`; the rules registered before the one that failed
    stay registered, with their numbers, and the registry stays usable.

    Examples
    --------
    >>> import numpy as np
    >>> from corset._ext._rule_registry import RuleRegistry
    >>> registry = RuleRegistry()
    >>> ptr = lambda *v: np.array(v, dtype=np.int64)
    >>> ids = lambda *v: np.array(v, dtype=np.int32)
    >>> # rules ({0}, {1}), ({0, 2}, {1}), ({0}, {1})
    >>> registry.register(ptr(0, 1, 3, 4), ids(0, 0, 2, 0), ptr(0, 1, 2, 3), ids(1, 1, 1)).tolist()
    [0, 1, 0]
    >>> len(registry)
    2
    """
    cdef corset_rule_table rules     # also holds, per rule, its last register_pool call and chosen mark
    cdef int64_t calls               # register_pool calls so far

    def __len__(self):
        return self.rules.size()

    def clear(self):
        """Forget every rule (numbering starts again at 0) and every chosen mark."""
        self.rules.clear()

    cdef int64_t _check_number(self, int64_t number) except -1:
        if number < 0 or <size_t> number >= self.rules.size():
            raise ValueError(f"no rule has number {number} (registry of {self.rules.size()} rules)")
        return 0

    def mark_chosen(self, int64_t number):
        """Flag rule ``number`` as chosen (see :meth:`register_pool`)."""
        self._check_number(number)
        corset_mark_chosen(&self.rules, number)

    def _rule(self, int64_t number):
        """Rule ``number`` read back from the table, as ``(head, tail)`` tuples (for tests)."""
        cdef int64_t head_len, tail_len
        self._check_number(number)
        cdef const int32_t* ids = corset_rule_ids(&self.rules, number, &head_len, &tail_len)
        return (tuple([ids[k] for k in range(head_len)]),
                tuple([ids[head_len + k] for k in range(tail_len)]))

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
            kept = corset_register_pool(&self.rules, self.calls,
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
