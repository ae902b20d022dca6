// SPDX-License-Identifier: Apache-2.0
// CountTables over real kernel hash maps (made here, not by a skeleton): a round drains the
// retired table exactly once, every entry with its value, and leaves it empty.
#include "output/sinks.h"

#include <bpf/bpf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <map>

#include "test_support.h"

namespace {

struct Key {
    uint64_t id;
    uint8_t rest[24];
};
struct Value {
    uint64_t count, total;
};

struct HashMap {
    int fd = -1;
    HashMap() {
        LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = BPF_F_NO_PREALLOC);
        fd = bpf_map_create(BPF_MAP_TYPE_HASH, "vtscope_test", sizeof(Key), sizeof(Value), 65536, &opts);
    }
    ~HashMap() {
        if (fd >= 0) close(fd);
    }
    void put(uint64_t id, uint64_t count) const {
        Key k{};
        k.id = id;
        std::memset(k.rest, static_cast<int>(id & 0xff), sizeof(k.rest));
        Value v{count, 10 * count};
        ASSERT_EQ(bpf_map_update_elem(fd, &k, &v, BPF_NOEXIST), 0);
    }
    vtscope::CountTable table() const { return {fd, sizeof(Key), sizeof(Value)}; }
};

}  // namespace

TEST(CountTables, EachRoundDrainsTheRetiredTableOnceAndEmptiesIt) {
    REQUIRE_BPF();
    HashMap t0, t1;
    ASSERT_GE(t0.fd, 0) << std::strerror(errno);
    ASSERT_GE(t1.fd, 0) << std::strerror(errno);
    std::map<uint64_t, Value> seen;
    uint64_t calls = 0;
    volatile uint32_t generation = 0;
    vtscope::CountTables tables(t0.table(), t1.table(), &generation, [&](auto key, auto value) {
        ASSERT_EQ(key.size(), sizeof(Key));
        ASSERT_EQ(value.size(), sizeof(Value));
        Key k;
        Value v;
        std::memcpy(&k, key.data(), sizeof(k));
        std::memcpy(&v, value.data(), sizeof(v));
        EXPECT_EQ(k.rest[23], static_cast<uint8_t>(k.id & 0xff));
        seen[k.id].count += v.count;
        seen[k.id].total += v.total;
        calls++;
    });
    // Generation 0: the BPF side writes table 0, so a round drains table 1 (more entries than one batch).
    for (uint64_t id = 1; id <= 5000; id++) t1.put(id, id);
    t0.put(9000, 1);
    tables.rotate();
    EXPECT_TRUE(tables.batched()) << "the kernel refused BPF_MAP_LOOKUP_AND_DELETE_BATCH";
    EXPECT_EQ(generation, 1u);
    EXPECT_EQ(calls, 5000u);
    ASSERT_EQ(seen.size(), 5000u);
    for (uint64_t id = 1; id <= 5000; id++) EXPECT_EQ(seen[id].total, 10 * id) << id;
    Key k{};
    EXPECT_NE(bpf_map_get_next_key(t1.fd, nullptr, &k), 0) << "table 1 is empty after its drain";
    // At the end both are drained: table 0's entry, and table 1's new one.
    t1.put(9001, 2);
    tables.drain_all();
    EXPECT_EQ(calls, 5002u);
    EXPECT_EQ(seen[9000].count, 1u);
    EXPECT_EQ(seen[9001].count, 2u);
}
