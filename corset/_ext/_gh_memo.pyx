"""CORSET-GH's greedy head searches, memoised per tail (exact; compiled as C++).

Algorithm 5 adds, at each step, the candidate feature h maximising the gain
phi(H ∪ {h}) - phi(H), with phi(H) = |D[H] ∩ D_T^+| - gamma·|D[H] ∩ D_T^-|.
For a fixed tail T the gain of h depends only on the head H built so far,
not on the seed pair: the seed pair only decides which features are
candidates (F_{D+} \\ F_{D-}).  So every search of a tail walks the same tree
of heads.  :class:`GreedyHeadMemo` keeps that tree across searches and
across the greedy steps of Algorithm 1: a node is a head H (a path of
chosen features), and holds every feature h of the records of D[H] (h ∉ H)
with its gain, sorted by decreasing gain and then increasing feature id.  A
search then only scans a node's list for the first feature that is a
candidate: the first candidate in that order is exactly the candidate the
plain search (:mod:`corset._ext._gh`) picks, ties included.  A node sorts
only its best entries; when none of them is a candidate, the search takes
the best candidate among the others, and where those are many (a root on
wide data holds every feature of its tail's positive records), they are
stored by feature id and the search looks its few candidates up among them
instead of reading them all.  Features absent
from every record of D[H] have phi(H ∪ {h}) = 0; they are handled apart.

Nodes are built on first use, by one scan of the features of the records of
D[H] (role 1 counted as positives, role 0 apart, every record in the
support size; the negatives, role 2, are the rest); when D[H] holds at least as many feature occurrences as there
are features, the scan counts without tests (one loop per role) and the
touched features are collected in one pass over F.  When D[H] holds many
times more feature occurrences than there are (feature, word of D[H]'s
record bitset) pairs — dense data, such as features with their negated
literals — the counts are popcounts of each feature's record bitset ANDed
with D[H]'s (and with its positives', and its role-0 records'), the same
numbers for less work; D[H] is then itself the AND of its features'
bitsets.  Between the two, when D[H]'s negatives alone hold more feature
occurrences than there are such pairs, |D[H ∪ {h}]| is one popcount per
pair and only D[H]'s records of role 1 or 0 are scanned (``_count_split``).
A node {h} of a dense plain feature h reads |D[h] ∩ D[g]| from
h's co-occurrence row (computed once per data set, kept across tails and
calls) and scans only the records of D[h] of role 1 or 0 (the negatives,
most of D[h], are the rest).  Entries are stored in
blocks that never move.  A root keeps every feature of the tail's positive records (the
only features its searches can choose); a deeper node first keeps only
its ``top_k`` best entries (memory): when none of them decides a search's
step, the node is rebuilt with its ``upgrade_top_k`` best before that
search goes on, and complete when those do not decide either, so the
result is the same.  On dense records (features with their negated literals),
a search's last step with few candidates is made without its node: the node
would serve few last steps, and counting the search's own candidates on the
records' bitsets gives the same choice for less work.  So is a step whose
truncated node holds none of the search's candidates: the node is not
completed (with every literal of D[H], which would fill the memo).
:func:`greedy_heads_memo` runs a batch of searches in rounds:
each round advances every search as far as the tree allows, then builds the
missing nodes (in parallel threads), until every search is done.  Results do
not depend on the number of threads.  Only the unnormalised gain is memoised
(the normalised variant divides by |D[{h}]|, so absent features would no
longer tie).
"""
import numpy as np

from cython.parallel cimport prange, threadid
from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc
from libc.string cimport memcpy
from libcpp.vector cimport vector

from corset._ext._typedefs cimport index_t, ptr_t, uint8_t
from corset._ext._intersect cimport support_into_ptr
from corset._ext._gh cimport check_negations, copy_sorted, job_candidate_offsets

cdef extern from "corset_gh_memo.h":
    ctypedef struct Entry "corset_gh_entry":
        double gain
        int32_t feature
        int32_t n_pos
        int32_t n_support
        int32_t n_neg
    bint entry_before "corset_gh_before"(const Entry& a, const Entry& b) noexcept nogil
    void top_entries "corset_gh_top"(Entry* first, Py_ssize_t k, Py_ssize_t n) noexcept nogil
    void partition_entries "corset_gh_partition"(Entry* first, Py_ssize_t k, Py_ssize_t n) noexcept nogil
    void offer_entry "corset_gh_offer"(Entry* heap, Py_ssize_t* n, Py_ssize_t k, const Entry& e) noexcept nogil
    void sort_entries "corset_gh_sort"(Entry* first, Py_ssize_t n) noexcept nogil
    void sort_by_feature "corset_gh_sort_by_feature"(Entry* first, Py_ssize_t n) noexcept nogil
    Py_ssize_t find_entry "corset_gh_find"(const Entry* first, Py_ssize_t n, int32_t f, Py_ssize_t* start) noexcept nogil
    int ctz64 "corset_ctz64"(uint64_t x) noexcept nogil
    void prefetch "corset_prefetch"(const void* p) noexcept nogil
    Py_ssize_t and_columns "corset_gh_and_columns"(const uint64_t* feature_bits, Py_ssize_t n_rw, const index_t* path,
                                                   Py_ssize_t n_path, uint64_t* dh, Py_ssize_t* lo,
                                                   Py_ssize_t* hi) noexcept nogil
    int64_t common_bits "corset_common_bits"(const uint64_t* x, const uint64_t* y, int64_t first,
                                             int64_t last) noexcept nogil
    Py_ssize_t popcount_words "corset_gh_popcount"(const uint64_t* x, Py_ssize_t n) noexcept nogil
    int64_t rule_counts "corset_gh_counts"(const uint64_t* col, const uint64_t* dh, const uint64_t* dpos,
                                           const uint64_t* doth, Py_ssize_t lo, Py_ssize_t hi, int64_t* pos,
                                           int64_t* other) noexcept nogil
    Py_ssize_t count_features "corset_gh_count_features"(
        const uint64_t* feature_bits, Py_ssize_t n_features, Py_ssize_t n_rw, const uint64_t* dh,
        const uint64_t* dpos, const uint64_t* doth, int any_other, Py_ssize_t lo, Py_ssize_t hi,
        const index_t* path, Py_ssize_t n_path, index_t* n_all, index_t* n_pos, index_t* n_other,
        index_t* touched) noexcept nogil
    int wide_popcount "corset_wide_popcount"(int64_t n_words) noexcept nogil
    cppclass KeyMap "corset_gh_keymap":
        int64_t find(uint64_t key) noexcept nogil
        void set(uint64_t key, int64_t value) except + nogil
        void reset() noexcept nogil
        void release() noexcept nogil


# Entries per block of the memo (1.5 MB).
cdef Py_ssize_t BLOCK_ENTRIES = 65536

# A node whose entries past its sorted prefix number at least FEATURE_ORDER_MIN, and would
# cost more to scan than a search's candidates (a record's features, ``mean_length`` on
# average) to look up among them, stores them in increasing feature id (still all worse than
# the prefix): a search finding no candidate in the prefix then looks its own candidates up
# among them (``_choose_from_node``) instead of reading them all.  On wide data a root holds
# every feature of its tail's positive records (tens of thousands) and a search a few dozen
# candidates; with negated literals a record holds about half the literals, and the sort
# would not pay.
cdef Py_ssize_t FEATURE_ORDER_MIN = 64
# A look-up (a galloping search: dependent reads) is taken to cost LOOKUP_COST entries of a
# scan per halving of the entries; the look-ups are made when they cost less than the scan.
# Both choices change only the cost, never the entry chosen.
cdef Py_ssize_t LOOKUP_COST = 2


cdef inline Py_ssize_t _halvings(Py_ssize_t n) noexcept nogil:
    # ceil(log2(n)), at least 1: the steps of a binary search among n entries.
    cdef Py_ssize_t k = 1
    while (<Py_ssize_t> 1 << k) < n:
        k += 1
    return k


cdef inline bint _lookups_pay(Py_ssize_t n_rest, double n_candidates) noexcept nogil:
    # Looking n_candidates up among n_rest entries sorted by feature costs less than scanning them.
    return n_rest >= FEATURE_ORDER_MIN and n_candidates * _halvings(n_rest) * LOOKUP_COST < n_rest


cdef inline bint _order_rest(Entry* entries, Py_ssize_t n, Py_ssize_t n_sorted,
                             double mean_length) noexcept nogil:
    # A node's entries past its sorted prefix in increasing feature id when look-ups among them
    # would pay (the prefix's order is untouched; see FEATURE_ORDER_MIN); whether they are.
    if not _lookups_pay(n - n_sorted, mean_length):
        return False
    sort_by_feature(entries + n_sorted, n - n_sorted)
    return True


cdef inline uint64_t _child_key(index_t node, index_t feature) noexcept nogil:
    return ((<uint64_t> <uint32_t> node) << 32) | <uint64_t> <uint32_t> feature


