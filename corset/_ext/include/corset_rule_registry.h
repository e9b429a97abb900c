/* The rule registry: an open-addressing hash table over an arena of rule records (C++; used by _rule_registry.pyx). */
#ifndef CORSET_RULE_REGISTRY_H
#define CORSET_RULE_REGISTRY_H

#include <Python.h>   /* Py_ssize_t */
#include <new>
#include <stdint.h>
#include <string.h>
#include <vector>

/* A rule's record in the arena: CORSET_REC_HEADER header words, then its
   head ids, then its tail ids.  The int64 fields take two words each
   (read and written with memcpy: the arena is an int32 array). */
enum {
    CORSET_REC_HEAD_LEN = 0,   /* number of head ids */
    CORSET_REC_TAIL_LEN = 1,   /* number of tail ids */
    CORSET_REC_NUMBER = 2,     /* int64: the rule's number */
    CORSET_REC_LAST_CALL = 4,  /* int64: the last register_pool call that kept it (-1: none) */
    CORSET_REC_CHOSEN = 6,     /* 1 once marked chosen */
    CORSET_REC_HEADER = 7
};

/* A slot of the hash table: a rule's hash and the arena position of its
   record (-1: empty). */
struct corset_slot {
    uint64_t hash;
    int64_t record;
};

static inline int64_t corset_get64(const int32_t* p) { int64_t v; memcpy(&v, p, sizeof v); return v; }
static inline void corset_set64(int32_t* p, int64_t v) { memcpy(p, &v, sizeof v); }

static inline uint64_t corset_mix(uint64_t h, uint64_t v) {
    h = (h ^ v) * 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 29);
}

/* A 64-bit hash of a rule: a multiply-xorshift mix per id, seeded by the
   head and tail lengths (the head/tail boundary is part of the key),
   finished by MurmurHash3's fmix64 so that the low bits (the home slot)
   depend on every id. */
static inline uint64_t corset_rule_hash(const int32_t* head, int64_t head_len,
                                        const int32_t* tail, int64_t tail_len) {
    uint64_t h = corset_mix(corset_mix(0x243F6A8885A308D3ULL, static_cast<uint64_t>(head_len)),
                            static_cast<uint64_t>(tail_len));
    for (int64_t i = 0; i < head_len; ++i) h = corset_mix(h, static_cast<uint32_t>(head[i]));
    for (int64_t i = 0; i < tail_len; ++i) h = corset_mix(h, static_cast<uint32_t>(tail[i]));
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDULL;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ULL;
    h ^= h >> 33;
    return h;
}

/* Grow a vector geometrically so that ``extra`` more elements fit
   (reserve alone would grow it to the exact size: quadratic appends). */
template <class T>
static inline void corset_reserve_more(std::vector<T>& v, size_t extra) {
    size_t need = v.size() + extra;
    if (need > v.capacity())
        v.reserve(need > 2 * v.capacity() ? need : 2 * v.capacity());
}

/* The distinct rules, numbered 0, 1, 2, ... in order of first appearance. */
class corset_rule_table {
  public:
    std::vector<int32_t> arena;      /* every rule's record, in number order */
    std::vector<int64_t> offsets;    /* per number: the arena position of its record */
    std::vector<corset_slot> slots;  /* power-of-two capacity (or none yet) */

    size_t size() const { return offsets.size(); }

    /* Forget every rule, releasing the memory. */
    void clear() {
        std::vector<int32_t>().swap(arena);
        std::vector<int64_t>().swap(offsets);
        std::vector<corset_slot>().swap(slots);
    }

    /* The record of rule ``number`` (0 <= number < size(); checked by the caller). */
    int32_t* record_of(int64_t number) { return &arena[static_cast<size_t>(offsets[number])]; }

    /* Hints for a lookup to come (corset_batch_pipeline): load the home
       slot of ``hash``; load the record that a slot already loaded points
       to.  They change nothing. */
    void prefetch_slot(uint64_t hash) const {
        if (!slots.empty())
            __builtin_prefetch(&slots[hash & (slots.size() - 1)]);
    }
    void prefetch_record(uint64_t hash) const {
        if (slots.empty())
            return;
        const corset_slot& s = slots[hash & (slots.size() - 1)];
        if (s.hash == hash && s.record >= 0) {
            /* Its header and its first ids: a record may straddle two cache lines. */
            const size_t at = static_cast<size_t>(s.record), last = arena.size() - 1;
            __builtin_prefetch(arena.data() + at, 1);
            __builtin_prefetch(arena.data() + (at + 15 < last ? at + 15 : last), 1);
        }
    }

