"""What a greedy run keeps per distinct candidate rule, stored and gathered in compiled loops.

Round 1 of Algorithm 1 draws a fresh pool at every step, and the pools
repeat most of their rules.  A rule's support D[R], its counts |D[H]| and
|D[T]|, its precision P_R, base rate P_D and adjusted accuracy a(R)
(eq. disc) never change during a run; its sum of distances to the chosen
rules Σ_j d(R, R_j) only grows, and the quality term and area of its last
gain evaluation bound its later gains from above (Minoux's accelerated
greedy).  :class:`RuleStore` holds all of these, one *slot* per stored rule
in the order the rules were stored, and a map from a rule's registry number
(:class:`~corset._ext._rule_registry.RuleRegistry`) to its slot.

A step makes one call (:meth:`RuleStore.read_pool`): its new rules are
stored (:meth:`RuleStore.add_rows`, their statistics computed by the
selection's own support pass and arithmetic, ``rule_supports_core`` and
``rule_ratios``, on the data bound with :meth:`RuleStore.bind_data`), the
distance sums of the rules the pool reads are brought up to date
(:meth:`RuleStore.catch_up`, with the selection's own distance kernel and
in the order the rules were chosen) and its rows are read
(:meth:`RuleStore.gather`).  The values are the same doubles as computed
afresh.  A store of growing numpy arrays took a few dozen numpy calls per
step, and the greedy bookkeeping of a step on the small benchmark sets is
a fraction of a millisecond, so those calls were a large part of it.

Memory: per stored rule, 9 int64 or float64 words, a byte, and its support
and tail ids (int32).  What to evict and when is the caller's choice
(:meth:`RuleStore.keep`, ``corset.selection._greedy._CandidateStore``).
"""
import numpy as np

from corset._ext._csr_rows import gather_rows
from corset._ext._csr_rows cimport gather_rows_into

from libc.stdint cimport int64_t, uint8_t
from libc.string cimport memcpy

from corset._ext._selection cimport distance_sums_core, rule_ratios, rule_supports_bound, rule_supports_core
from corset._ext._typedefs cimport index_t, ptr_t, float64_t, uint64_t

# Gain bounds of a rule never evaluated (its first evaluation is exact).
cdef float64_t NO_Q_BOUND = np.inf
cdef int64_t NO_AREA_BOUND = np.iinfo(np.int64).max
# The most catch_up's dense path may take for its rows (a chosen rule's records and a candidate's as
# bitsets, each as long as the data's records); past it every distance is counted from record lists.
cdef Py_ssize_t CATCH_UP_DENSE_BYTES = 32 * 1024 * 1024


def _grown(array, Py_ssize_t needed):
    """``array`` with room for ``needed`` entries: itself, or a copy of twice the size (or more)."""
    if array.shape[0] >= needed:
        return array
    bigger = np.zeros(max(needed, 2 * array.shape[0], 16), dtype=array.dtype)
    bigger[:array.shape[0]] = array
    return bigger