cdef class GreedyHeadMemo:
    """The search trees of CORSET-GH for one data set and one gamma (one root per tail).

    Parameters
    ----------
    n_features, n_records : int
        Sizes of the data set the searches run on.
    gamma : float
        The weight of negative support (every node's gains use it).
    top_k : int, default=32
        Entries kept per non-root node.
    child_sorted : int, default=32
        Of a non-root node's kept entries, the best ``child_sorted`` are
        sorted; the others follow, all worse, in no order (clamped to
        ``top_k``: a sort of every entry when top_k is 32).
    sorted_prefix : int, default=256
        A complete node (a root, or a node rebuilt complete) sorts only its
        best ``sorted_prefix`` entries; the others follow, all worse, and a
        search that finds no candidate among the sorted ones takes the best
        candidate among the others (the same choice).  The others are in
        increasing feature id when looking a record's features up among
        them costs less than reading them all (``n_lookup_steps`` counts
        the steps that did), else in no order.
    upgrade_top_k : int, default=-1
        Entries a truncated node keeps when it is first rebuilt (its
        ``top_k`` best did not decide a search's step): its best
        ``upgrade_top_k`` (negative: half of ``n_features``); a node they do not
        decide either is rebuilt complete.  A value of at most ``top_k``
        rebuilds every such node complete at once.  With negated literals, a
        node of sparse data holds nearly every negated literal, and
        rebuilding each such node complete filled the memo, which was then
        dropped and built again (the selection on two thirds of enron's
        training records with negated literals: 2,830 rebuilds, of which 8
        went on to complete nodes).

    Notes
    -----
    Python code maps each tail to its root node (:func:`greedy_heads_memo`
    builds roots on demand and returns their ids); whoever changes the roles
    of a tail's records must drop its root (or :meth:`clear` the memo).  After
    a MemoryError the memo may be inconsistent: clear it.  A pickled or copied
    memo is empty.

    The memo pays off when heads are short: a node's support is recomputed
    from its whole path, so searches thousands of features deep (no maximum
    head length, wide records) are much slower than the plain kernel;
    :class:`corset.sampling.GreedyHeadSearch` uses it only for bounded
    heads.
    """
    # Entries live in blocks that never move (a growing vector copied all of
    # them, on fresh pages, at every doubling); a node's entries are contiguous.
    cdef vector[Entry*] blocks
    cdef Entry* block_free      # next free entry of the last block
    cdef Py_ssize_t block_left  # free entries left in it
    cdef Py_ssize_t stored      # entries stored so far (n_entries)
    cdef vector[Entry*] node_start
    cdef vector[index_t] node_length
    cdef vector[index_t] node_sorted
    cdef vector[uint8_t] node_complete
    cdef vector[uint8_t] node_by_feature   # its entries past node_sorted are in increasing feature id
    cdef vector[index_t] node_count    # its head's entries when last built (kept or not): for inspection
    cdef vector[double] node_phi
    cdef vector[index_t] node_parent
    cdef vector[index_t] node_feature
    cdef vector[index_t] node_depth
    cdef KeyMap children          # child key (node, feature) -> child node
    cdef readonly Py_ssize_t n_features
    cdef readonly Py_ssize_t n_records
    cdef readonly double gamma
    cdef readonly Py_ssize_t top_k
    cdef readonly Py_ssize_t child_sorted
    cdef readonly Py_ssize_t sorted_prefix
    cdef readonly Py_ssize_t upgrade_top_k
    cdef readonly Py_ssize_t n_upgrades
    """Node rebuilds: a truncated node whose entries did not decide a step, rebuilt with its best
    ``upgrade_top_k`` entries or complete."""
    cdef readonly Py_ssize_t n_complete_upgrades
    """Of ``n_upgrades``, the rebuilds that kept every entry of the node."""
    cdef readonly Py_ssize_t n_dense_counts
    """Node builds that counted densely (at least as many occurrences as features)."""
    cdef readonly Py_ssize_t n_bitset_counts
    """Node builds that counted by popcounts of feature bitsets (``feature_bits``)."""
    cdef readonly Py_ssize_t n_split_counts
    """Node builds that took |D[H+h]| by popcounts and scanned only D[H]'s records of role 1 or 0."""
    cdef readonly Py_ssize_t n_direct_steps
    """Last steps of searches made without their node (dense records, few candidates)."""
    cdef readonly Py_ssize_t n_cooccurrence_counts
    """Node builds of heads {h} that took |D[h] ∩ D[g]| from h's co-occurrence row."""
    cdef readonly Py_ssize_t n_lookup_steps
    """Steps that looked their candidates up among a node's entries past its sorted prefix
    (stored by feature id) instead of scanning those entries."""
    # Per plain feature h, |D[h] ∩ D[g]| for every plain feature g (NULL: not computed).  They
    # depend on the data only, not on a tail: computed once, read by every tail's node {h}.
    cdef vector[index_t*] cooc_rows
    cdef Py_ssize_t cooc_plain      # their length (the plain features), 0 before the first
    cdef Py_ssize_t cooc_bytes

    def __cinit__(self, Py_ssize_t n_features, Py_ssize_t n_records, double gamma, Py_ssize_t top_k=32,
                  Py_ssize_t sorted_prefix=256, Py_ssize_t child_sorted=32, Py_ssize_t upgrade_top_k=-1):
        self.n_features = n_features
        self.n_records = n_records
        self.gamma = gamma
        # A node has at most n_features entries: a larger top_k keeps them all alike
        # (clamped, so that no size computed from it can overflow).
        self.top_k = min(max(top_k, 1), max(n_features, 1))
        self.sorted_prefix = min(max(sorted_prefix, 1), max(n_features, 1))
        self.child_sorted = min(max(child_sorted, 1), self.top_k)
        if upgrade_top_k < 0:
            upgrade_top_k = n_features // 2
        self.upgrade_top_k = min(max(upgrade_top_k, self.top_k), max(n_features, 1))
        self.n_upgrades = 0
        self.n_complete_upgrades = 0
        self.n_dense_counts = 0
        self.n_bitset_counts = 0
        self.n_split_counts = 0
        self.n_direct_steps = 0
        self.n_cooccurrence_counts = 0
        self.n_lookup_steps = 0
        self.block_free = NULL
        self.block_left = 0
        self.stored = 0
        self.cooc_plain = 0
        self.cooc_bytes = 0

    def __dealloc__(self):
        self._free_blocks()
        self._free_cooccurrences()

    cdef void _free_cooccurrences(self) noexcept:
        cdef Py_ssize_t i
        for i in range(<Py_ssize_t> self.cooc_rows.size()):
            free(self.cooc_rows[i])
        self.cooc_rows.clear()
        self.cooc_plain = 0
        self.cooc_bytes = 0

    cdef void _free_blocks(self) noexcept:
        cdef Py_ssize_t i
        for i in range(<Py_ssize_t> self.blocks.size()):
            free(self.blocks[i])
        self.blocks.clear()
        self.block_free = NULL
        self.block_left = 0
        self.stored = 0

    def __reduce__(self):
        # Pickles and copies are empty (a cache): whoever holds root ids must drop them too.
        return (GreedyHeadMemo, (self.n_features, self.n_records, self.gamma, self.top_k, self.sorted_prefix,
                                 self.child_sorted, self.upgrade_top_k))

    def clear(self):
        """Forget every node (the caller must forget its root ids too)."""
        self._free_blocks()
        self.node_start.clear()
        self.node_length.clear()
        self.node_sorted.clear()
        self.node_complete.clear()
        self.node_by_feature.clear()
        self.node_count.clear()
        self.node_phi.clear()
        self.node_parent.clear()
        self.node_feature.clear()
        self.node_depth.clear()
        self.children.release()

    @property
    def n_nodes(self):
        return self.node_start.size()

    def path(self, Py_ssize_t node):
        """``(root, head)``: the root node of ``node``'s tree and its head H, in the order added."""
        if not 0 <= node < <Py_ssize_t> self.node_start.size():
            raise IndexError(f"node {node} out of range (the memo has {self.node_start.size()} nodes)")
        head = []
        while self.node_parent[node] >= 0:
            head.append(int(self.node_feature[node]))
            node = self.node_parent[node]
        return int(node), tuple(reversed(head))

    def entries(self, Py_ssize_t node):
        """Node ``node``'s stored entries, in stored order: ``(features, gains, n_pos, n_support)``.

        For inspection and tests; the first ``node_sorted`` are in order.
        """
        if not 0 <= node < <Py_ssize_t> self.node_start.size():
            raise IndexError(f"node {node} out of range (the memo has {self.node_start.size()} nodes)")
        cdef Py_ssize_t i, n = self.node_length[node]
        cdef const Entry* e = self.node_start[node]
        features = np.empty(n, dtype=np.int32)
        gains = np.empty(n, dtype=np.float64)
        n_pos = np.empty(n, dtype=np.int64)
        n_support = np.empty(n, dtype=np.int64)
        for i in range(n):
            features[i] = e[i].feature
            gains[i] = e[i].gain
            n_pos[i] = e[i].n_pos
            n_support[i] = e[i].n_support
        return features, gains, n_pos, n_support

    def counted(self, Py_ssize_t node):
        """``(n_entries, complete)``: how many entries node ``node``'s head has (counted when it
        was last built, whether kept or not), and whether the node stores every one (else its
        best only, and a search that finds no candidate among them has it completed first)."""
        if not 0 <= node < <Py_ssize_t> self.node_start.size():
            raise IndexError(f"node {node} out of range (the memo has {self.node_start.size()} nodes)")
        return int(self.node_count[node]), bool(self.node_complete[node])

    @property
    def n_cooccurrence_rows(self):
        """Co-occurrence rows computed and kept (``n_cooccurrence_counts`` builds read them); a row
        depends on the data only, so :meth:`clear` keeps them."""
        cdef Py_ssize_t i, n = 0
        for i in range(<Py_ssize_t> self.cooc_rows.size()):
            n += self.cooc_rows[i] != NULL
        return n

    @property
    def n_entries(self):
        """Stored (node, feature) entries; 24 bytes each."""
        return self.stored

    cdef Entry* _store(self, const Entry* items, Py_ssize_t n) except NULL:
        # Room for n entries in the open block, or in a new one (at least BLOCK_ENTRIES).
        # A large node that does not fit gets a block of its own and the open block
        # stays open, so that at most a quarter of a block is ever left unused.
        cdef Entry* out
        cdef Py_ssize_t size
        cdef bint own = False
        if n > self.block_left or self.block_free == NULL:
            own = self.block_free != NULL and 4 * n >= BLOCK_ENTRIES
            size = n if own else max(n, BLOCK_ENTRIES)
            out = <Entry*> malloc(max(size, 1) * sizeof(Entry))
            if out == NULL:
                raise MemoryError("GreedyHeadMemo: could not allocate a block of entries")
            self.blocks.push_back(out)
            if own:
                if n > 0:
                    memcpy(out, items, n * sizeof(Entry))
                self.stored += n
                return out
            self.block_free = out
            self.block_left = size
        out = self.block_free
        if n > 0:
            memcpy(out, items, n * sizeof(Entry))
        self.block_free += n
        self.block_left -= n
        self.stored += n
        return out

    cdef index_t _add_node(self, index_t parent, index_t feature, index_t depth, double phi,
                           const Entry* items, Py_ssize_t n_items, Py_ssize_t n_keep,
                           Py_ssize_t n_sorted, double mean_length) except -1:
        # The first n_sorted of the n_keep entries are the best, in order (a root: its best
        # sorted_prefix; a child: its best child_sorted); the others are all worse, by feature
        # id when look-ups of records of mean_length features among them pay (_order_rest).
        cdef index_t node = <index_t> self.node_start.size()
        n_sorted = min(n_sorted, n_keep)
        self.node_start.push_back(self._store(items, n_keep))
        self.node_length.push_back(<index_t> n_keep)
        self.node_sorted.push_back(<index_t> n_sorted)
        self.node_by_feature.push_back(_order_rest(self.node_start[node], n_keep, n_sorted, mean_length))
        self.node_complete.push_back(n_keep == n_items)
        self.node_count.push_back(<index_t> n_items)
        self.node_phi.push_back(phi)
        self.node_parent.push_back(parent)
        self.node_feature.push_back(feature)
        self.node_depth.push_back(depth)
        if parent >= 0:
            self.children.set(_child_key(parent, feature), node)
        return node

    cdef int _upgrade_node(self, index_t node, const Entry* items, Py_ssize_t n_items, Py_ssize_t n_keep,
                           Py_ssize_t n_sorted, double mean_length) except -1:
        # The node rebuilt with its best n_keep of n_items entries (every one: complete), the
        # first n_sorted in order.  The old, truncated entries stay behind in their block (at
        # most upgrade_top_k).
        n_sorted = min(n_sorted, n_keep)
        self.node_start[node] = self._store(items, n_keep)
        self.node_length[node] = <index_t> n_keep
        self.node_sorted[node] = <index_t> n_sorted
        self.node_by_feature[node] = _order_rest(self.node_start[node], n_keep, n_sorted, mean_length)
        self.node_complete[node] = n_keep == n_items
        self.node_count[node] = <index_t> n_items
        self.n_upgrades += 1
        self.n_complete_upgrades += n_keep == n_items
        return 0


cdef struct Workspace:
    # Per thread.  Counters are zero on entry and on exit of every function.
    index_t* support     # n_records
    index_t* order       # longest path
    index_t* n_pos       # n_features counters
    index_t* n_other     # records of role 0 (neither positive nor negative)
    index_t* n_all
    index_t* touched     # n_features ids
    int64_t* pos_stamp   # n_features: == key + 1 on the features of the candidate source ``pos_key``
    int64_t* neg_stamp   # n_features: == key + 1 on the features of the negative record ``neg_key``
    int64_t pos_key      # what pos_stamp holds now (-1: nothing)
    int64_t neg_key
    int64_t* present_stamp
    int64_t present_token
    Py_ssize_t n_dense   # node builds that counted densely
    Py_ssize_t n_bitset  # node builds that counted by popcounts
    Py_ssize_t n_split   # node builds that took |D[H+h]| by popcounts and scanned D[H]'s positives
    Py_ssize_t n_direct  # last steps made without their node
    Py_ssize_t n_cooc    # node builds {h} counted from h's co-occurrence row
    Py_ssize_t n_lookup  # steps that looked their candidates up past a node's sorted prefix
    uint64_t* node_bits  # 3 x n_record_words: D[H], its positives, its role-0 records
    # Set by _count when it scanned plain features only: the negated literals' entries are
    # made by the caller from D[H]'s counts (n_support records, n_role1 of role 1, n_role0
    # of role 0) and their features' counts.
    bint negated_left
    Py_ssize_t n_support
    Py_ssize_t n_role1
    Py_ssize_t n_role0


cdef struct Negations:
    # Features p + i (i < n_negated) are the literals "NOT negated[i]" (BinaryData.with_negations):
    # node builds scan only the plain features of a record (ids < n_plain, its row up to
    # r_plain_end[r]) and count each negated literal as its feature's complement in D[H].
    Py_ssize_t n_negated
    Py_ssize_t n_plain
    const index_t* negated
    # Per plain feature f, the i with negated[i] == f, or -1; NULL when a feature is negated twice.
    const index_t* literal_of
    const ptr_t* r_plain_end
    ptr_t n_plain_occurrences


# Counting a node by popcounts costs, per (feature, word of D[H]), two or
# three AND-and-popcounts (a few operations each with the POPCNT instruction,
# about 15 without); the scan costs about three operations per feature
# occurrence of D[H].  The bitsets are used when the occurrences outnumber the
# (feature, word) pairs by this factor or more (replayed emotions calls, with
# negated literals and POPCNT: 1 and 2 fastest, 3 and 5 slower by 8%).
cdef Py_ssize_t BITSET_FACTOR = 2
# A node whose negatives hold more feature occurrences than SPLIT_FACTOR times the (feature,
# word) pairs takes |D[H+h]| by one popcount per pair and scans only its positives and
# records of role 0 (_count_split).
cdef double SPLIT_FACTOR = 1.0


# A search's last step is made without its node (``_choose_last``: each of its
# candidates counted, about the cost of one feature of a node build) on dense
# records only — records holding at least LAST_STEP_DENSITY of the features on
# average, such as features with their negated literals — and when its
# candidates times LAST_STEP_READS are at most the number of features.  On such
# data the trees are bushy: a node at depth max_length - 1 serves only last
# steps, and few of them (the seed-1 emotions fit, with negated literals, before
# this: 30,000 searches, 3,548 such nodes of 4,033, a node build costing as much
# as 143 candidates); direct choices halved the replayed GH calls of that fit.  On sparse data (enron: a
# node serves about 27 searches with about a hundred candidates each) building
# the node is cheaper, and direct choices cost 2.5% more.
cdef Py_ssize_t LAST_STEP_READS = 4

# How many records ahead the scan of a node's records asks for their data (corset_prefetch).
cdef Py_ssize_t PREFETCH_AHEAD = 16
# The same for the scans of listed records (_count_rows: a bitset's records, D[h] for a
# co-occurrence row), whose records hold few features each: farther ahead, so that more reads
# are under way at once.
cdef Py_ssize_t SCAN_AHEAD = 32
cdef double LAST_STEP_DENSITY = 0.25


cdef bint _LITTLE_ENDIAN = np.little_endian


cdef inline uint64_t _zero_bytes(uint64_t y) noexcept nogil:
    """0x80 in each byte of ``y`` that is zero, 0 in the others (exact: no carry between bytes)."""
    cdef uint64_t lo7 = 0x7F7F7F7F7F7F7F7FULL
    return ~(((y & lo7) + lo7) | y | lo7)


cdef inline uint64_t _pack_bytes(uint64_t m) noexcept nogil:
    """The high bits of the 8 bytes of ``m`` as 8 bits, byte i -> bit i (the products do not overlap)."""
    return (((m >> 7) & 0x0101010101010101ULL) * 0x0102040810204080ULL) >> 56