    /* The arena position of the record of rule (head, tail) of hash
       ``hash`` (corset_rule_hash), adding the rule when new.  Throws
       std::bad_alloc when memory runs out (or for a head or tail of more
       than INT32_MAX ids, which a record cannot hold), leaving the same
       rules and numbers as before the call: only the slots may have been
       rehashed into a larger array. */
    int64_t find_or_add(uint64_t hash, const int32_t* head, int64_t head_len,
                        const int32_t* tail, int64_t tail_len) {
        size_t i = 0;
        if (!slots.empty()) {
            const size_t mask = slots.size() - 1;
            for (i = hash & mask;; i = (i + 1) & mask) {
                const corset_slot& s = slots[i];
                if (s.record < 0)
                    break;  /* not in the table; i is a free slot */
                if (s.hash == hash && same(s.record, head, head_len, tail, tail_len))
                    return s.record;
            }
        }
        /* A new rule.  Everything that can throw (rehash, reservations)
           comes before the first change to the rules. */
        if (head_len > INT32_MAX || tail_len > INT32_MAX)
            throw std::bad_alloc();
        const size_t n = offsets.size();
        if (8 * (n + 1) > 5 * slots.size()) {
            grow();
            const size_t mask = slots.size() - 1;
            for (i = hash & mask; slots[i].record >= 0; i = (i + 1) & mask) {}
        }
        const size_t words = CORSET_REC_HEADER + static_cast<size_t>(head_len + tail_len);
        corset_reserve_more(offsets, 1);
        corset_reserve_more(arena, words);
        const int64_t at = static_cast<int64_t>(arena.size());
        arena.resize(arena.size() + words);  /* within capacity: cannot throw */
        int32_t* rec = &arena[static_cast<size_t>(at)];
        rec[CORSET_REC_HEAD_LEN] = static_cast<int32_t>(head_len);
        rec[CORSET_REC_TAIL_LEN] = static_cast<int32_t>(tail_len);
        corset_set64(rec + CORSET_REC_NUMBER, static_cast<int64_t>(n));
        corset_set64(rec + CORSET_REC_LAST_CALL, -1);
        rec[CORSET_REC_CHOSEN] = 0;
        if (head_len > 0)  /* head and tail may be NULL for an empty batch of ids */
            memcpy(rec + CORSET_REC_HEADER, head, static_cast<size_t>(head_len) * sizeof(int32_t));
        if (tail_len > 0)
            memcpy(rec + CORSET_REC_HEADER + head_len, tail, static_cast<size_t>(tail_len) * sizeof(int32_t));
        offsets.push_back(at);  /* within capacity */
        slots[i].hash = hash;
        slots[i].record = at;
        return at;
    }

  private:
    /* Whether the record at ``at`` holds rule (head, tail). */
    bool same(int64_t at, const int32_t* head, int64_t head_len, const int32_t* tail, int64_t tail_len) const {
        const int32_t* rec = &arena[static_cast<size_t>(at)];
        if (rec[CORSET_REC_HEAD_LEN] != head_len || rec[CORSET_REC_TAIL_LEN] != tail_len)
            return false;
        const int32_t* ids = rec + CORSET_REC_HEADER;
        for (int64_t k = 0; k < head_len; ++k)
            if (ids[k] != head[k]) return false;
        ids += head_len;
        for (int64_t k = 0; k < tail_len; ++k)
            if (ids[k] != tail[k]) return false;
        return true;
    }

    /* Double the slots (64 at first), placing every rule by its stored
       hash.  Throws std::bad_alloc before any change. */
    void grow() {
        const size_t capacity = slots.empty() ? 64 : 2 * slots.size();
        corset_slot empty = {0, -1};
        std::vector<corset_slot> fresh(capacity, empty);
        const size_t mask = capacity - 1;
        for (size_t j = 0; j < slots.size(); ++j) {
            if (slots[j].record < 0)
                continue;
            size_t i = slots[j].hash & mask;
            while (fresh[i].record >= 0)
                i = (i + 1) & mask;
            fresh[i] = slots[j];
        }
        slots.swap(fresh);
    }
};

/* A software pipeline over the rules of a batch, so that the cache
   misses of successive lookups overlap instead of following one another:
   when rule r is looked up, rule r + 2D has been hashed and its home slot
   prefetched, and rule r + D's slot (loaded by then) has had its record
   prefetched.  Lookups still happen in batch order; a prefetch made stale
   by an insertion or a rehash only costs a wasted load. */
class corset_batch_pipeline {
  public:
    enum { D = 8, RING = 32 };  /* RING: a power of two > 2 * D */

    corset_batch_pipeline(const corset_rule_table* table,
                          const int64_t* head_indptr, const int32_t* head_ids,
                          const int64_t* tail_indptr, const int32_t* tail_ids, Py_ssize_t n_rules)
        : table_(table), hp_(head_indptr), hi_(head_ids), tp_(tail_indptr), ti_(tail_ids), n_(n_rules) {
        for (Py_ssize_t r = 0; r < 2 * D && r < n_; ++r)
            stage(r);
        for (Py_ssize_t r = 0; r < D && r < n_; ++r)
            table_->prefetch_record(ring_[r & (RING - 1)]);
    }

    /* The hash of rule r (called for r = 0, 1, 2, ... in order). */
    uint64_t hash(Py_ssize_t r) {
        if (r + 2 * D < n_)
            stage(r + 2 * D);
        if (r + D < n_)
            table_->prefetch_record(ring_[(r + D) & (RING - 1)]);
        return ring_[r & (RING - 1)];
    }