cdef class RuleStore:
    """Per stored rule: its registry number, D[R], tail, counts, P_R, P_D, a(R), eligibility,
    distance sum and gain bounds; and each registry number's slot.

    Slots are numbered 0, 1, ... in the order the rules were stored.  The
    arrays a caller gets are copies (:meth:`gather`, :meth:`eligible_at`) or
    views valid until the next call that stores (:meth:`arrays`).

    Examples
    --------
    >>> import numpy as np
    >>> from corset._ext._store import RuleStore
    >>> store = RuleStore()
    >>> i64, i32, f64 = (lambda *v, t=t: np.array(v, dtype=t) for t in (np.int64, np.int32, np.float64))
    >>> # rules number 5 (D[R] = {0, 2}, tail {1}) and 3 (D[R] = {1}, tail {0, 1})
    >>> store.append(i64(5, 3), i64(0, 2, 3), i32(0, 2, 1), i64(0, 1, 3), i32(1, 0, 1), i64(4, 2), i64(3, 2),
    ...              f64(0.5, 0.5), f64(0.75, 0.5), f64(0.1, 0.0), np.array([1, 1], dtype=np.uint8), f64(0, 0))
    >>> store.slots(i64(3, 4, 5)).tolist()
    [1, -1, 0]
    >>> support_indptr, support_ids, *_ = store.gather(i64(1, 0))
    >>> support_indptr.tolist(), support_ids.tolist()
    ([0, 1, 3], [1, 0, 2])
    """

    cdef object _slot           # int64, per registry number: its slot + 1 (0: not stored)
    cdef object _numbers        # int64, per slot: the rule's registry number
    cdef object _support_indptr, _support_ids, _tail_indptr, _tail_ids
    cdef object _head_counts, _tail_counts, _area_bound     # int64
    cdef object _precision, _base_rate, _accuracy, _sums, _q_bound   # float64
    cdef object _eligible       # uint8: intrinsic eligibility, cleared once chosen
    cdef object _summed         # int64, per slot: how many chosen rules its distance sum holds
    cdef object _bits           # uint64 scratch of catch_up (all zero between calls)
    cdef object _dense          # uint64 rows of catch_up's dense path (all zero between calls)
    cdef Py_ssize_t _size
    # Typed views of the arrays above, taken when an array is (re)allocated: a call then reads
    # the store's own arrays without acquiring a buffer per array (a few thousand instructions
    # each, many times the work of a small pool's loop).
    cdef int64_t[::1] _v_slot, _v_numbers, _v_sp, _v_tp, _v_hc, _v_tc, _v_ab, _v_sm
    cdef index_t[::1] _v_si, _v_ti
    cdef float64_t[::1] _v_pr, _v_br, _v_ac, _v_su, _v_qb
    cdef uint8_t[::1] _v_el
    # The data the rules' statistics are computed on (bind_data; add_rows reads them).
    cdef bint _bound
    cdef const ptr_t[::1] _d_fp, _d_lp
    cdef const index_t[::1] _d_fi, _d_li
    cdef const uint64_t[::1] _d_fb, _d_lb
    cdef Py_ssize_t _d_records, _d_words
    cdef object _d_arrays     # keeps the bound arrays alive

    def __init__(self):
        self._slot = np.zeros(0, dtype=np.int64)
        self._v_slot = self._slot
        self._bits = np.zeros(1, dtype=np.uint64)
        self._dense = np.zeros(1, dtype=np.uint64)
        self._empty()

    cdef void _rows_views(self):
        self._v_numbers, self._v_sp, self._v_tp = self._numbers, self._support_indptr, self._tail_indptr
        self._v_hc, self._v_tc, self._v_ab, self._v_sm = (self._head_counts, self._tail_counts, self._area_bound,
                                                          self._summed)
        self._v_pr, self._v_br, self._v_ac, self._v_su, self._v_qb = (self._precision, self._base_rate,
                                                                      self._accuracy, self._sums, self._q_bound)
        self._v_el = self._eligible

    cdef void _reserve(self, Py_ssize_t rows, Py_ssize_t n_support_ids, Py_ssize_t n_tail_ids):
        """Room for ``rows`` slots and that many support and tail ids (arrays grown by doubling)."""
        # Each array grows on its own need (_grown keeps an array with room): the offsets hold one
        # entry more than the per-slot columns, and their capacities need not keep that lead.
        if self._v_numbers.shape[0] < rows or self._v_sp.shape[0] < rows + 1 or self._v_tp.shape[0] < rows + 1:
            self._numbers = _grown(self._numbers, rows)
            self._support_indptr = _grown(self._support_indptr, rows + 1)
            self._tail_indptr = _grown(self._tail_indptr, rows + 1)
            self._head_counts = _grown(self._head_counts, rows)
            self._tail_counts = _grown(self._tail_counts, rows)
            self._area_bound = _grown(self._area_bound, rows)
            self._precision = _grown(self._precision, rows)
            self._base_rate = _grown(self._base_rate, rows)
            self._accuracy = _grown(self._accuracy, rows)
            self._sums = _grown(self._sums, rows)
            self._q_bound = _grown(self._q_bound, rows)
            self._eligible = _grown(self._eligible, rows)
            self._summed = _grown(self._summed, rows)
            self._rows_views()
        if self._v_si.shape[0] < n_support_ids:
            self._support_ids = _grown(self._support_ids, n_support_ids)
            self._v_si = self._support_ids
        if self._v_ti.shape[0] < n_tail_ids:
            self._tail_ids = _grown(self._tail_ids, n_tail_ids)
            self._v_ti = self._tail_ids

    def _empty(self):
        i64, f64 = np.int64, np.float64
        self._numbers = np.zeros(0, dtype=i64)
        self._support_indptr = np.zeros(1, dtype=i64)
        self._tail_indptr = np.zeros(1, dtype=i64)
        self._support_ids = np.zeros(0, dtype=np.int32)
        self._tail_ids = np.zeros(0, dtype=np.int32)
        self._head_counts, self._tail_counts, self._area_bound = (np.zeros(0, dtype=i64) for _ in range(3))
        self._precision, self._base_rate, self._accuracy, self._sums, self._q_bound = (
            np.zeros(0, dtype=f64) for _ in range(5))
        self._eligible = np.zeros(0, dtype=np.uint8)
        self._summed = np.zeros(0, dtype=i64)
        self._size = 0
        self._rows_views()
        self._v_si, self._v_ti = self._support_ids, self._tail_ids

    @property
    def size(self):
        """The number of stored rules."""
        return self._size

    @property
    def n_support_ids(self):
        """The record ids of the stored supports (the store's memory, in int32 words)."""
        return int(self._v_sp[self._size])

    cpdef slots(self, const int64_t[::1] numbers):
        """The slot of each registry number of ``numbers`` (-1: not stored), as int64."""
        cdef Py_ssize_t n = numbers.shape[0], i
        cdef int64_t top = -1
        for i in range(n):
            if numbers[i] < 0:
                raise IndexError(f"registry number {numbers[i]} is negative")
            if numbers[i] > top:
                top = numbers[i]
        if self._v_slot.shape[0] < top + 1:
            self._slot = _grown(self._slot, top + 1)
            self._v_slot = self._slot
        out = np.empty(n, dtype=np.int64)
        cdef int64_t[::1] o = out
        cdef const int64_t[::1] slot = self._v_slot
        with nogil:
            for i in range(n):
                o[i] = slot[numbers[i]] - 1
        return out

    def append(self, const int64_t[::1] numbers, const ptr_t[::1] support_indptr, const index_t[::1] support_ids,
               const ptr_t[::1] tail_indptr, const index_t[::1] tail_ids, const int64_t[::1] head_counts,
               const int64_t[::1] tail_counts, const float64_t[::1] precision, const float64_t[::1] base_rate,
               const float64_t[::1] accuracy, const uint8_t[::1] eligible, const float64_t[::1] sums):
        """Store the rules ``numbers`` (none stored already) with their statistics, in that order.

        ``support_*`` and ``tail_*``: their D[R] and tails as a CSR.  Their
        gain bounds start unknown (the first evaluation is exact).
        """
        cdef Py_ssize_t m = numbers.shape[0], i, first = self._size
        # Shapes checked on the typed views (a tuple of them would build a Python object per view).
        if support_indptr.shape[0] != m + 1:
            raise ValueError(f"support_indptr must have {m + 1} entries; got {support_indptr.shape[0]}")
        if tail_indptr.shape[0] != m + 1:
            raise ValueError(f"tail_indptr must have {m + 1} entries; got {tail_indptr.shape[0]}")
        cdef Py_ssize_t[7] sizes = [head_counts.shape[0], tail_counts.shape[0], precision.shape[0],
                                    base_rate.shape[0], accuracy.shape[0], eligible.shape[0], sums.shape[0]]
        for i in range(7):
            if sizes[i] != m:
                name = ("head_counts", "tail_counts", "precision", "base_rate", "accuracy", "eligible", "sums")[i]
                raise ValueError(f"{name} must have {m} entries; got {sizes[i]}")
        if support_indptr[0] != 0 or support_indptr[m] != support_ids.shape[0] or tail_indptr[0] != 0 \
                or tail_indptr[m] != tail_ids.shape[0]:
            raise ValueError("the supports and tails must be whole CSRs (offsets from 0 to their ids' size)")
        slots = self.slots(numbers)
        if m and slots.max() >= 0:
            raise ValueError("append: a rule of numbers is stored already")
        if m == 0:
            return
        self._append_ptr(m, &numbers[0], &support_indptr[0], &support_ids[0] if support_ids.shape[0] else NULL,
                         &tail_indptr[0], &tail_ids[0] if tail_ids.shape[0] else NULL, &head_counts[0],
                         &tail_counts[0], &precision[0], &base_rate[0], &accuracy[0], &eligible[0], &sums[0])

    cdef int _append_ptr(self, Py_ssize_t m, const int64_t* numbers, const ptr_t* support_indptr,
                         const index_t* support_ids, const ptr_t* tail_indptr, const index_t* tail_ids,
                         const int64_t* head_counts, const int64_t* tail_counts, const float64_t* precision,
                         const float64_t* base_rate, const float64_t* accuracy, const uint8_t* eligible,
                         const float64_t* sums) except -1:
        # :meth:`append`'s copy, once its arguments are checked (``sums`` NULL: every sum 0).  The
        # numbers' slots must exist (self.slots grew the map to them) and hold no rule.
        cdef Py_ssize_t i, first = self._size
        cdef Py_ssize_t n_sup = self._v_sp[first], n_tail = self._v_tp[first]
        cdef Py_ssize_t n_new_sup = support_indptr[m], n_new_tail = tail_indptr[m]
        self._reserve(first + m, n_sup + n_new_sup, n_tail + n_new_tail)
        cdef int64_t[::1] slot = self._v_slot, nums = self._v_numbers, sm = self._v_sm
        cdef int64_t[::1] sp = self._v_sp, tp = self._v_tp
        cdef index_t[::1] si = self._v_si, ti = self._v_ti
        cdef int64_t[::1] hc = self._v_hc, tc = self._v_tc, ab = self._v_ab
        cdef float64_t[::1] pr = self._v_pr, br = self._v_br, ac = self._v_ac
        cdef float64_t[::1] su = self._v_su, qb = self._v_qb
        cdef uint8_t[::1] el = self._v_el
        with nogil:
            if n_new_sup:
                memcpy(&si[n_sup], support_ids, n_new_sup * sizeof(index_t))
            if n_new_tail:
                memcpy(&ti[n_tail], tail_ids, n_new_tail * sizeof(index_t))
            for i in range(m):
                slot[numbers[i]] = first + i + 1
                nums[first + i] = numbers[i]
                sp[first + i + 1] = n_sup + support_indptr[i + 1]
                tp[first + i + 1] = n_tail + tail_indptr[i + 1]
                hc[first + i] = head_counts[i]
                tc[first + i] = tail_counts[i]
                pr[first + i] = precision[i]
                br[first + i] = base_rate[i]
                ac[first + i] = accuracy[i]
                el[first + i] = eligible[i]
                su[first + i] = sums[i] if sums != NULL else 0.0
                qb[first + i] = NO_Q_BOUND
                ab[first + i] = NO_AREA_BOUND
                sm[first + i] = 0
        self._size = first + m
        return 0

    def bind_data(self, const ptr_t[::1] feature_indptr, const index_t[::1] feature_ids,
                  const ptr_t[::1] label_indptr, const index_t[::1] label_ids, Py_ssize_t n_records,
                  feature_bits=None, label_bits=None, Py_ssize_t n_words=0):
        """The data :meth:`add_rows` computes the rules' statistics on: its feature and label
        posting lists (``BinaryData.feature_records``, ``label_records``) and, optionally, their
        record bitsets (``BinaryData.column_bitsets``; both or neither), as
        :func:`corset._ext._selection.rule_supports` takes them."""
        cdef Py_ssize_t n_f = feature_indptr.shape[0] - 1, n_l = label_indptr.shape[0] - 1
        if n_f < 0 or n_l < 0 or n_records < 0:
            raise ValueError("bind_data: the posting lists' offsets need one entry more than items")
        if (feature_indptr[0] != 0 or feature_indptr[n_f] != feature_ids.shape[0] or label_indptr[0] != 0
                or label_indptr[n_l] != label_ids.shape[0]):
            raise ValueError("bind_data: the posting lists must be whole CSRs (offsets from 0 to their ids' size)")
        if (feature_bits is None) != (label_bits is None):
            raise ValueError("bind_data: pass both feature_bits and label_bits, or neither")
        self._d_fp, self._d_fi, self._d_lp, self._d_li = feature_indptr, feature_ids, label_indptr, label_ids
        self._d_records = n_records
        self._d_words = 0
        self._d_fb = self._d_lb = None
        if feature_bits is not None and n_f > 0 and n_l > 0 and n_records > 0:
            self._d_fb, self._d_lb = feature_bits, label_bits
            if (n_words < 1 or n_words * 64 < n_records or self._d_fb.shape[0] < n_f * n_words
                    or self._d_lb.shape[0] < n_l * n_words):
                self._d_fb = self._d_lb = None
                raise ValueError(f"bind_data: bitsets too small for {n_f} features, {n_l} labels and "
                                 f"{n_records} records with n_words={n_words}")
            self._d_words = n_words
        self._d_arrays = (feature_indptr, feature_ids, label_indptr, label_ids, feature_bits, label_bits)
        self._bound = True

    cpdef add_rows(self, const int64_t[::1] numbers, const uint8_t[::1] flags, const int64_t[::1] rows,
                 const ptr_t[::1] head_indptr, const index_t[::1] head_ids,
                 const ptr_t[::1] tail_indptr, const index_t[::1] tail_ids,
                 bint allow_empty_coverage, int64_t min_support, Py_ssize_t max_ids):
        """Store rules ``rows`` of a pool, computing their statistics on the bound data; False
        (nothing stored) when their supports would take the store past ``max_ids`` support ids.

        The pool: its rules' registry numbers ``numbers``, ``flags`` (bit 2: chosen already) and
        heads and tails as CSRs, of which rows ``rows`` (none stored yet) are stored in that
        order.  What :meth:`append` stores when given the rows'
        :func:`~corset._ext._selection.rule_supports` and
        :func:`~corset._ext._selection.rule_columns` (the same doubles), with every distance
        sum 0 and eligibility cleared for a rule chosen already, an empty coverage (unless
        ``allow_empty_coverage``) or fewer than ``min_support`` records in D[R].
        """
        if not self._bound:
            raise RuntimeError("add_rows: bind_data first")
        cdef Py_ssize_t n_pool = numbers.shape[0], m = rows.shape[0], i, r
        if flags.shape[0] != n_pool or head_indptr.shape[0] != n_pool + 1 or tail_indptr.shape[0] != n_pool + 1:
            raise ValueError(f"add_rows: the pool's flags and offsets must have {n_pool} and {n_pool + 1} entries")
        if (n_pool and (head_indptr[0] != 0 or head_indptr[n_pool] != head_ids.shape[0] or tail_indptr[0] != 0
                        or tail_indptr[n_pool] != tail_ids.shape[0])):
            raise ValueError("add_rows: the pool's heads and tails must be whole CSRs")
        cdef Py_ssize_t n_f = self._d_fp.shape[0] - 1, n_l = self._d_lp.shape[0] - 1
        cdef ptr_t n_head = 0, n_tail = 0
        for i in range(m):
            r = rows[i]
            if r < 0 or r >= n_pool:
                raise IndexError(f"add_rows: row {r} outside the pool of {n_pool} rules")
            if head_indptr[r + 1] < head_indptr[r] or tail_indptr[r + 1] < tail_indptr[r]:
                raise ValueError(f"add_rows: the offsets of rule {r} decrease")
            n_head += head_indptr[r + 1] - head_indptr[r]
            n_tail += tail_indptr[r + 1] - tail_indptr[r]
        for i in range(head_ids.shape[0]):
            if head_ids[i] < 0 or head_ids[i] >= n_f:
                raise ValueError(f"add_rows: feature id {head_ids[i]} outside the bound data's {n_f} features")
        for i in range(tail_ids.shape[0]):
            if tail_ids[i] < 0 or tail_ids[i] >= n_l:
                raise ValueError(f"add_rows: label id {tail_ids[i]} outside the bound data's {n_l} labels")
        if m == 0:
            return True
        # The rows' numbers and rules, gathered.
        g_numbers = np.empty(m, dtype=np.int64)
        g_head_indptr = np.empty(m + 1, dtype=np.int64)
        g_tail_indptr = np.empty(m + 1, dtype=np.int64)
        g_head_ids = np.empty(max(n_head, 1), dtype=np.int32)
        g_tail_ids = np.empty(max(n_tail, 1), dtype=np.int32)
        cdef int64_t[::1] gn = g_numbers
        cdef ptr_t[::1] ghp = g_head_indptr, gtp = g_tail_indptr
        cdef index_t[::1] ghi = g_head_ids, gti = g_tail_ids
        for i in range(m):
            gn[i] = numbers[rows[i]]
        with nogil:
            gather_rows_into(&head_indptr[0], &head_ids[0] if n_head else NULL, &rows[0], m, &ghp[0], &ghi[0])
            gather_rows_into(&tail_indptr[0], &tail_ids[0] if n_tail else NULL, &rows[0], m, &gtp[0], &gti[0])
        slots = self.slots(g_numbers)   # checks the numbers, and grows the map to them
        if slots.max() >= 0:
            raise ValueError("add_rows: a rule of the rows is stored already")
        # D[R], |D[H]| and |D[T]| (rule_supports' pass), then the columns and eligibility.
        cdef Py_ssize_t max_keys = 1
        cdef ptr_t bound = rule_supports_bound(&self._d_fp[0], &self._d_lp[0], self._d_records, &ghp[0], &ghi[0],
                                               &gtp[0], &gti[0], m, &max_keys)
        support_indptr = np.empty(m + 1, dtype=np.int64)
        support_ids = np.empty(max(bound, 1), dtype=np.int32)
        head_counts = np.zeros(m, dtype=np.int64)
        tail_counts = np.zeros(m, dtype=np.int64)
        work = np.empty(max(self._d_records, 1), dtype=np.int32)
        order = np.empty(max_keys, dtype=np.int32)
        acc = np.empty(2 * max(self._d_words, 1) + 1, dtype=np.uint64)
        cdef ptr_t[::1] osp = support_indptr
        cdef index_t[::1] osi = support_ids, wk = work, od = order
        cdef int64_t[::1] hc = head_counts, tc = tail_counts
        cdef uint64_t[::1] ac_bits = acc
        cdef const uint64_t* fbits = &self._d_fb[0] if self._d_words else NULL
        cdef const uint64_t* lbits = &self._d_lb[0] if self._d_words else NULL
        cdef ptr_t pos
        with nogil:
            pos = rule_supports_core(&self._d_fp[0], &self._d_fi[0] if self._d_fi.shape[0] else NULL,
                                     &self._d_lp[0], &self._d_li[0] if self._d_li.shape[0] else NULL,
                                     self._d_records, &ghp[0], &ghi[0], &gtp[0], &gti[0], m, &osp[0], &osi[0],
                                     &hc[0], &tc[0], &wk[0], &od[0], fbits, lbits, self._d_words, &ac_bits[0])
        if self._v_sp[self._size] + pos > max_ids:
            return False
        columns = np.empty((3, m), dtype=np.float64)
        eligible = np.empty(m, dtype=np.uint8)
        cdef float64_t[:, ::1] col = columns
        cdef uint8_t[::1] el = eligible
        cdef int64_t n_matched
        with nogil:
            for i in range(m):
                n_matched = osp[i + 1] - osp[i]
                rule_ratios(n_matched, hc[i], tc[i], self._d_records, &col[0, i], &col[1, i], &col[2, i])
                # _base_eligibility's rule, and a rule chosen already (evicted since) stays out.
                el[i] = not ((not allow_empty_coverage and n_matched * (gtp[i + 1] - gtp[i]) == 0)
                             or (min_support > 1 and n_matched < min_support) or (flags[rows[i]] & 2))
        self._append_ptr(m, &gn[0], &osp[0], &osi[0], &gtp[0], &gti[0], &hc[0], &tc[0], &col[0, 0], &col[1, 0],
                         &col[2, 0], &el[0], NULL)
        return True

    cdef int _check_slots(self, const int64_t[::1] slots) except -1:
        cdef Py_ssize_t i
        for i in range(slots.shape[0]):
            if slots[i] < 0 or slots[i] >= self._size:
                raise IndexError(f"slot {slots[i]} outside [0, {self._size})")
        return 0

    def read_pool(self, const int64_t[::1] numbers, const uint8_t[::1] flags, const ptr_t[::1] head_indptr,
                  const index_t[::1] head_ids, const ptr_t[::1] tail_indptr, const index_t[::1] tail_ids,
                  bint allow_empty_coverage, int64_t min_support, Py_ssize_t max_ids,
                  const ptr_t[::1] chosen_support_indptr=None, const index_t[::1] chosen_support_ids=None,
                  const ptr_t[::1] chosen_tail_indptr=None, const index_t[::1] chosen_tail_ids=None):
        """A greedy step's reads of its pool in one call: ``(slots, gathered)``, or None.

        The pool as :meth:`add_rows` takes it.  Its rules not stored yet are
        stored (:meth:`add_rows`, in pool order); with the chosen rules
        (``chosen_*``, as :meth:`catch_up` takes them) the pool's distance
        sums are brought up to date; then every rule's slot (int64) and
        :meth:`gather` of those slots are returned.  None, and nothing
        stored, when the new rules' supports would pass ``max_ids``.
        """
        slots = self.slots(numbers)
        cdef int64_t[::1] sv = slots
        cdef int64_t[::1] rv
        cdef Py_ssize_t n = numbers.shape[0], i, k = 0
        for i in range(n):
            k += sv[i] < 0
        if k:
            rows = np.empty(k, dtype=np.int64)
            rv = rows
            k = 0
            for i in range(n):
                if sv[i] < 0:
                    rv[k] = i
                    k += 1
            if not self.add_rows(numbers, flags, rv, head_indptr, head_ids, tail_indptr, tail_ids,
                                 allow_empty_coverage, min_support, max_ids):
                return None
            for i in range(n):
                if sv[i] < 0:
                    sv[i] = self._v_slot[numbers[i]] - 1
        if chosen_support_indptr is not None:
            self.catch_up(sv, chosen_support_indptr, chosen_support_ids, chosen_tail_indptr, chosen_tail_ids)
        return slots, self.gather(sv)

    cpdef gather(self, const int64_t[::1] slots):
        """The rows ``slots``, in that order: ``(support_indptr, support_ids, head_counts, tail_counts,
        precision, base_rate, accuracy, sums, eligible, q_bound, area_bound)``, new arrays."""
        self._check_slots(slots)
        cdef Py_ssize_t m = slots.shape[0], i, total = 0
        cdef int64_t s
        cdef const int64_t[::1] sp = self._v_sp
        for i in range(m):
            total += sp[slots[i] + 1] - sp[slots[i]]
        # The columns as rows of three blocks (one buffer to acquire per dtype, not one per column).
        out_indptr = np.zeros(m + 1, dtype=np.int64)
        out_ids = np.empty(total, dtype=np.int32)
        ints = np.empty((3, m), dtype=np.int64)
        floats = np.empty((5, m), dtype=np.float64)
        eligible = np.empty(m, dtype=np.uint8)
        cdef int64_t[::1] oi = out_indptr
        cdef index_t[::1] od = out_ids
        cdef const index_t[::1] si = self._v_si
        cdef int64_t[:, ::1] oint = ints
        cdef float64_t[:, ::1] oflt = floats
        cdef uint8_t[::1] oel = eligible
        cdef const int64_t[::1] hc = self._v_hc, tc = self._v_tc, ab = self._v_ab
        cdef const float64_t[::1] pr = self._v_pr, br = self._v_br, ac = self._v_ac
        cdef const float64_t[::1] su = self._v_su, qb = self._v_qb
        cdef const uint8_t[::1] el = self._v_el
        with nogil:
            if m:
                gather_rows_into(&sp[0], &si[0] if total else NULL, &slots[0], m, &oi[0], &od[0] if total else NULL)
            for i in range(m):
                s = slots[i]
                oint[0, i] = hc[s]
                oint[1, i] = tc[s]
                oint[2, i] = ab[s]
                oflt[0, i] = pr[s]
                oflt[1, i] = br[s]
                oflt[2, i] = ac[s]
                oflt[3, i] = su[s]
                oflt[4, i] = qb[s]
                oel[i] = el[s]
        return (out_indptr, out_ids, ints[0], ints[1], floats[0], floats[1], floats[2], floats[3], eligible,
                floats[4], ints[2])

    def set_bounds(self, const int64_t[::1] slots, const float64_t[::1] q_bound, const int64_t[::1] area_bound):
        """The gain bounds (quality term, area) of the rules ``slots`` are now these."""
        if q_bound.shape[0] != slots.shape[0] or area_bound.shape[0] != slots.shape[0]:
            raise ValueError("set_bounds: one bound of each kind per slot")
        self._check_slots(slots)
        cdef float64_t[::1] qb = self._v_qb
        cdef int64_t[::1] ab = self._v_ab
        cdef Py_ssize_t i
        with nogil:
            for i in range(slots.shape[0]):
                qb[slots[i]] = q_bound[i]
                ab[slots[i]] = area_bound[i]

    cpdef catch_up(self, const int64_t[::1] slots, const ptr_t[::1] chosen_support_indptr,
                 const index_t[::1] chosen_support_ids, const ptr_t[::1] chosen_tail_indptr,
                 const index_t[::1] chosen_tail_ids):
        """Bring the distance sums of the eligible rules ``slots`` up to the chosen rules given.

        ``chosen_*``: D[R_j] and T_j of every chosen rule so far, in order
        (CSR).  A stored rule's sum Σ_j d(R, R_j) receives the distances to
        the chosen rules it does not hold yet, in the order of j, so it is
        the same double as a sum grown after every selection; only the rules
        of a pool are read, so only they are brought up to date (most stored
        rules never come back), and each distance is computed once.  A
        chosen rule must not be removed from the list later.
        """
        self._check_slots(slots)
        cdef Py_ssize_t n_chosen = chosen_support_indptr.shape[0] - 1, m = slots.shape[0], i
        if chosen_tail_indptr.shape[0] != n_chosen + 1:
            raise ValueError("catch_up: the chosen supports and tails must hold the same number of rules")
        if n_chosen <= 0 or m == 0:
            return
        if chosen_support_indptr[0] != 0 or chosen_support_indptr[n_chosen] > chosen_support_ids.shape[0] \
                or chosen_tail_indptr[0] != 0 or chosen_tail_indptr[n_chosen] > chosen_tail_ids.shape[0]:
            raise ValueError("catch_up: the chosen rules' offsets point outside their ids")
        cdef int64_t[::1] sm = self._v_sm
        cdef const uint8_t[::1] el = self._v_el
        cdef const int64_t[::1] sp = self._v_sp, tp = self._v_tp
        cdef const index_t[::1] si = self._v_si, ti = self._v_ti
        cdef int64_t first = n_chosen, s
        cdef index_t top = 0
        cdef Py_ssize_t j, k = 0
        todo = np.empty(m, dtype=np.int64)
        cdef int64_t[::1] td = todo
        for i in range(m):
            s = slots[i]
            if sm[s] > n_chosen:
                raise ValueError(f"catch_up: slot {s} holds {sm[s]} chosen rules' distances, more than the "
                                 f"{n_chosen} given")
            if el[s] and sm[s] < n_chosen:
                td[k] = s
                k += 1
                first = min(first, sm[s])
                if sp[s + 1] > sp[s]:
                    top = max(top, si[sp[s + 1] - 1])
        if k == 0:
            return
        # The bitset covers every record id of the candidates and of the chosen rules (sorted rows).
        for j in range(first, n_chosen):
            if chosen_support_indptr[j + 1] > chosen_support_indptr[j]:
                top = max(top, chosen_support_ids[chosen_support_indptr[j + 1] - 1])
        cdef Py_ssize_t n_rw = top // 64 + 1
        if self._bits.shape[0] < n_rw:
            self._bits = np.zeros(n_rw, dtype=np.uint64)
        cdef uint64_t[::1] bits = self._bits
        cdef float64_t[::1] su = self._v_su
        # The dense path's rows (distance_sums_core): one per chosen rule caught up, and the candidate's.
        cdef Py_ssize_t n_dense = (n_chosen - first + 1) * n_rw
        cdef uint64_t* dense = NULL
        cdef uint64_t[::1] dense_v
        if 8 * n_dense <= CATCH_UP_DENSE_BYTES:
            if self._dense.shape[0] < n_dense:
                self._dense = np.zeros(min(max(n_dense, 2 * self._dense.shape[0]), CATCH_UP_DENSE_BYTES // 8),
                                       dtype=np.uint64)
            dense_v = self._dense
            dense = &dense_v[0]
        with nogil:
            distance_sums_core(&sp[0], &si[0] if si.shape[0] else NULL, &tp[0], &ti[0] if ti.shape[0] else NULL,
                               &el[0], k, &td[0], &sm[0], &chosen_support_indptr[0],
                               &chosen_support_ids[0] if chosen_support_ids.shape[0] else NULL,
                               &chosen_tail_indptr[0], &chosen_tail_ids[0] if chosen_tail_ids.shape[0] else NULL,
                               first, n_chosen, &su[0], &bits[0], dense, n_rw)
            for i in range(k):
                sm[td[i]] = n_chosen

    def eligible_at(self, const int64_t[::1] slots):
        """The eligibility of the rules ``slots`` (a copy, uint8)."""
        self._check_slots(slots)
        return np.asarray(self._eligible)[np.asarray(slots)]

    def clear_eligible(self, int64_t number):
        """Rule ``number`` (stored) was chosen: it is no longer eligible."""
        if number < 0 or number >= self._v_slot.shape[0] or self._v_slot[number] == 0:
            raise KeyError(f"rule {number} is not stored")
        self._v_el[self._v_slot[number] - 1] = 0

    def arrays(self):
        """``(support_indptr, support_ids, tail_indptr, tail_ids, eligible, sums)`` of every stored rule:
        views (the sums writable), valid until the next :meth:`append` or :meth:`keep`."""
        n = self._size
        return (self._support_indptr[:n + 1], self._support_ids[:self._support_indptr[n]],
                self._tail_indptr[:n + 1], self._tail_ids[:self._tail_indptr[n]], self._eligible[:n],
                self._sums[:n])

    def keep(self, const int64_t[::1] numbers):
        """Evict every stored rule but those of ``numbers`` (others ignored); the kept ones keep their
        order of storing and are renumbered from slot 0."""
        slots = self.slots(numbers)
        slots = np.unique(slots[slots >= 0])   # sorted: the order of storing
        if slots.size == self._size:
            return
        n = self._size
        numbers_kept = self._numbers[slots]
        (sup_indptr, sup_ids, head_counts, tail_counts, precision, base_rate, accuracy, sums, eligible, q_bound,
         area_bound) = self.gather(slots)
        tail_indptr, tail_ids = gather_rows(self._tail_indptr[:n + 1], self._tail_ids, slots)
        summed = self._summed[slots]
        self._slot[self._numbers[:n]] = 0
        self._empty()
        self.append(numbers_kept, sup_indptr, sup_ids, tail_indptr, tail_ids, head_counts, tail_counts, precision,
                    base_rate, accuracy, eligible, sums)
        self.set_bounds(np.arange(slots.size, dtype=np.int64), q_bound, area_bound)
        self._summed[:slots.size] = summed