cdef void _role_bits(const uint8_t* role, Py_ssize_t n_records, uint64_t* positives,
                     uint64_t* others) noexcept nogil:
    """A tail slot's positives (role 1) and records of role 0 as bitsets (zeroed on entry).

    Eight roles at a time (a byte each, read as one little-endian word):
    the bytes equal to 1 and those equal to 0, packed into 8 bits each.
    """
    cdef Py_ssize_t k = 0, n8 = 0
    cdef uint64_t x
    if _LITTLE_ENDIAN:
        n8 = n_records - n_records % 8
    while k < n8:
        memcpy(&x, role + k, 8)
        if x != 0x0202020202020202ULL:     # eight negatives (most words): nothing to set
            positives[k >> 6] |= _pack_bytes(_zero_bytes(x ^ 0x0101010101010101ULL)) << (k & 63)
            others[k >> 6] |= _pack_bytes(_zero_bytes(x)) << (k & 63)
        k += 8
    for k in range(n8, n_records):
        if role[k] == 1:
            positives[k >> 6] |= (<uint64_t> 1) << (k & 63)
        elif role[k] == 0:
            others[k >> 6] |= (<uint64_t> 1) << (k & 63)


def role_bitsets(const uint8_t[::1] role):
    """``(positives, others)``: the records of role 1 and of role 0 as bitsets (uint64 words), for tests."""
    cdef Py_ssize_t n = role.shape[0]
    out = np.zeros((2, max(1, (n + 63) // 64)), dtype=np.uint64)
    cdef uint64_t[:, ::1] v = out
    if n:
        _role_bits(&role[0], n, &v[0, 0], &v[1, 0])
    return out[0], out[1]


cdef inline bint _split_roles(const uint64_t* dh, const uint64_t* slot_bits, Py_ssize_t n_rw, Py_ssize_t lo,
                              Py_ssize_t hi, uint64_t* dpos, uint64_t* doth) noexcept nogil:
    """D[H]'s positives and role-0 records (words lo..hi) from the slot's role bitsets; whether any has role 0."""
    cdef Py_ssize_t k
    cdef bint any_other = False
    for k in range(lo, hi + 1):
        dpos[k] = dh[k] & slot_bits[k]
        doth[k] = dh[k] & slot_bits[n_rw + k]
        any_other = any_other or doth[k] != 0
    return any_other


cdef inline bint _in_path(index_t f, const index_t* path, Py_ssize_t n_path) noexcept nogil:
    cdef Py_ssize_t k
    for k in range(n_path):
        if path[k] == f:
            return True
    return False


cdef Py_ssize_t _count_bits(const index_t* path, Py_ssize_t n_path, Py_ssize_t n_counted,
                            const uint64_t* feature_bits, const uint64_t* slot_bits,
                            Py_ssize_t n_rw, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t n_support,
                            const Negations* neg, Workspace* w) noexcept nogil:
    """``_count`` by popcounts: D[H], a bitset in ``w.node_bits`` (its records in words lo..hi,
    ``n_support`` of them), ANDed with the record bitset of every counted feature (the first
    ``n_counted``); the same counts, features touched in increasing id order.

    With negated literals only the plain features are counted, as a scan counts them:
    "NOT f" holds on D[H]'s records without f, so its counts are D[H]'s minus f's
    (``_negated_left``).  A negated literal's bitset is nearly full on sparse data, where
    its three popcounts per word would be most of the count."""
    cdef Py_ssize_t n_touched, n_role1, n_role0
    cdef uint64_t* dh = w.node_bits
    cdef uint64_t* dpos = w.node_bits + n_rw
    cdef uint64_t* doth = w.node_bits + 2 * n_rw
    cdef bint any_other = _split_roles(dh, slot_bits, n_rw, lo, hi, dpos, doth)
    n_touched = count_features(feature_bits, n_counted, n_rw, dh, dpos, doth, any_other, lo, hi, path, n_path,
                               w.n_all, w.n_pos, w.n_other, w.touched)
    w.n_bitset += 1
    if neg.n_negated > 0:
        n_role1 = popcount_words(dpos + lo, hi - lo + 1)
        n_role0 = popcount_words(doth + lo, hi - lo + 1) if any_other else 0
        _negated_left(neg, n_support, n_role1, n_role0, w)
    return n_touched


cdef inline void _count_rows(const index_t* rows, Py_ssize_t n, const ptr_t* r_indptr, const ptr_t* r_end,
                             const index_t* r_ids, index_t* counter) noexcept nogil:
    """Count into ``counter`` the features of the ``n`` records ``rows`` (a record's features from
    r_indptr to r_end), their rows asked for ahead: on a large data set the records lie
    scattered, and the reads then overlap instead of waiting one after another."""
    cdef Py_ssize_t i
    cdef index_t r
    cdef ptr_t p
    for i in range(n):
        if i + SCAN_AHEAD < n:
            prefetch(&r_indptr[rows[i + SCAN_AHEAD]])
            prefetch(&r_end[rows[i + SCAN_AHEAD]])
        if i + SCAN_AHEAD // 2 < n:
            prefetch(&r_ids[r_indptr[rows[i + SCAN_AHEAD // 2]]])
        r = rows[i]
        for p in range(r_indptr[r], r_end[r]):
            counter[r_ids[p]] += 1


cdef inline Py_ssize_t _scan_records(const uint64_t* a, const uint64_t* b, Py_ssize_t lo, Py_ssize_t hi,
                                     const ptr_t* r_indptr, const ptr_t* r_end, const index_t* r_ids,
                                     index_t* counter, index_t* rows) noexcept nogil:
    """Count into ``counter`` the features of the records in both bitsets ``a`` and ``b`` (words
    lo..hi); returns how many records there are.  The records are listed first (into ``rows``,
    room for every record), then counted by :func:`_count_rows`."""
    cdef Py_ssize_t k, n = 0
    cdef uint64_t x
    for k in range(lo, hi + 1):
        x = a[k] & b[k]
        while x:
            rows[n] = <index_t> ((k << 6) + ctz64(x))
            x &= x - 1
            n += 1
    _count_rows(rows, n, r_indptr, r_end, r_ids, counter)
    return n


cdef Py_ssize_t _count_from_row(const index_t* cooc, index_t h, const ptr_t* f_indptr, const index_t* f_ids,
                                const ptr_t* r_indptr, const index_t* r_ids, const uint64_t* feature_bits,
                                const uint64_t* slot_bits, Py_ssize_t n_rw, const Negations* neg,
                                Workspace* w) noexcept nogil:
    """``_count`` for the head {h}, h a plain feature, from h's co-occurrence row ``cooc``.

    |D[h] ∩ D[g]| is the row's entry g, whatever the tail; only the records
    of D[h] of role 1 or 0 are scanned, found by ANDing h's record bitset
    with the slot's (``slot_bits``: its positives, then its role-0 records),
    for the positives and role-0 counts.  The negatives, most of D[h], are
    never read.  The same counts as a scan of D[h].
    """
    cdef Py_ssize_t lo, hi, n_touched = 0, n_role1, n_role0, n_support
    cdef const uint64_t* col = feature_bits + h * n_rw
    cdef const uint64_t* others = slot_bits + n_rw
    cdef const ptr_t* r_end = neg.r_plain_end if neg.n_negated > 0 else r_indptr + 1
    cdef index_t g
    w.negated_left = False
    n_support = f_indptr[h + 1] - f_indptr[h]
    if n_support == 0:
        return 0
    lo = f_ids[f_indptr[h]] >> 6
    hi = f_ids[f_indptr[h + 1] - 1] >> 6
    n_role1 = _scan_records(col, slot_bits, lo, hi, r_indptr, r_end, r_ids, w.n_pos, w.support)
    n_role0 = _scan_records(col, others, lo, hi, r_indptr, r_end, r_ids, w.n_other, w.support)
    w.n_pos[h] = 0      # h is on every record of D[h]: it is the path, not an entry
    w.n_other[h] = 0
    for g in range(neg.n_plain):
        if cooc[g] != 0 and g != h:
            w.n_all[g] = cooc[g]
            w.touched[n_touched] = g
            n_touched += 1
    w.n_cooc += 1
    _negated_left(neg, n_support, n_role1, n_role0, w)
    return n_touched


cdef Py_ssize_t _count_split(const index_t* path, Py_ssize_t n_path, Py_ssize_t n_counted,
                             const uint64_t* feature_bits, const uint64_t* slot_bits, Py_ssize_t n_rw,
                             Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t n_support, double mean_length,
                             const ptr_t* r_indptr, const ptr_t* r_end, const index_t* r_ids,
                             const Negations* neg, Workspace* w) noexcept nogil:
    """``_count`` of D[H] (a bitset in ``w.node_bits``, words lo..hi) without reading its negatives,
    or -1 when that would not be cheaper than a scan of D[H].

    |D[H+h]| of every counted feature h is a popcount of h's record bitset ANDed with D[H]'s
    (``corset_gh_count_features`` without D[H]'s role bitsets); the positives and records of
    role 0 of D[H+h] come from a scan of D[H]'s records of role 1 or 0 only.  On dense records
    with few positives (most of D[H] negatives) this reads far less than a scan of D[H], and
    takes one popcount per (feature, word) where :func:`_count_bits` takes two or three.  The
    same counts as :func:`_count`; with negated literals, plain features only
    (``_negated_left``).
    """
    cdef uint64_t* dh = w.node_bits
    cdef uint64_t* dpos = w.node_bits + n_rw
    cdef uint64_t* doth = w.node_bits + 2 * n_rw
    cdef Py_ssize_t n_words = hi - lo + 1, n_listed, n_touched, n_role1, n_role0, k
    _split_roles(dh, slot_bits, n_rw, lo, hi, dpos, doth)
    n_listed = popcount_words(dpos + lo, n_words) + popcount_words(doth + lo, n_words)
    # A scan reads D[H]'s occurrences; this, the listed records' and a popcount per (feature, word).
    if <double> (n_support - n_listed) * mean_length <= SPLIT_FACTOR * n_counted * n_words:
        return -1
    n_touched = count_features(feature_bits, n_counted, n_rw, dh, NULL, NULL, False, lo, hi, path, n_path,
                               w.n_all, NULL, NULL, w.touched)
    n_role1 = _scan_records(dpos, dpos, lo, hi, r_indptr, r_end, r_ids, w.n_pos, w.support)
    n_role0 = _scan_records(doth, doth, lo, hi, r_indptr, r_end, r_ids, w.n_other, w.support)
    for k in range(n_path):
        # The scans counted the path's features too; they are no entries (and not touched).
        w.n_pos[path[k]] = 0
        w.n_other[path[k]] = 0
    w.n_split += 1
    _negated_left(neg, n_support, n_role1, n_role0, w)
    return n_touched


cdef Py_ssize_t _count(const ptr_t* f_indptr, const index_t* f_ids,
                       const ptr_t* r_indptr, const index_t* r_ids, const uint8_t* role,
                       const index_t* path, Py_ssize_t n_path, Py_ssize_t n_records,
                       Py_ssize_t n_features, const uint64_t* feature_bits, const uint64_t* slot_bits,
                       Py_ssize_t n_rw, const Negations* neg, Workspace* w) noexcept nogil:
    """Count, for every feature h ∉ path of the records of D[path], the records, the positives
    and the records of role 0 of D[path ∪ {h}] (negatives: the rest); returns how many features
    were touched (``w.touched``, in no particular order).  ``feature_bits`` (or NULL): every
    feature's records as ``n_rw`` words; ``slot_bits``: the tail's positives, then its role-0
    records, as bitsets.  With negated literals (``neg.n_negated > 0``), a scan reads only the
    plain features of the records and counts only them: "NOT f" holds on the records of
    D[path] without f, so its counts are D[path]'s minus f's, and the caller makes its entry
    from them (:func:`_negated_entry`; ``w.negated_left`` is then set, with D[path]'s counts
    in ``w.n_support``, ``w.n_role1`` and ``w.n_role0``).  So does a count by popcounts
    (:func:`_count_bits`), which then takes only the plain features' bitsets."""
    cdef Py_ssize_t n_support, i, k, n_touched = 0, n_scan = 0, lo, hi, n_split
    cdef Py_ssize_t n_role1 = 0, n_role0 = 0
    cdef ptr_t p, a, b
    cdef index_t r, f
    cdef uint8_t rr
    cdef uint64_t x
    cdef const ptr_t* r_end = neg.r_plain_end if neg.n_negated > 0 else r_indptr + 1
    # Every touched feature is counted below: plain ones only, when there are negated literals.
    cdef Py_ssize_t n_counted = neg.n_plain if neg.n_negated > 0 else n_features
    w.negated_left = False
    cdef double n_occurrences = <double> (neg.n_plain_occurrences if neg.n_negated > 0 else r_indptr[n_records])
    if feature_bits != NULL and n_path > 0:
        # D[H] as the AND of the path's bitsets.  Popcounts when its records hold many
        # more (scanned) feature occurrences (estimated from the mean record length: the
        # choice changes only the cost) than there are (feature, word) pairs; else its ids.
        n_support = and_columns(feature_bits, n_rw, path, n_path, w.node_bits, &lo, &hi)
        if n_support == 0:
            return 0
        if (<double> n_support * n_occurrences
                >= <double> BITSET_FACTOR * n_counted * (hi - lo + 1) * n_records):
            return _count_bits(path, n_path, n_counted, feature_bits, slot_bits, n_rw, lo, hi, n_support,
                               neg, w)
        if <double> n_support * n_occurrences > SPLIT_FACTOR * n_counted * (hi - lo + 1) * n_records:
            n_split = _count_split(path, n_path, n_counted, feature_bits, slot_bits, n_rw, lo, hi,
                                   n_support, n_occurrences / n_records, r_indptr, r_end, r_ids, neg, w)
            if n_split >= 0:
                return n_split
        n_support = 0
        for k in range(lo, hi + 1):
            x = w.node_bits[k]
            while x:
                w.support[n_support] = <index_t> ((k << 6) + ctz64(x))
                n_support += 1
                x &= x - 1
    else:
        n_support = support_into_ptr(f_indptr, f_ids, path, n_path, n_records, w.support, w.order)
    for i in range(n_support):
        r = w.support[i]
        n_scan += r_end[r] - r_indptr[r]
        if n_scan >= n_features:
            break   # dense: the exact total is not needed
    if n_scan >= n_features:
        # Dense: count every occurrence (one loop per role, no test in the loops), then
        # drop the path's features and collect the touched ones in one pass over F.
        # The records of D[H] lie scattered over the data: each one's role and row
        # bounds are asked for PREFETCH_AHEAD records ahead, its features half as far.
        w.n_dense += 1
        for i in range(n_support):
            if i + PREFETCH_AHEAD < n_support:
                r = w.support[i + PREFETCH_AHEAD]
                prefetch(&r_indptr[r])
                prefetch(&role[r])
            if i + PREFETCH_AHEAD // 2 < n_support:
                prefetch(&r_ids[r_indptr[w.support[i + PREFETCH_AHEAD // 2]]])
            r = w.support[i]
            rr = role[r]
            a, b = r_indptr[r], r_end[r]
            if rr == 2:
                for p in range(a, b):
                    w.n_all[r_ids[p]] += 1
            elif rr == 1:
                n_role1 += 1
                for p in range(a, b):
                    f = r_ids[p]
                    w.n_all[f] += 1
                    w.n_pos[f] += 1
            else:
                n_role0 += 1
                for p in range(a, b):
                    f = r_ids[p]
                    w.n_all[f] += 1
                    w.n_other[f] += 1
        for k in range(n_path):
            f = path[k]
            w.n_all[f] = 0
            w.n_pos[f] = 0
            w.n_other[f] = 0
        for f in range(n_counted):
            if w.n_all[f] != 0:
                w.touched[n_touched] = f
                n_touched += 1
        _negated_left(neg, n_support, n_role1, n_role0, w)
        return n_touched
    # Sparse (fewer occurrences than features): collect features on first touch.
    for i in range(n_support):
        r = w.support[i]
        rr = role[r]
        if rr == 1:
            n_role1 += 1
        elif rr != 2:
            n_role0 += 1
        for p in range(r_indptr[r], r_end[r]):
            f = r_ids[p]
            if w.n_all[f] == 0:
                if _in_path(f, path, n_path):
                    continue
                w.touched[n_touched] = f
                n_touched += 1
            w.n_all[f] += 1
            # Negatives are most records: they are counted as n_all - n_pos - n_other.
            if rr == 1:
                w.n_pos[f] += 1
            elif rr != 2:
                w.n_other[f] += 1
    _negated_left(neg, n_support, n_role1, n_role0, w)
    return n_touched


cdef inline void _negated_left(const Negations* neg, Py_ssize_t n_support, Py_ssize_t n_role1,
                               Py_ssize_t n_role0, Workspace* w) noexcept nogil:
    # A scan with negated literals counted the plain features only: the caller makes the
    # negated literals' entries (_negated_entry) from D[H]'s counts.
    if neg.n_negated > 0:
        w.negated_left = True
        w.n_support = n_support
        w.n_role1 = n_role1
        w.n_role0 = n_role0


cdef inline bint _negated_entry(Entry* e, const Negations* neg, Py_ssize_t i, const index_t* path,
                                Py_ssize_t n_path, const Workspace* w, double gamma, double phi) noexcept nogil:
    """The entry of "NOT negated[i]" in D[H], from its feature's counts and D[H]'s (no store in
    the counters); False when it holds on no record of D[H], or it or its feature is on the path.

    The plain features of the path were not counted (or their counts were cleared), so "NOT f"
    with f on the path, on no record of D[path], is left out by the path test; so is a negated
    literal on the path, like every feature of the path.  Both have f's count 0 (a negated
    literal of the path: f is on no record of D[H]), so only such literals are tested.
    """
    cdef index_t f = neg.negated[i]
    cdef index_t lit = <index_t> (neg.n_plain + i)
    cdef index_t n_all = <index_t> (w.n_support - w.n_all[f])
    if n_all == 0 or (w.n_all[f] == 0 and (_in_path(f, path, n_path) or _in_path(lit, path, n_path))):
        return False
    # The arithmetic of _entry_of, so that ties break alike.
    e.n_pos = <index_t> (w.n_role1 - w.n_pos[f])
    e.n_neg = n_all - e.n_pos - <index_t> (w.n_role0 - w.n_other[f])
    e.n_support = n_all
    e.feature = lit
    e.gain = _value(e, gamma) - phi
    return True


cdef Py_ssize_t _n_negated_entries(const Negations* neg, const index_t* path, Py_ssize_t n_path,
                                   const Workspace* w, Py_ssize_t n_touched, double gamma, double phi) noexcept nogil:
    """How many negated literals have an entry in D[H] (:func:`_negated_entry`), after a count that
    left them (``w.negated_left``; its touched features, ``n_touched``, are D[H]'s plain ones).

    "NOT f" with f touched has an entry unless f is on every record of D[H].
    Every other one holds on all of D[H] and has one unless it or f is on the
    path; each literal of the path excludes one such (with D[H] not empty, f
    and "NOT f" are never both on it).  So the count takes a pass over the
    touched features, not over the negated literals, with ``neg.literal_of``.
    """
    cdef Py_ssize_t i, k, n = 0, n_of_touched = 0, n_on_path = 0
    cdef index_t f
    cdef Entry e
    if w.n_support == 0:
        return 0
    if neg.literal_of == NULL:
        for i in range(neg.n_negated):
            n += _negated_entry(&e, neg, i, path, n_path, w, gamma, phi)
        return n
    for i in range(n_touched):
        f = w.touched[i]
        if neg.literal_of[f] >= 0:
            n_of_touched += 1
            n += w.n_all[f] < w.n_support
    for k in range(n_path):
        n_on_path += path[k] >= neg.n_plain or neg.literal_of[path[k]] >= 0
    return n + neg.n_negated - n_of_touched - n_on_path


cdef Py_ssize_t _offer_negated(Entry* heap, Py_ssize_t* n_heap, Py_ssize_t top_k, const Negations* neg,
                               const index_t* path, Py_ssize_t n_path, const Workspace* w, Py_ssize_t n_touched,
                               double gamma, double phi) noexcept nogil:
    """Offer every negated literal's entry (:func:`_negated_entry`) to the heap of a node's
    ``top_k`` best; returns how many there are (:func:`_n_negated_entries`).

    A node of sparse data has about as many negated literals as features,
    and once the heap is full most of them are worse than its worst: such an
    entry is compared by its gain and literal before it is offered (the order
    of ``entry_before``).  With ``neg.literal_of``, the literals of D[H]'s
    touched features are offered first.  Each other one holds on all of D[H]:
    they all have D[H]'s counts and gain, so in increasing literal id each is
    worse than the one before, and none after the first the heap refuses can
    enter it (its worst only improves).  The heap ends with the same entries
    whatever the order they are offered in.  When D[H] touches three quarters of the
    plain features or more, few literals hold on all of it, and one pass over the
    literals costs less.
    """
    cdef Py_ssize_t i, n = 0
    cdef index_t f
    cdef Entry e
    if neg.literal_of == NULL or w.n_support == 0 or 4 * n_touched >= 3 * neg.n_plain:
        for i in range(neg.n_negated):
            if not _negated_entry(&e, neg, i, path, n_path, w, gamma, phi):
                continue
            n += 1
            if n_heap[0] == top_k and not entry_before(e, heap[0]):
                continue
            offer_entry(heap, n_heap, top_k, e)
        return n
    for i in range(n_touched):
        f = w.touched[i]
        if neg.literal_of[f] >= 0 and _negated_entry(&e, neg, neg.literal_of[f], path, n_path, w, gamma, phi):
            if n_heap[0] < top_k or entry_before(e, heap[0]):
                offer_entry(heap, n_heap, top_k, e)
    for i in range(neg.n_negated):
        if w.n_all[neg.negated[i]] != 0 or not _negated_entry(&e, neg, i, path, n_path, w, gamma, phi):
            continue
        if n_heap[0] == top_k and not entry_before(e, heap[0]):
            break
        offer_entry(heap, n_heap, top_k, e)
    return _n_negated_entries(neg, path, n_path, w, n_touched, gamma, phi)


cdef inline double _value(const Entry* e, double gamma) noexcept nogil:
    """phi(H + h) = |D[H + h] ∩ D_T^+| - gamma·|D[H + h] ∩ D_T^-|, the plain search's arithmetic."""
    return <double> e.n_pos - gamma * <double> e.n_neg


cdef inline void _entry_of(Entry* e, index_t f, Workspace* w, double gamma, double phi) noexcept nogil:
    # The same arithmetic as the plain search, so that ties break alike.
    e.n_neg = w.n_all[f] - w.n_pos[f] - w.n_other[f]
    e.n_pos = w.n_pos[f]
    e.n_support = w.n_all[f]
    e.feature = f
    e.gain = _value(e, gamma) - phi


cdef inline void _reset(Workspace* w, Py_ssize_t n_touched) noexcept nogil:
    cdef Py_ssize_t i
    cdef index_t f
    for i in range(n_touched):
        f = w.touched[i]
        w.n_pos[f] = 0
        w.n_other[f] = 0
        w.n_all[f] = 0


cdef Py_ssize_t _build_entries(const ptr_t* f_indptr, const index_t* f_ids,
                               const ptr_t* r_indptr, const index_t* r_ids,
                               const uint8_t* role, double gamma, double phi,
                               const index_t* path, Py_ssize_t n_path, Py_ssize_t n_records,
                               Py_ssize_t n_features, Py_ssize_t top_k, Py_ssize_t n_sort,
                               const uint64_t* feature_bits, const uint64_t* slot_bits, Py_ssize_t n_rw,
                               const Negations* neg, Workspace* w, Entry** out, Py_ssize_t* n_keep,
                               Py_ssize_t* n_sorted, const index_t* cooc) noexcept nogil:
    """The entries of the node of head ``path`` (phi(path) = ``phi``): its ``top_k`` best (all
    of them when there are no more), the best ``n_sorted = min(n_sort, kept)`` first and sorted,
    the rest after them in no order; returns the number of entries of the node (-1 on
    allocation failure).  ``cooc`` (or NULL): for a head {h} of a plain feature h, h's
    co-occurrence row, which :func:`_count_from_row` counts from instead of :func:`_count`.

    The counted features' entries come first, then, when the count left them
    (``w.negated_left``), the negated literals', made from their features' counts; the
    node's order is total, so the entries kept do not depend on the order they are made in.
    """
    cdef Py_ssize_t n_touched, n_entries, i, n_heap = 0
    cdef Py_ssize_t n_negated = 0
    cdef Entry* items
    cdef Entry e
    if cooc != NULL:   # the head {h}, h a plain feature with its co-occurrence row
        n_touched = _count_from_row(cooc, path[0], f_indptr, f_ids, r_indptr, r_ids, feature_bits, slot_bits,
                                    n_rw, neg, w)
    else:
        n_touched = _count(f_indptr, f_ids, r_indptr, r_ids, role, path, n_path, n_records, n_features,
                           feature_bits, slot_bits, n_rw, neg, w)
    if w.negated_left:
        n_negated = neg.n_negated
    n_entries = n_touched + n_negated      # at most; exact once the negated literals are made
    if 4 * top_k < n_entries and 4 * top_k >= n_touched:
        # Whether the node is truncated depends on how many negated literals hold on D[H].
        n_entries = n_touched + _n_negated_entries(neg, path, n_path, w, n_touched, gamma, phi)
        n_negated = n_negated if n_entries > n_touched else 0
    if 4 * top_k < n_entries:
        # A node truncated to a small share of its entries: only its top_k best are
        # kept, in a heap while the entries are made (no array of every entry to
        # partition; with a larger share, the heap would change too often).
        items = <Entry*> malloc(top_k * sizeof(Entry))
        if items == NULL:
            _reset(w, n_touched)
            return -1
        n_entries = n_touched
        for i in range(n_touched):
            _entry_of(&e, w.touched[i], w, gamma, phi)
            offer_entry(items, &n_heap, top_k, e)
        if n_negated > 0:
            n_entries += _offer_negated(items, &n_heap, top_k, neg, path, n_path, w, n_touched, gamma, phi)
        _reset(w, n_touched)
        sort_entries(items, top_k)
        n_keep[0] = top_k
        n_sorted[0] = top_k
        out[0] = items
        return n_entries
    items = <Entry*> malloc((n_entries if n_entries > 0 else 1) * sizeof(Entry))
    if items == NULL:
        _reset(w, n_touched)
        return -1
    for i in range(n_touched):
        _entry_of(&items[i], w.touched[i], w, gamma, phi)
    n_entries = n_touched
    for i in range(n_negated):
        n_entries += _negated_entry(&items[n_entries], neg, i, path, n_path, w, gamma, phi)
    _reset(w, n_touched)
    n_keep[0] = min(top_k, n_entries)
    n_sorted[0] = min(n_sort, n_keep[0])
    # The kept entries: the best n_keep (a partition when fewer than all are kept and
    # fewer than those are sorted), of which the best n_sorted sorted first.
    if n_sorted[0] < n_keep[0]:
        partition_entries(items, n_keep[0], n_entries)
        top_entries(items, n_sorted[0], n_keep[0])
    else:
        top_entries(items, n_sorted[0], n_entries)
    out[0] = items
    return n_entries


cdef struct Search:
    index_t node         # current node (head H)
    index_t pending      # feature whose child node is missing (-1: none)
    int status           # 0 running, 1 waiting for a node, 2 done
    Py_ssize_t n_visited
    Py_ssize_t limit     # min(max_length, number of candidates); -1 before the first visit
    Py_ssize_t n_candidates  # |F'| when the candidates are a bitset (cand_bits), else unused
    double best_allowed
    int64_t pos_key      # candidate source: D+'s record id, or n_records + tail slot (deterministic)
    int64_t neg_key      # D-'s record id, or -1 (no D-, or candidates="positive")
    bint all_present     # every candidate occurs in D[H] (seeded by D+, which is in D[H])
    const uint64_t* cand_bits  # F_{D+} minus F_{D-} as a bitset, or NULL (then the stamps say it)
    const index_t* cand        # the candidate source: F_{D+}, or the tail's list
    Py_ssize_t n_cand
    Py_ssize_t voff            # where its visited features and scores go


cdef struct Choice:
    index_t feature      # -1: no candidate left
    double value
    Py_ssize_t n_pos
    Py_ssize_t n_support


cdef inline bint _has_bit(const uint64_t* bits, index_t h) noexcept nogil:
    return (bits[h >> 6] >> (h & 63)) & 1


cdef inline bint _is_candidate(index_t h, const Search* s, const Workspace* w) noexcept nogil:
    # h ∈ F_{D+} (or the tail's list) and h ∉ F_{D-}: read from the records'
    # bitsets when there are some, else from the thread's stamps.
    if s.cand_bits != NULL:
        return _has_bit(s.cand_bits, h)
    return w.pos_stamp[h] == s.pos_key + 1 and (s.neg_key < 0 or w.neg_stamp[h] != s.neg_key + 1)


cdef Choice _choose_from_node(const Entry* entries, Py_ssize_t n_e, Py_ssize_t n_sorted, bint complete,
                              bint by_feature, bint root, double phi, double gamma,
                              Search* s, const index_t* visited, Workspace* w,
                              bint* need_counting) noexcept nogil:
    """The best candidate from a node's entries (``need_counting``: the node must be completed first).

    The first ``n_sorted`` entries are the node's best, in order; the others
    are all worse: the first candidate of the order is the first of the
    sorted ones, else the best of the others.  With ``by_feature`` the others
    are in increasing feature id (``_order_rest``): a search with few
    candidates then looks each of them up among them (``s.cand`` holds every
    candidate) instead of reading them all, for the same choice (the order is
    total).
    """
    cdef Choice c
    cdef Py_ssize_t i, k, found = -1, n_rest = n_e - n_sorted, start = 0
    cdef index_t h, absent = -1, last = -1
    cdef bint used
    need_counting[0] = False
    c.feature = -1
    for i in range(n_sorted):
        if _is_candidate(entries[i].feature, s, w):
            found = i
            break
    if found < 0 and n_rest > 0:
        if by_feature and s.cand != NULL and _lookups_pay(n_rest, <double> s.n_cand):
            w.n_lookup += 1
            for k in range(s.n_cand):
                h = s.cand[k]
                if not _is_candidate(h, s, w):
                    continue
                if h < last:   # a record's row is sorted; a tail's list may not be
                    start = 0
                last = h
                i = find_entry(entries + n_sorted, n_rest, h, &start)
                if i >= 0 and (found < 0 or entry_before(entries[n_sorted + i], entries[found])):
                    found = n_sorted + i
        else:
            for i in range(n_sorted, n_e):
                if _is_candidate(entries[i].feature, s, w) and (found < 0 or entry_before(entries[i], entries[found])):
                    found = i
    if found >= 0 and (entries[found].gain > -phi or s.all_present):
        # With a seed record D+ every candidate is in a record of D[H] (D+
        # itself), so no absent candidate can tie or win.
        pass
    elif not complete:
        need_counting[0] = True
        return c
    elif not root and not s.all_present:
        # Candidates absent from every record of D[H] gain 0 - phi; the smallest such id.
        w.present_token += 1
        for i in range(n_e):
            w.present_stamp[entries[i].feature] = w.present_token
        for i in range(s.n_cand):
            h = s.cand[i]
            if not _is_candidate(h, s, w) or w.present_stamp[h] == w.present_token:
                continue
            used = False
            for k in range(s.n_visited):
                if visited[k] == h:
                    used = True
                    break
            if not used:
                absent = h
                break
    if found >= 0 and (absent < 0 or entries[found].gain > -phi
                       or (entries[found].gain == -phi and entries[found].feature < absent)):
        c.feature = entries[found].feature
        c.value = _value(&entries[found], gamma)
        c.n_pos = entries[found].n_pos
        c.n_support = entries[found].n_support
    elif absent >= 0:
        c.feature = absent
        c.value = 0.0 - 0.0   # pos - gamma * neg with no record
        c.n_pos = 0
        c.n_support = 0
    return c


cdef inline void _word_range(const uint64_t* bits, Py_ssize_t lo, Py_ssize_t hi, Py_ssize_t* first,
                             Py_ssize_t* last) noexcept nogil:
    # The first and last non-zero words of bits[lo..hi] (first > last: none).
    first[0], last[0] = hi + 1, hi
    while lo <= hi and bits[lo] == 0:
        lo += 1
    while hi >= lo and bits[hi] == 0:
        hi -= 1
    if lo <= hi:
        first[0], last[0] = lo, hi


cdef Choice _choose_last(Search* s, const index_t* visited, double phi, double gamma,
                         const uint64_t* feature_bits, Py_ssize_t n_rw, const uint64_t* slot_bits,
                         Py_ssize_t n_words, Py_ssize_t lo, Py_ssize_t hi, Workspace* w) noexcept nogil:
    """A search's last choice, made without the node of its head H = ``visited``.

    The choice ``_choose_from_node`` would make from H's node (the same
    entry: the first candidate in decreasing gain, then increasing feature
    id, a candidate absent from D[H] having value 0), with only the search's
    own candidates counted: D[H] is in ``w.node_bits`` (records in words
    lo..hi).  Building the node would count every feature, and the last
    step of a search reads it once.

    A candidate h costs one popcount over the words of D[H]'s positives,
    giving n_pos; a second one over its negatives' words, giving n_neg, only
    when h may still come first.  Its gain (Algorithm 5's phi(H ∪ {h}) -
    phi(H) = n_pos - γ·n_neg - phi) is at most n_pos - phi for γ ≥ 0, in
    floating point too (subtracting a non-negative number never rounds up),
    and the candidates are met in increasing id, so a tie with the best so
    far loses: h is passed over when n_pos - phi is not above the best gain.
    The chosen candidate's support is counted once, at the end.
    """
    cdef Choice c
    cdef Py_ssize_t k, pos_lo, pos_hi, neg_lo, neg_hi
    cdef uint64_t x
    cdef index_t h
    cdef int64_t n_pos, n_neg, best_neg = 0
    cdef double gain, best_gain = 0.0
    cdef bint bounded = gamma >= 0.0
    cdef const uint64_t* col
    cdef uint64_t* dh = w.node_bits
    cdef uint64_t* dpos = w.node_bits + n_rw
    cdef uint64_t* dneg = w.node_bits + 2 * n_rw
    c.feature = -1
    # D[H]'s positives (role 1) and negatives (role 2: neither role 1 nor role 0).
    for k in range(lo, hi + 1):
        dpos[k] = dh[k] & slot_bits[k]
        dneg[k] = dh[k] & ~slot_bits[k] & ~slot_bits[n_rw + k]
    _word_range(dpos, lo, hi, &pos_lo, &pos_hi)
    _word_range(dneg, lo, hi, &neg_lo, &neg_hi)
    # The candidates from their bitset (the caller checks the search has one).
    for k in range(n_words):
        x = s.cand_bits[k]
        while x:
            h = <index_t> ((k << 6) + ctz64(x))
            x &= x - 1
            if _in_path(h, visited, s.n_visited):
                continue
            col = feature_bits + h * n_rw
            n_pos = common_bits(col, dpos, pos_lo, pos_hi)   # 0 over no word (pos_lo > pos_hi)
            if bounded and c.feature >= 0 and <double> n_pos - phi <= best_gain:
                continue
            n_neg = common_bits(col, dneg, neg_lo, neg_hi)
            # _value's arithmetic, on the same int32 counts, so that ties break alike.
            gain = (<double> <int32_t> n_pos - gamma * <double> <int32_t> n_neg) - phi
            if c.feature < 0 or gain > best_gain:
                best_gain = gain
                best_neg = n_neg
                c.feature = h
                c.n_pos = n_pos
    if c.feature >= 0:
        c.value = <double> <int32_t> c.n_pos - gamma * <double> <int32_t> best_neg
        col = feature_bits + c.feature * n_rw
        c.n_support = common_bits(col, dh, lo, hi)
    return c


cdef int _advance(Search* s, GreedyHeadMemo memo, index_t* visited, double* scores,
                  Py_ssize_t min_length, double epsilon, Py_ssize_t n_positive,
                  Workspace* w, const uint64_t* feature_bits, Py_ssize_t n_rw, const uint64_t* slot_bits,
                  Py_ssize_t n_words, double mean_length) noexcept nogil:
    """Run one search as far as the built nodes allow.

    Status 1 on return: it needs the child (node, pending) built, or with
    ``pending == -2`` the node itself completed.  With ``feature_bits``
    (and the search's slot's role bitsets), a last step whose node is not
    built and would be counted by popcounts (``BITSET_FACTOR``; records of
    ``mean_length`` features on average) is made by :func:`_choose_last`,
    without the node; so is a step whose truncated node must otherwise be
    completed, when the search has few candidates.
    """
    cdef Choice c
    cdef index_t node
    cdef bint need_counting
    cdef double phi
    cdef int64_t child
    cdef Py_ssize_t lo, hi, n_support
    while True:
        if s.n_visited >= s.limit:
            s.status = 2
            return 0
        node = s.node
        phi = memo.node_phi[node]
        c = _choose_from_node(memo.node_start[node], memo.node_length[node], memo.node_sorted[node],
                              memo.node_complete[node], memo.node_by_feature[node], memo.node_depth[node] == 0,
                              phi, memo.gamma,
                              s, visited, w, &need_counting)
        if need_counting:
            if (slot_bits != NULL and s.cand_bits != NULL and s.n_visited > 0
                    and s.n_candidates * LAST_STEP_READS <= memo.n_features):
                # Dense records and few candidates: the choice the completed node would give, from
                # the search's own candidates counted on D[H]'s bitset (completing the node would
                # count and store every literal of D[H]).
                and_columns(feature_bits, n_rw, visited, s.n_visited, w.node_bits, &lo, &hi)
                c = _choose_last(s, visited, phi, memo.gamma, feature_bits, n_rw, slot_bits, n_words, lo, hi, w)
                w.n_direct += 1
            else:
                s.pending = -2
                s.status = 1
                return 0
        if c.feature < 0:
            s.status = 2         # no candidate left
            return 0
        visited[s.n_visited] = c.feature
        scores[s.n_visited] = c.value
        s.n_visited += 1
        if s.n_visited >= min_length:
            if s.n_visited == min_length or c.value > s.best_allowed:
                s.best_allowed = c.value
            if c.n_support < epsilon * <double> n_positive:
                s.status = 2
                return 0
            # The plain search's exact pruning (no longer prefix can beat it).
            if s.best_allowed >= <double> c.n_pos:
                s.status = 2
                return 0
        if s.n_visited >= s.limit:
            s.status = 2
            return 0
        child = memo.children.find(_child_key(node, c.feature))
        if (child < 0 and slot_bits != NULL and s.cand_bits != NULL and s.n_visited + 1 >= s.limit
                and s.n_candidates * LAST_STEP_READS <= memo.n_features):
            # The last step, its node not built, and few candidates: D[H] as a bitset,
            # and the choice from it directly when the node would be counted by popcounts.
            n_support = and_columns(feature_bits, n_rw, visited, s.n_visited, w.node_bits, &lo, &hi)
            if (<double> n_support * mean_length
                    >= <double> BITSET_FACTOR * memo.n_features * (hi - lo + 1)):
                c = _choose_last(s, visited, c.value, memo.gamma, feature_bits, n_rw, slot_bits, n_words,
                                 lo, hi, w)
                if c.feature >= 0:
                    visited[s.n_visited] = c.feature
                    scores[s.n_visited] = c.value
                    s.n_visited += 1
                w.n_direct += 1
                s.status = 2     # the search's last step (or no candidate left)
                return 0
        if child < 0:
            s.pending = c.feature
            s.status = 1
            return 0
        s.node = <index_t> child


cdef int _build_roots(GreedyHeadMemo memo, const ptr_t[::1] f_indptr, const ptr_t[::1] r_indptr,
                      const index_t[::1] r_ids, const uint8_t[:, ::1] roles, index_t[::1] roots,
                      const Batch* b) except -1:
    """Build the root node of every tail slot without one (``roots[t] == -1``) and write its id back.

    A root is the empty head: phi(∅) = 0.  Its entries are the features of
    the tail's positive records (roles 1 and 0), each with its positives and
    records of role 0 counted in one pass over those records (few); the
    negatives are the rest of D[{h}].  No other feature can be a root's
    choice: a search's candidates are features of its seed record D+, a
    positive record (or, for ``seed="deterministic"``, of the tail's
    positive records).  On wide data (tens of thousands of features) this
    keeps a root to the features its searches can reach.
    """
    cdef Py_ssize_t n_slots = roles.shape[0], n_features = memo.n_features, n_records = memo.n_records
    cdef Py_ssize_t t, i, k, n_items, n_touched
    cdef double gamma = memo.gamma
    cdef index_t f
    cdef Entry* items
    first = np.zeros((2, max(n_features, 1)), dtype=np.int32)
    touched = np.empty(max(n_features, 1), dtype=np.int32)
    cdef index_t[:, ::1] first_v = first
    cdef index_t[::1] touched_v = touched
    cdef uint8_t rr
    cdef ptr_t p, q, q_first, q_last
    for t in range(n_slots):
        if roots[t] >= 0:
            continue
        n_items = 0
        n_touched = 0
        # The records of role 1 or 0: the slot's list when there is one, else every record.
        q_first, q_last = 0, n_records
        if b.slot_indptr != NULL:
            q_first, q_last = b.slot_indptr[t], b.slot_indptr[t + 1]
        with nogil:
            for q in range(q_first, q_last):
                if b.slot_indptr != NULL:
                    # Listed records lie scattered over a large data set: their roles and rows
                    # are asked for ahead, as in a node's scan.
                    if q + PREFETCH_AHEAD < q_last:
                        prefetch(&roles[t, b.slot_ids[q + PREFETCH_AHEAD]])
                        prefetch(&r_indptr[b.slot_ids[q + PREFETCH_AHEAD]])
                    if q + PREFETCH_AHEAD // 2 < q_last:
                        prefetch(&r_ids[r_indptr[b.slot_ids[q + PREFETCH_AHEAD // 2]]])
                i = b.slot_ids[q] if b.slot_indptr != NULL else q
                rr = roles[t, i]
                if rr != 2:
                    # As in node builds: role 1 positive, any other role but 2 not counted.
                    k = 1 if rr == 1 else 0
                    for p in range(r_indptr[i], r_indptr[i + 1]):
                        f = r_ids[p]
                        if first_v[0, f] == 0 and first_v[1, f] == 0:
                            touched_v[n_touched] = f
                            n_touched += 1
                        first_v[k, f] += 1
        items = <Entry*> malloc((n_touched if n_touched > 0 else 1) * sizeof(Entry))
        if items == NULL:
            raise MemoryError("greedy_heads_memo: could not allocate a root node")
        with nogil:
            for i in range(n_touched):
                f = touched_v[i]
                # Row 1: positives; row 0: role 0; negatives: |D[{h}]| minus both.
                items[n_items].n_neg = <int32_t> (
                    f_indptr[f + 1] - f_indptr[f] - first_v[1, f] - first_v[0, f])
                items[n_items].n_pos = first_v[1, f]
                items[n_items].gain = _value(&items[n_items], gamma) - 0.0
                items[n_items].feature = f
                items[n_items].n_support = <int32_t> (f_indptr[f + 1] - f_indptr[f])
                n_items += 1
                first_v[0, f] = 0   # ready for the next root
                first_v[1, f] = 0
            top_entries(items, min(memo.sorted_prefix, n_items), n_items)
        try:
            roots[t] = memo._add_node(-1, -1, 0, 0.0, items, n_items, n_items, memo.sorted_prefix, b.mean_length)
        finally:
            free(items)
    return 0


cdef tuple _workspaces(Workspace* ws, int n_thr, Py_ssize_t n_features, Py_ssize_t n_records,
                       Py_ssize_t max_length, Py_ssize_t n_rw):
    """Fill the per-thread workspaces ``ws[0..n_thr)``; returns the arrays they point into (keep them alive).

    The first array is the threads' path buffers, shape (n_thr, 2, max_length + 1):
    row 0 a node's path while it is built, row 1 the workspace's ``order``.
    """
    cdef Py_ssize_t nf = max(n_features, 1), i
    stamps = np.zeros((n_thr, 3, nf), dtype=np.int64)
    counters = np.zeros((n_thr, 4, nf), dtype=np.int32)
    support_ws = np.empty((n_thr, max(n_records, 1)), dtype=np.int32)
    path_ws = np.empty((n_thr, 2, max_length + 1), dtype=np.int32)
    node_bits_ws = np.zeros((n_thr, 3 * max(n_rw, 1)), dtype=np.uint64)
    cdef uint64_t[:, ::1] nbits = node_bits_ws
    cdef int64_t[:, :, ::1] stamp_v = stamps
    cdef index_t[:, :, ::1] cnt = counters
    cdef index_t[:, ::1] sup = support_ws
    cdef index_t[:, :, ::1] pth = path_ws
    for i in range(n_thr):
        ws[i].support = &sup[i, 0]
        ws[i].order = &pth[i, 1, 0]
        ws[i].n_pos = &cnt[i, 0, 0]
        ws[i].n_other = &cnt[i, 1, 0]
        ws[i].n_all = &cnt[i, 2, 0]
        ws[i].touched = &cnt[i, 3, 0]
        ws[i].pos_stamp = &stamp_v[i, 0, 0]
        ws[i].neg_stamp = &stamp_v[i, 1, 0]
        ws[i].present_stamp = &stamp_v[i, 2, 0]
        ws[i].pos_key = -1
        ws[i].neg_key = -1
        ws[i].present_token = 0
        ws[i].n_dense = 0
        ws[i].n_bitset = 0
        ws[i].n_split = 0
        ws[i].n_direct = 0
        ws[i].n_cooc = 0
        ws[i].n_lookup = 0
        ws[i].node_bits = &nbits[i, 0]
    return path_ws, stamps, counters, support_ws, node_bits_ws


cdef tuple _best_prefixes(const Search* searches, Py_ssize_t n_jobs, const ptr_t[::1] voff,
                          const index_t[::1] visited_v, const double[::1] scores_v, Py_ssize_t min_length):
    """The heads of the searches as CSR ``(indptr, ids)``: the best prefix of allowed length, sorted.

    A search recorded phi after each feature it added; its head is the
    shortest prefix of at least ``min_length`` features with the largest
    phi (the first maximum), empty when it visited too few features.
    """
    cdef Py_ssize_t j, i, k
    indptr = np.zeros(n_jobs + 1, dtype=np.int64)
    cdef ptr_t[::1] out_indptr = indptr
    for j in range(n_jobs):
        k = 0
        for i in range(min_length - 1 if min_length > 0 else 0, searches[j].n_visited):
            if k == 0 or scores_v[voff[j] + i] > scores_v[voff[j] + k - 1]:
                k = i + 1
        out_indptr[j + 1] = out_indptr[j] + k
    ids = np.empty(out_indptr[n_jobs], dtype=np.int32)
    cdef index_t[::1] out_ids = ids
    with nogil:
        for j in range(n_jobs):
            if out_indptr[j + 1] > out_indptr[j]:
                copy_sorted(&visited_v[voff[j]], out_indptr[j + 1] - out_indptr[j], &out_ids[out_indptr[j]])
    return indptr, ids


cdef struct Batch:
    # One call's inputs and buffers as raw pointers, so that the parallel loops
    # read them without touching Python objects (the arrays outlive the call's steps).
    const ptr_t* f_indptr
    const index_t* f_ids         # NULL when there is no occurrence
    const ptr_t* r_indptr
    const index_t* r_ids         # NULL when there is no occurrence
    const uint8_t* roles         # row t (tail slot t) at roles + t * roles_stride
    Py_ssize_t roles_stride
    const ptr_t* n_positive
    const index_t* job_tail
    const index_t* job_pos
    const index_t* job_neg
    Py_ssize_t n_jobs
    Py_ssize_t n_slots
    Py_ssize_t n_features
    Py_ssize_t n_records
    Py_ssize_t min_length
    Py_ssize_t max_length
    double epsilon
    const uint64_t* record_bits   # F_D of every record, n_words words each, or NULL
    Py_ssize_t n_words
    const uint64_t* feature_bits  # D[{h}] of every feature, n_rw words each, or NULL
    Py_ssize_t n_rw
    double mean_length           # feature occurrences per record
    uint64_t* slot_bits          # per slot: its positives, then its role-0 records (slot_row words each)
    Py_ssize_t slot_row
    uint8_t* slot_ready          # slot_bits of the slot filled
    uint8_t* direct              # the slot has a search whose last step may skip its node
    const ptr_t* slot_indptr     # per slot, its records of role 1 or 0 (sorted ids), or NULL
    const index_t* slot_ids
    Negations neg                # the negated literals, counted as complements (n_negated 0: none)
    const ptr_t* voff            # where each search's visited features and scores go
    index_t* visited
    double* scores


cdef inline uint64_t* _slot_bits(const Batch* b, Py_ssize_t t) noexcept nogil:
    return b.slot_bits + t * 2 * b.slot_row


cdef inline void _ready_slot(Batch* b, Py_ssize_t t) noexcept nogil:
    # Filled on first need only: most slots never have a node built by popcounts.  From the
    # slot's list of records of role 1 or 0 when there is one (a few records, where the role
    # bytes are one per record of the data).
    cdef ptr_t p
    cdef index_t r
    cdef const uint8_t* role = b.roles + t * b.roles_stride
    cdef uint64_t* positives = _slot_bits(b, t)
    cdef uint64_t* others = positives + b.slot_row
    if not b.slot_ready[t]:
        b.slot_ready[t] = 1
        if b.slot_indptr == NULL:
            _role_bits(role, b.n_records, positives, others)
            return
        for p in range(b.slot_indptr[t], b.slot_indptr[t + 1]):
            if p + PREFETCH_AHEAD < b.slot_indptr[t + 1]:
                prefetch(&role[b.slot_ids[p + PREFETCH_AHEAD]])
            r = b.slot_ids[p]
            if role[r] == 1:
                positives[r >> 6] |= (<uint64_t> 1) << (r & 63)
            elif role[r] == 0:
                others[r >> 6] |= (<uint64_t> 1) << (r & 63)


# The co-occurrence rows of a memo take at most this many bytes (past it, nodes {h} are counted
# by scanning D[h], as the others).
cdef Py_ssize_t COOCCURRENCE_BYTES = 64 * 1024 * 1024
# A node {h} is counted from h's row when D[h]'s records hold at least this many times as many
# plain feature occurrences as there are plain features and words of h's record bitset (the
# row's read and the AND of the bitsets).
cdef double COOCCURRENCE_FACTOR = 2.0


cdef bint _cooccurrence_row(GreedyHeadMemo memo, Py_ssize_t h, const Batch* b) except -1:
    """Make sure plain feature h has its co-occurrence row in the memo; False when it would pass
    ``COOCCURRENCE_BYTES`` (the node {h} is then counted by a scan, as the others).

    The row is one pass over the plain features of the records of D[h]: the count a node {h}
    build would make, without the roles, once for every tail.
    """
    cdef index_t* row
    cdef const ptr_t* r_end = b.neg.r_plain_end if b.neg.n_negated > 0 else b.r_indptr + 1
    if memo.cooc_plain != b.neg.n_plain:
        memo._free_cooccurrences()
        memo.cooc_rows.assign(b.neg.n_plain, NULL)
        memo.cooc_plain = b.neg.n_plain
    if memo.cooc_rows[h] != NULL:
        return True
    if memo.cooc_bytes + memo.cooc_plain * <Py_ssize_t> sizeof(index_t) > COOCCURRENCE_BYTES:
        return False
    row = <index_t*> calloc(max(memo.cooc_plain, 1), sizeof(index_t))
    if row == NULL:
        raise MemoryError("greedy_heads_memo: could not allocate a co-occurrence row")
    with nogil:
        _count_rows(b.f_ids + b.f_indptr[h], b.f_indptr[h + 1] - b.f_indptr[h], b.r_indptr, r_end, b.r_ids, row)
    memo.cooc_rows[h] = row
    memo.cooc_bytes += memo.cooc_plain * sizeof(index_t)
    return True


cdef int _check_inputs(GreedyHeadMemo memo, const index_t[::1] roots, Py_ssize_t n_slots,
                       const uint64_t[::1] record_bits, Py_ssize_t n_words,
                       const uint64_t[::1] feature_bits, Py_ssize_t n_record_words) except -1:
    """Raise ValueError for bitsets too small for the data, or roots that are not this memo's.

    Called before anything is added to the memo, so that a bad call leaves
    it as it was; a root id from another memo (or a cleared one) would be
    read out of bounds.
    """
    cdef Py_ssize_t n_features = memo.n_features, n_records = memo.n_records, t
    if record_bits is not None:
        if n_words < 1 or n_words * 64 < n_features or record_bits.shape[0] < n_records * n_words:
            raise ValueError(f"greedy_heads_memo: record_bits is too small for the data "
                             f"({record_bits.shape[0]} words, n_words={n_words}, "
                             f"{n_records} records, {n_features} features)")
    for t in range(n_slots):
        if roots[t] != -1 and not (0 <= roots[t] < <index_t> memo.node_start.size()
                                   and memo.node_depth[roots[t]] == 0):
            raise ValueError(f"greedy_heads_memo: roots[{t}] = {roots[t]} is not a root node of this memo "
                             f"(it has {memo.node_start.size()} nodes); pass -1 to build the root")
    if feature_bits is not None:
        if (n_record_words < 1 or n_record_words * 64 < n_records
                or feature_bits.shape[0] < n_features * n_record_words):
            raise ValueError(f"greedy_heads_memo: feature_bits is too small for the data "
                             f"({feature_bits.shape[0]} words, n_record_words={n_record_words}, "
                             f"{n_features} features, {n_records} records)")
    return 0


cdef int _check_slot_records(const ptr_t[::1] slot_indptr, const index_t[::1] slot_ids,
                             const uint8_t[:, ::1] roles) except -1:
    """Raise ValueError unless ``slot_indptr``/``slot_ids`` list, per slot, sorted records of role
    1 or 0 (the kernel trusts them to list every such record: they come from the same lists as the
    roles)."""
    cdef Py_ssize_t t, n_slots = roles.shape[0], n_records = roles.shape[1]
    cdef ptr_t p
    if slot_ids is None or slot_indptr.shape[0] != n_slots + 1 or slot_indptr[0] != 0 \
            or slot_indptr[n_slots] != slot_ids.shape[0]:
        raise ValueError("greedy_heads_memo: slot_indptr and slot_ids must be a CSR with one row per slot")
    for t in range(n_slots):
        if slot_indptr[t + 1] < slot_indptr[t]:
            raise ValueError(f"greedy_heads_memo: slot_indptr decreases at slot {t}")
        for p in range(slot_indptr[t], slot_indptr[t + 1]):
            if p + PREFETCH_AHEAD < slot_indptr[t + 1] and 0 <= slot_ids[p + PREFETCH_AHEAD] < n_records:
                prefetch(&roles[t, slot_ids[p + PREFETCH_AHEAD]])   # scattered roles, asked for ahead
            if not 0 <= slot_ids[p] < n_records or (p > slot_indptr[t] and slot_ids[p] <= slot_ids[p - 1]):
                raise ValueError(f"greedy_heads_memo: slot {t}'s records are not sorted ids in [0, {n_records})")
            if roles[t, slot_ids[p]] == 2:
                raise ValueError(f"greedy_heads_memo: slot {t} lists record {slot_ids[p]}, a negative (role 2)")
    return 0


cdef void _start_searches(Search* searches, Batch* b, const index_t[::1] roots, const ptr_t[::1] coff,
                          const ptr_t[::1] cand_indptr, const index_t* cand_ids, bint difference,
                          uint64_t* cand_bits) noexcept nogil:
    """Every job's search at its tail's root, with its candidate source and, when the
    records have bitsets, its candidates F' = F_{D+} minus F_{D-} as one bitset.

    Marks the slots (``b.direct``) with a search whose last step may be made
    without its node: dense records, and few candidates (``_choose_last``).
    """
    cdef Py_ssize_t j, k, i, n_words = b.n_words
    cdef Search* s
    cdef const uint64_t* pos_bits
    cdef const uint64_t* neg_bits
    cdef index_t pos, neg, tail
    cdef bint dense_records = (b.feature_bits != NULL and b.n_records > 0 and b.n_features > 0
                               and b.max_length >= 2
                               and <double> b.r_indptr[b.n_records]
                               >= LAST_STEP_DENSITY * b.n_features * b.n_records)
    for j in range(b.n_jobs):
        s = &searches[j]
        tail = b.job_tail[j]
        pos = b.job_pos[j]
        neg = b.job_neg[j]
        s.node = roots[tail]
        s.pending = -1
        s.status = 0
        s.n_visited = 0
        s.limit = -1
        s.best_allowed = 0.0
        s.pos_key = pos if pos >= 0 else b.n_records + tail
        s.neg_key = neg if (difference and pos >= 0 and neg >= 0) else -1
        s.all_present = pos >= 0
        s.voff = b.voff[j]
        s.n_cand = coff[j + 1] - coff[j]
        if pos >= 0:
            s.cand = b.r_ids + b.r_indptr[pos] if b.r_ids != NULL else NULL
        else:
            s.cand = cand_ids + cand_indptr[tail] if cand_ids != NULL else NULL
        s.cand_bits = NULL
        if b.record_bits != NULL and pos >= 0:
            # A single bit test per entry a search reads.
            pos_bits = b.record_bits + pos * n_words
            neg_bits = b.record_bits + neg * n_words if s.neg_key >= 0 else NULL
            for k in range(n_words):
                cand_bits[j * n_words + k] = pos_bits[k] & (~neg_bits[k] if neg_bits != NULL else ~(<uint64_t> 0))
            s.cand_bits = &cand_bits[j * n_words]
            # |F'| from the bitset (no read of the records' id lists); the step limit
            # is min(max_length, |F'|).
            i = popcount_words(s.cand_bits, n_words)
            s.n_candidates = i
            s.limit = min(b.max_length, i)
            if dense_records and i * LAST_STEP_READS <= b.n_features:
                b.direct[tail] = 1


cdef inline void _ready_search(Search* s, Workspace* w, const Batch* b, index_t neg) noexcept nogil:
    # Without a candidates' bitset, F' = F_{D+} minus F_{D-} is read from the thread's
    # stamps: rewrite them unless they already hold this search's records (searches of
    # one seed pair often follow each other).  On the first visit, the step limit.
    cdef Py_ssize_t k, i
    cdef ptr_t a
    if s.cand_bits == NULL:
        if w.pos_key != s.pos_key:
            for k in range(s.n_cand):
                w.pos_stamp[s.cand[k]] = s.pos_key + 1
            w.pos_key = s.pos_key
        if s.neg_key >= 0 and w.neg_key != s.neg_key:
            for a in range(b.r_indptr[neg], b.r_indptr[neg + 1]):
                w.neg_stamp[b.r_ids[a]] = s.neg_key + 1
            w.neg_key = s.neg_key
    if s.limit < 0:
        # min(max_length, |F'|)
        i = s.n_cand
        if s.neg_key >= 0:
            for a in range(b.r_indptr[neg], b.r_indptr[neg + 1]):
                i = i - (w.pos_stamp[b.r_ids[a]] == s.pos_key + 1)
        s.limit = min(b.max_length, i)


cdef void _advance_all(Search* searches, GreedyHeadMemo memo, const Batch* b, Workspace* ws,
                       int n_thr) noexcept:
    """Advance every running search through the nodes built so far, in parallel."""
    cdef Py_ssize_t j
    cdef int tid
    cdef index_t tail
    with nogil:
        for j in prange(b.n_jobs, schedule="dynamic", num_threads=n_thr):
            if searches[j].status != 0:
                continue
            tid = threadid()
            tail = b.job_tail[j]
            _ready_search(&searches[j], &ws[tid], b, b.job_neg[j])
            _advance(&searches[j], memo, b.visited + searches[j].voff, b.scores + searches[j].voff,
                     b.min_length, b.epsilon, b.n_positive[tail], &ws[tid],
                     b.feature_bits, b.n_rw, _slot_bits(b, tail) if b.direct[tail] else NULL,
                     b.n_words, b.mean_length)


cdef class _Requests:
    """A round's distinct requests: children (node, feature) to build, or nodes (feature -2) to complete.

    Several searches waiting for the same node make one request; the
    entries built for them are owned here until the memo has copied them.
    """
    cdef vector[index_t] node, feature, slot
    cdef vector[double] phi
    cdef vector[Entry*] items
    cdef vector[const index_t*] cooc    # per request: the co-occurrence row of its head {h}, or NULL
    cdef vector[Py_ssize_t] count, keep, n_sorted
    cdef KeyMap index

    def __dealloc__(self):
        cdef size_t i
        for i in range(self.items.size()):
            if self.items[i] != NULL:
                free(self.items[i])
        self.index.release()

    cdef Py_ssize_t collect(self, const Search* searches, const Batch* b, GreedyHeadMemo memo) except -1:
        """The requests of the waiting searches (status 1), in job order; returns how many."""
        cdef Py_ssize_t j, n_need
        cdef uint64_t key
        self.node.clear()
        self.feature.clear()
        self.slot.clear()
        self.phi.clear()
        self.index.reset()
        for j in range(b.n_jobs):
            if searches[j].status != 1:
                continue
            key = _child_key(searches[j].node, searches[j].pending)
            if self.index.find(key) < 0:
                self.index.set(key, self.node.size())
                self.node.push_back(searches[j].node)
                self.feature.push_back(searches[j].pending)
                self.slot.push_back(b.job_tail[j])
                if searches[j].pending >= 0:
                    # phi of the child's head: the value the search just recorded.
                    self.phi.push_back(b.scores[b.voff[j] + searches[j].n_visited - 1])
                else:
                    self.phi.push_back(memo.node_phi[searches[j].node])
        n_need = self.node.size()
        self.items.assign(n_need, NULL)
        self.count.assign(n_need, 0)
        self.keep.assign(n_need, 0)
        self.n_sorted.assign(n_need, 0)
        return n_need

    cdef int rows(self, GreedyHeadMemo memo, const Batch* b) except -1:
        """Each request's co-occurrence row (:func:`_cooccurrence_row`, computed when missing): for
        a head {h} of a plain feature h (a root's child, or such a node to complete) whose records
        hold at least COOCCURRENCE_FACTOR times as many plain feature occurrences as there are
        plain features and words of its bitset; else NULL (the node is scanned).  Serial."""
        cdef Py_ssize_t i, n_need = self.node.size()
        cdef index_t node, h
        cdef double mean_plain = (<double> b.neg.n_plain_occurrences / <double> b.n_records
                                  if b.n_records > 0 else 0.0)
        self.cooc.assign(n_need, NULL)
        if b.feature_bits == NULL:
            return 0
        for i in range(n_need):
            node = self.node[i]
            if self.feature[i] >= 0 and memo.node_depth[node] == 0:
                h = self.feature[i]
            elif self.feature[i] < 0 and memo.node_depth[node] == 1:
                h = memo.node_feature[node]
            else:
                continue
            if (h < b.neg.n_plain
                    and <double> (b.f_indptr[h + 1] - b.f_indptr[h]) * mean_plain
                    >= COOCCURRENCE_FACTOR * <double> (b.n_rw + b.neg.n_plain)
                    and _cooccurrence_row(memo, h, b)):
                self.cooc[i] = memo.cooc_rows[h]
        return 0

    cdef void build(self, GreedyHeadMemo memo, Batch* b, Workspace* ws, index_t[:, :, ::1] pth,
                    int n_thr) noexcept:
        """Build the requested nodes' entries in parallel (paths recovered through the parents).

        The slots' role bitsets are filled first, serially: the threads share them.
        """
        cdef Py_ssize_t n_need = self.node.size(), i, k, n_path, keep
        cdef int tid
        cdef index_t node
        cdef bint child
        with nogil:
            if b.feature_bits != NULL:
                for i in range(n_need):
                    _ready_slot(b, self.slot[i])
            for i in prange(n_need, schedule="dynamic", num_threads=n_thr):
                tid = threadid()
                node = self.node[i]
                child = self.feature[i] >= 0
                # A child keeps its top_k best entries; a node rebuilt for the first time its
                # upgrade_top_k best, then every entry.
                if child:
                    keep = memo.top_k
                elif memo.node_length[node] < memo.upgrade_top_k:
                    keep = memo.upgrade_top_k
                else:
                    keep = b.n_features
                n_path = memo.node_depth[node]
                if child:
                    n_path = n_path + 1
                    pth[tid, 0, n_path - 1] = self.feature[i]
                    k = n_path - 2
                else:
                    k = n_path - 1
                while k >= 0:
                    pth[tid, 0, k] = memo.node_feature[node]
                    node = memo.node_parent[node]
                    k = k - 1
                self.count[i] = _build_entries(b.f_indptr, b.f_ids, b.r_indptr, b.r_ids,
                                               b.roles + self.slot[i] * b.roles_stride, memo.gamma, self.phi[i],
                                               &pth[tid, 0, 0], n_path, b.n_records, b.n_features,
                                               keep, memo.child_sorted if child else memo.sorted_prefix,
                                               b.feature_bits, _slot_bits(b, self.slot[i]), b.n_rw,
                                               &b.neg, &ws[tid], &self.items[i], &self.keep[i], &self.n_sorted[i],
                                               self.cooc[i])

    cdef int add_to(self, GreedyHeadMemo memo, double mean_length) except -1:
        """Add the built nodes to the trees (serial); returns 1 when a build failed, else 0.
        ``mean_length``: the records' mean number of features (see ``_order_rest``).

        The nodes that were built are added even then, and the caller reports
        the failure after the threads' counters are in the memo.
        """
        cdef Py_ssize_t i, n_need = self.node.size()
        cdef bint failed = False
        cdef index_t node
        for i in range(n_need):
            if self.count[i] < 0:
                failed = True
                continue
            node = self.node[i]
            if self.feature[i] >= 0:
                memo._add_node(node, self.feature[i], memo.node_depth[node] + 1, self.phi[i],
                               self.items[i], self.count[i], self.keep[i], self.n_sorted[i], mean_length)
            else:
                memo._upgrade_node(node, self.items[i], self.count[i], self.keep[i], self.n_sorted[i], mean_length)
            free(self.items[i])
            self.items[i] = NULL
        return 1 if failed else 0


cdef void _collect_counters(GreedyHeadMemo memo, Workspace* ws, int n_thr) noexcept:
    # The threads' counts of how nodes were counted and of direct last steps, into the memo.
    cdef int i
    for i in range(n_thr):
        memo.n_dense_counts += ws[i].n_dense
        memo.n_bitset_counts += ws[i].n_bitset
        memo.n_split_counts += ws[i].n_split
        memo.n_direct_steps += ws[i].n_direct
        memo.n_cooccurrence_counts += ws[i].n_cooc
        memo.n_lookup_steps += ws[i].n_lookup
        ws[i].n_cooc = 0
        ws[i].n_lookup = 0
        ws[i].n_dense = 0
        ws[i].n_bitset = 0
        ws[i].n_split = 0
        ws[i].n_direct = 0


cdef void _resume_waiting(Search* searches, Py_ssize_t n_jobs, GreedyHeadMemo memo) noexcept:
    # The searches that waited for a node go on from it (a built child, or their completed node).
    cdef Py_ssize_t j
    for j in range(n_jobs):
        if searches[j].status == 1:
            if searches[j].pending >= 0:
                searches[j].node = <index_t> memo.children.find(_child_key(searches[j].node, searches[j].pending))
            searches[j].pending = -1
            searches[j].status = 0


def popcount(const uint64_t[::1] words):
    """The number of bits set in ``words``, counted as node builds count (for tests).

    The loop is the one built twice (``CORSET_POPCNT_CLONES``): a test of it
    checks the clone this CPU runs against a reference count.
    """
    if words.shape[0] == 0:
        return 0
    return popcount_words(&words[0], words.shape[0])


def uses_wide_popcount(Py_ssize_t n_words):
    """Whether popcount loops over ``n_words`` words run an AVX-512 build on this CPU (for tests).

    The loops of node builds and direct last steps are also built for
    VPOPCNTQ: where the CPU has it, they take the 256-bit build from
    ``CORSET_WIDE_WORDS`` (8) words on and the 512-bit one from
    ``CORSET_WIDER_WORDS`` (24) on (``corset_wide_popcount`` in corset_bits.h).
    """
    return bool(wide_popcount(n_words))


def rule_counts_of(const uint64_t[::1] col, const uint64_t[::1] dh, const uint64_t[::1] dpos,
                   const uint64_t[::1] doth, Py_ssize_t lo, Py_ssize_t hi):
    """``(|col & dh|, |col & dpos|, |col & doth|)`` over words ``lo..hi``, counted as a direct last
    step counts a candidate (for tests: the scalar or the wide build, by the span)."""
    cdef int64_t pos = 0, other = 0, total
    if not (0 <= lo and hi < col.shape[0] and hi < dh.shape[0] and hi < dpos.shape[0] and hi < doth.shape[0]):
        raise ValueError("rule_counts_of: words lo..hi outside the bitsets")
    if hi < lo:
        return 0, 0, 0
    total = rule_counts(&col[0], &dh[0], &dpos[0], &doth[0], lo, hi, &pos, &other)
    return int(total), int(pos), int(other)


def greedy_heads_memo(GreedyHeadMemo memo,
                      const ptr_t[::1] f_indptr, const index_t[::1] f_ids,
                      const ptr_t[::1] r_indptr, const index_t[::1] r_ids,
                      const ptr_t[::1] cand_indptr, const index_t[::1] cand_ids,
                      const uint8_t[:, ::1] roles, const ptr_t[::1] n_positive,
                      index_t[::1] roots,
                      const index_t[::1] job_tail, const index_t[::1] job_pos, const index_t[::1] job_neg,
                      double epsilon, bint difference, Py_ssize_t min_length, Py_ssize_t max_length,
                      int n_threads, const uint64_t[::1] record_bits=None, Py_ssize_t n_words=0,
                      const uint64_t[::1] feature_bits=None, Py_ssize_t n_record_words=0,
                      const index_t[::1] negated=None, const ptr_t[::1] r_plain_end=None,
                      const ptr_t[::1] slot_indptr=None, const index_t[::1] slot_ids=None):
    """Algorithm 5 for a batch of jobs through the memo; the heads as CSR ``(indptr, ids)``.

    The same jobs and outputs as :func:`corset._ext._gh.greedy_heads` with
    ``normalise=False`` (gamma is the memo's).  ``roots[t]`` is the root node
    of tail slot t, or -1: then the root is built here (one pass over the
    records with role 1 or 0 of the slot, the negatives being the rest of
    D[{h}]) and its id written back into ``roots``.

    ``record_bits`` (optional) holds F_D of every record as ``n_words``
    uint64 words (bit ``h & 63`` of word ``h >> 6``; as built by
    :func:`corset._ext._heads.feature_bitsets`): with it, a search seeded
    by a pair of records reads its candidates from their bitsets instead of
    stamping their features into the thread's arrays.  The heads are the same.

    ``feature_bits`` (optional) holds D[{h}] of every feature as
    ``n_record_words`` uint64 words (bit ``r & 63`` of word ``r >> 6``; the
    same layout, built from the feature index): with it, D[H] is the AND of
    its features' bitsets, and node builds whose records hold many more
    feature occurrences than there are (feature, word) pairs (estimated from
    the mean record length) count by popcounts (``BITSET_FACTOR``).  With
    both ``record_bits`` and ``feature_bits``, on dense records, a search's
    last step with few candidates is made without its node
    (``LAST_STEP_DENSITY``, ``LAST_STEP_READS``).  The heads are the same.

    ``negated`` (optional): the last ``negated.shape[0]`` features are the
    literals "NOT negated[i]" (``BinaryData.with_negations``), and
    ``r_plain_end[r]`` is where record r's plain features end in ``r_ids``
    (rows sorted, so they come first).  Node builds then scan only the
    plain features and count each negated literal as the complement of its
    feature in D[H].  The heads are the same.

    ``slot_indptr``, ``slot_ids`` (optional, CSR): per slot, its records of
    role 1 or 0, sorted, and no other; roots and the slots' role bitsets are
    then made from them instead of from a pass over every record's role
    byte (large data, where D_T^+ is a small share of the records).  The
    heads are the same.
    """
    cdef Py_ssize_t n_jobs = job_tail.shape[0], n_slots = roles.shape[0]
    cdef Py_ssize_t n_features = memo.n_features, n_records = memo.n_records, j
    cdef int n_thr = max(n_threads, 1), failed
    cdef Batch b
    if n_jobs == 0:
        return np.zeros(1, dtype=np.int64), np.empty(0, dtype=np.int32)
    if max_length < 0 or max_length > n_features:
        max_length = n_features   # a head has at most n_features features
    _check_inputs(memo, roots, n_slots, record_bits, n_words, feature_bits, n_record_words)

    b.f_indptr = &f_indptr[0]
    b.f_ids = &f_ids[0] if f_ids.shape[0] > 0 else NULL
    b.r_indptr = &r_indptr[0]
    b.r_ids = &r_ids[0] if r_ids.shape[0] > 0 else NULL
    b.roles = &roles[0, 0] if roles.shape[0] > 0 and roles.shape[1] > 0 else NULL
    b.roles_stride = roles.strides[0]
    b.n_positive = &n_positive[0] if n_positive.shape[0] > 0 else NULL
    b.job_tail = &job_tail[0]
    b.job_pos = &job_pos[0]
    b.job_neg = &job_neg[0]
    b.n_jobs = n_jobs
    b.n_slots = n_slots
    b.n_features = n_features
    b.n_records = n_records
    b.min_length = min_length
    b.max_length = max_length
    b.epsilon = epsilon
    b.record_bits = &record_bits[0] if record_bits is not None and record_bits.shape[0] > 0 else NULL
    b.n_words = n_words
    b.feature_bits = NULL
    b.n_rw = 0
    if feature_bits is not None and feature_bits.shape[0] > 0 and n_features > 0 and n_records > 0:
        b.feature_bits = &feature_bits[0]
        b.n_rw = n_record_words
    b.mean_length = <double> r_indptr[n_records] / <double> n_records if n_records > 0 else 0.0
    b.neg.n_negated = 0
    b.neg.n_plain = n_features
    b.neg.negated = NULL
    b.neg.literal_of = NULL
    b.neg.r_plain_end = NULL
    b.neg.n_plain_occurrences = r_indptr[n_records]
    cdef index_t[::1] literal_of
    if negated is not None and negated.shape[0] > 0:
        check_negations(negated, r_plain_end, r_indptr, r_ids, n_features, n_records)
        b.neg.n_negated = negated.shape[0]
        b.neg.n_plain = n_features - negated.shape[0]
        b.neg.negated = &negated[0]
        literal_of_buf = np.full(b.neg.n_plain, -1, dtype=np.int32)
        literal_of = literal_of_buf
        b.neg.literal_of = &literal_of[0]
        for j in range(b.neg.n_negated):
            if literal_of[negated[j]] >= 0:
                b.neg.literal_of = NULL   # a feature negated twice: the literals are visited one by one
                break
            literal_of[negated[j]] = <index_t> j
        b.neg.r_plain_end = &r_plain_end[0]
        b.neg.n_plain_occurrences = 0
        for j in range(n_records):
            b.neg.n_plain_occurrences += r_plain_end[j] - r_indptr[j]
    # Each slot's role bitsets, filled when the slot first needs them (most slots never do).
    b.slot_row = max(b.n_rw, 1)
    slot_bits = np.zeros((max(n_slots, 1), 2, b.slot_row), dtype=np.uint64)
    slot_ready = np.zeros(max(n_slots, 1), dtype=np.uint8)
    direct_slots = np.zeros(max(n_slots, 1), dtype=np.uint8)
    cdef uint64_t[:, :, ::1] slot_bits_v = slot_bits
    cdef uint8_t[::1] slot_ready_v = slot_ready, direct_v = direct_slots
    b.slot_bits = &slot_bits_v[0, 0, 0]
    b.slot_ready = &slot_ready_v[0]
    b.direct = &direct_v[0]
    b.slot_indptr = NULL
    b.slot_ids = NULL
    if slot_indptr is not None:
        _check_slot_records(slot_indptr, slot_ids, roles)
        b.slot_indptr = &slot_indptr[0]
        b.slot_ids = &slot_ids[0] if slot_ids.shape[0] > 0 else NULL

    _build_roots(memo, f_indptr, r_indptr, r_ids, roles, roots, &b)

    # Candidates of each job: F_{D+} (minus F_{D-}), or the tail's list.  A search
    # visits at most min(max_length, |candidates|) features: room for that many.
    cand_off = np.zeros(n_jobs + 1, dtype=np.int64)
    cdef ptr_t[::1] coff = cand_off
    job_candidate_offsets(job_tail, job_pos, r_indptr, cand_indptr, coff)
    visit_off = np.zeros(n_jobs + 1, dtype=np.int64)
    cdef ptr_t[::1] voff = visit_off
    for j in range(n_jobs):
        voff[j + 1] = voff[j] + min(max_length, coff[j + 1] - coff[j])
    visited_buf = np.empty(max(voff[n_jobs], 1), dtype=np.int32)
    scores_buf = np.empty(max(voff[n_jobs], 1), dtype=np.float64)
    cdef index_t[::1] visited_v = visited_buf
    cdef double[::1] scores_v = scores_buf
    b.voff = &voff[0]
    b.visited = &visited_v[0]
    b.scores = &scores_v[0]
    # Per-thread workspaces (stamps need no reset: a key's stamps are rewritten when it changes).
    cdef vector[Workspace] ws
    ws.resize(n_thr)
    workspace_arrays = _workspaces(&ws[0], n_thr, n_features, n_records, max_length, b.n_rw)
    cdef index_t[:, :, ::1] pth = workspace_arrays[0]

    cand_bits_buf = np.zeros(max(n_jobs * n_words if b.record_bits != NULL else 1, 1), dtype=np.uint64)
    cdef uint64_t[::1] cand_bits_v = cand_bits_buf
    cdef vector[Search] searches
    searches.resize(n_jobs)
    with nogil:
        _start_searches(&searches[0], &b, roots, coff, cand_indptr,
                        &cand_ids[0] if cand_ids.shape[0] > 0 else NULL, difference, &cand_bits_v[0])
        if b.feature_bits != NULL:
            # The slots of direct last steps need their role bitsets from the first round on.
            for j in range(n_slots):
                if b.direct[j]:
                    _ready_slot(&b, j)

    # Rounds: advance every search as far as the trees allow, then build the nodes they wait for.
    cdef _Requests requests = _Requests()
    while True:
        _advance_all(&searches[0], memo, &b, &ws[0], n_thr)
        if requests.collect(&searches[0], &b, memo) == 0:
            break
        requests.rows(memo, &b)
        requests.build(memo, &b, &ws[0], pth, n_thr)
        failed = requests.add_to(memo, b.mean_length)
        _collect_counters(memo, &ws[0], n_thr)
        if failed:
            raise MemoryError("greedy_heads_memo: could not allocate a node")
        _resume_waiting(&searches[0], n_jobs, memo)
    _collect_counters(memo, &ws[0], n_thr)   # the direct last steps of the last round
    return _best_prefixes(&searches[0], n_jobs, voff, visited_v, scores_v, min_length)