  private:
    void stage(Py_ssize_t r) {
        uint64_t h = corset_rule_hash(hi_ + hp_[r], hp_[r + 1] - hp_[r], ti_ + tp_[r], tp_[r + 1] - tp_[r]);
        ring_[r & (RING - 1)] = h;
        table_->prefetch_slot(h);
    }

    const corset_rule_table* table_;
    const int64_t* hp_;
    const int32_t* hi_;
    const int64_t* tp_;
    const int32_t* ti_;
    Py_ssize_t n_;
    uint64_t ring_[RING];
};

/* The number of every rule of a batch.  Returns 0, or -1 when memory ran
   out (the rules registered before the failing one stay registered; the
   table is otherwise as it was). */
static int corset_register_rules(corset_rule_table* table,
                                 const int64_t* head_indptr, const int32_t* head_ids,
                                 const int64_t* tail_indptr, const int32_t* tail_ids,
                                 Py_ssize_t n_rules, int64_t* out) {
    try {
        corset_batch_pipeline pipeline(table, head_indptr, head_ids, tail_indptr, tail_ids, n_rules);
        for (Py_ssize_t r = 0; r < n_rules; ++r) {
            const int64_t h0 = head_indptr[r], t0 = tail_indptr[r];
            int64_t at = table->find_or_add(pipeline.hash(r), head_ids + h0, head_indptr[r + 1] - h0,
                                            tail_ids + t0, tail_indptr[r + 1] - t0);
            out[r] = corset_get64(&table->arena[static_cast<size_t>(at)] + CORSET_REC_NUMBER);
        }
        return 0;
    } catch (const std::bad_alloc&) {
        return -1;
    }
}

/* register_pool's core: number every rule of a pool, keep the first
   occurrence of each (pool order) in the output CSR, and flag it 1 when
   its number is new (>= n_before) and 2 when it is a chosen rule.
   ``call`` numbers this call (> 0, a new value every call): a rule
   whose record's last call is ``call`` repeats an earlier candidate of
   the pool.  The output arrays are sized for the whole pool.  Returns the
   number of rules kept, or -1 when memory ran out (as for
   corset_register_rules). */
static Py_ssize_t corset_register_pool(corset_rule_table* table, int64_t call,
                                       const int64_t* head_indptr, const int32_t* head_ids,
                                       const int64_t* tail_indptr, const int32_t* tail_ids,
                                       Py_ssize_t n_rules,
                                       int64_t* out_head_indptr, int32_t* out_head_ids,
                                       int64_t* out_tail_indptr, int32_t* out_tail_ids,
                                       int64_t* out_numbers, unsigned char* out_flags) {
    try {
        corset_batch_pipeline pipeline(table, head_indptr, head_ids, tail_indptr, tail_ids, n_rules);
        const int64_t n_before = static_cast<int64_t>(table->size());
        Py_ssize_t kept = 0;
        out_head_indptr[0] = 0;
        out_tail_indptr[0] = 0;
        for (Py_ssize_t r = 0; r < n_rules; ++r) {
            const int64_t h0 = head_indptr[r], h1 = head_indptr[r + 1];
            const int64_t t0 = tail_indptr[r], t1 = tail_indptr[r + 1];
            int64_t at = table->find_or_add(pipeline.hash(r), head_ids + h0, h1 - h0, tail_ids + t0, t1 - t0);
            int32_t* rec = &table->arena[static_cast<size_t>(at)];  /* valid until the next insertion */
            if (corset_get64(rec + CORSET_REC_LAST_CALL) == call)
                continue;  /* repeats an earlier candidate of this pool */
            corset_set64(rec + CORSET_REC_LAST_CALL, call);
            const int64_t number = corset_get64(rec + CORSET_REC_NUMBER);
            int64_t h = out_head_indptr[kept], t = out_tail_indptr[kept];
            for (int64_t p = h0; p < h1; ++p) out_head_ids[h++] = head_ids[p];
            for (int64_t p = t0; p < t1; ++p) out_tail_ids[t++] = tail_ids[p];
            out_head_indptr[kept + 1] = h;
            out_tail_indptr[kept + 1] = t;
            out_numbers[kept] = number;
            out_flags[kept] = (number >= n_before ? 1 : 0) | (rec[CORSET_REC_CHOSEN] ? 2 : 0);
            ++kept;
        }
        return kept;
    } catch (const std::bad_alloc&) {
        return -1;
    }
}

/* Mark rule ``number`` chosen (0 <= number < size(); checked by the caller). */
static void corset_mark_chosen(corset_rule_table* table, int64_t number) {
    table->record_of(number)[CORSET_REC_CHOSEN] = 1;
}

/* Rule ``number``'s ids (head ids, then tail ids) and its lengths
   (0 <= number < size(); checked by the caller). */
static const int32_t* corset_rule_ids(corset_rule_table* table, int64_t number,
                                      int64_t* head_len, int64_t* tail_len) {
    const int32_t* rec = table->record_of(number);
    *head_len = rec[CORSET_REC_HEAD_LEN];
    *tail_len = rec[CORSET_REC_TAIL_LEN];
    return rec + CORSET_REC_HEADER;
}

#endif /* CORSET_RULE_REGISTRY_H */
