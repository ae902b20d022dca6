// SPDX-License-Identifier: Apache-2.0
// The two ways an event source's results leave the kernel, apart from any one source:
// RingBufferReader streams records (the JSON-lines sinks: vtscope trace) and CountTables drains
// in-kernel counts (vtscope stat). A source pairs its BPF program with one of them and says how a
// record or a count becomes output.
#pragma once

#include <bpf/libbpf.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>

#include "core/expected.h"

namespace vtscope {

class RingBufferReader {
public:
    // Bytes consumed per poll at most: about 47,000 syscall events (records hold up to eight).
    static constexpr size_t kBatchBytes = 4 << 20;
    using Handler = std::function<void(std::span<const uint8_t> record)>;
    static Expected<std::unique_ptr<RingBufferReader>> open(bpf_map* ring, Handler handler);
    ~RingBufferReader();

    // Waits at most timeout for a wake-up, then consumes what is pending, at most kBatchBytes,
    // so that writers faster than the reader cannot keep it from checking its stop conditions.
    // The BPF side wakes the reader only once data piles up, so a poll that times out still drains.
    Status poll(std::chrono::milliseconds timeout);
    // After the programs are detached: consumes what is left, including a record that a handler
    // still running on another CPU submits just after the detach.
    void drain();

private:
    RingBufferReader(Handler handler) : handler_(std::move(handler)) {}
    static int on_record(void* ctx, void* data, size_t size);
    Status consume_batch();
    Handler handler_;
    size_t batch_ = 0;
    ring_buffer* ring_ = nullptr;
};

// One hash table of counts: its descriptor and sizes (of a skeleton's map, or one a test made).
struct CountTable {
    int fd = -1;
    size_t key_size = 0, value_size = 0;
    static CountTable of(const bpf_map* map) {
        return {bpf_map__fd(map), bpf_map__key_size(map), bpf_map__value_size(map)};
    }
};

// Two hash tables of counts, one written by the BPF side (chosen by the low bit of a generation
// word in its .bss) while user space drains the other, so a long run never fills them.
class CountTables {
public:
    using Drain = std::function<void(std::span<const uint8_t> key, std::span<const uint8_t> value)>;
    CountTables(CountTable table0, CountTable table1, volatile uint32_t* generation, Drain drain)
        : tables_{table0, table1}, generation_(generation), drain_(std::move(drain)) {}
    CountTables(const bpf_map* table0, const bpf_map* table1, volatile uint32_t* generation, Drain drain)
        : CountTables(CountTable::of(table0), CountTable::of(table1), generation, std::move(drain)) {}

    // Every sync round: drains the table retired at the previous round (at least one round ago,
    // so no program still writes it), then makes it the active one and retires the other.
    // before_switch runs between the two (a source clears what belongs to the drained table).
    void rotate(const std::function<void()>& before_switch = {});
    // After the programs are detached: drains both.
    void drain_all();
    // Whether the kernel took batched drains (false after it refused one: entry by entry then).
    bool batched() const { return batches_supported_; }

private:
    void drain(const CountTable& table);
    bool drain_batched(const CountTable& table);
    bool batches_supported_ = true;
    CountTable tables_[2];
    volatile uint32_t* generation_;
    Drain drain_;
};

}  // namespace vtscope
