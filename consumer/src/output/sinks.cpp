// SPDX-License-Identifier: Apache-2.0
#include "output/sinks.h"

#include <bpf/bpf.h>

#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

namespace vtscope {

namespace {
// The kernel's ENOTSUPP (include/linux/errno.h), which bpf syscalls can return; not in libc.
constexpr int ENOTSUPP_LINUX = 524;
}  // namespace

Expected<std::unique_ptr<RingBufferReader>> RingBufferReader::open(bpf_map* ring, Handler handler) {
    std::unique_ptr<RingBufferReader> reader(new RingBufferReader(std::move(handler)));
    reader->ring_ = ring_buffer__new(bpf_map__fd(ring), &RingBufferReader::on_record, reader.get(), nullptr);
    if (!reader->ring_) return make_error(std::string("cannot create the ring buffer reader: ") + std::strerror(errno));
    return reader;
}

RingBufferReader::~RingBufferReader() { ring_buffer__free(ring_); }

namespace {
// Returned by the callback once a batch is full: libbpf's ringbuf_process_ring has then already
// advanced its consumer position past that record, commits it and stops (libbpf src/ringbuf.c).
constexpr int kBatchFull = -EINPROGRESS;
}  // namespace

int RingBufferReader::on_record(void* ctx, void* data, size_t size) {
    auto* self = static_cast<RingBufferReader*>(ctx);
    self->handler_({static_cast<const uint8_t*>(data), size});
    self->batch_ += size;
    return self->batch_ >= kBatchBytes ? kBatchFull : 0;
}

Status RingBufferReader::consume_batch() {
    int n = ring_buffer__consume(ring_);
    if (n < 0 && n != kBatchFull && n != -EINTR)
        return make_error(std::string("reading the ring buffer failed: ") + std::strerror(-n));
    return ok_status();
}

Status RingBufferReader::poll(std::chrono::milliseconds timeout) {
    batch_ = 0;
    int n = ring_buffer__poll(ring_, static_cast<int>(timeout.count()));
    if (n < 0 && n != kBatchFull && n != -EINTR)
        return make_error(std::string("reading the ring buffer failed: ") + std::strerror(-n));
    if (batch_ < kBatchBytes) return consume_batch();
    return ok_status();
}

void RingBufferReader::drain() {
    // Nothing produces any more (the programs are detached), so this ends.
    auto consume_all = [this] {
        do batch_ = 0;
        while (ring_buffer__consume(ring_) == kBatchFull);
    };
    consume_all();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    consume_all();
}

// One syscall per kBatchEntries entries (BPF_MAP_LOOKUP_AND_DELETE_BATCH, Linux 5.6) instead of
// three per entry: with a trace per request nearly every entry is new at each round. False when
// the kernel refuses batches for this map before anything was drained (the caller then drains
// entry by entry), or after a failure part-way (what is left is drained the same way).
bool CountTables::drain_batched(const CountTable& table) {
    constexpr uint32_t kBatchEntries = 1024;
    int fd = table.fd;
    size_t key_size = table.key_size, value_size = table.value_size;
    std::vector<uint8_t> keys(kBatchEntries * key_size), values(kBatchEntries * value_size);
    uint64_t in_batch = 0, out_batch = 0;  // the hash map's token: a bucket index (kernel/bpf/hashtab.c)
    bool first = true;
    while (true) {
        uint32_t count = kBatchEntries;
        int err = bpf_map_lookup_and_delete_batch(fd, first ? nullptr : &in_batch, &out_batch, keys.data(),
                                                  values.data(), &count, nullptr);
        int error = err < 0 ? errno : 0;
        // The last call ends with ENOENT and still returns what it read; so can other errors
        // (not EFAULT, which this buffer cannot cause).
        if (error != EFAULT)
            for (uint32_t i = 0; i < count && i < kBatchEntries; i++)
                drain_({keys.data() + i * key_size, key_size}, {values.data() + i * value_size, value_size});
        if (error == ENOENT) return true;
        if (error != 0) {
            if (first && count == 0 && (error == EINVAL || error == ENOTSUPP_LINUX || error == EOPNOTSUPP))
                batches_supported_ = false;
            return false;
        }
        in_batch = out_batch;
        first = false;
    }
}

void CountTables::drain(const CountTable& table) {
    if (batches_supported_ && drain_batched(table)) return;
    int fd = table.fd;
    std::vector<uint8_t> key(table.key_size), value(table.value_size);
    std::vector<std::vector<uint8_t>> drained;
    while (bpf_map_get_next_key(fd, drained.empty() ? nullptr : drained.back().data(), key.data()) == 0) {
        drained.push_back(key);
        if (bpf_map_lookup_elem(fd, key.data(), value.data()) != 0) continue;
        drain_(key, value);
    }
    for (const auto& k : drained) bpf_map_delete_elem(fd, k.data());
}

void CountTables::rotate(const std::function<void()>& before_switch) {
    uint32_t generation = __atomic_load_n(generation_, __ATOMIC_RELAXED);
    drain(tables_[(generation & 1) ? 0 : 1]);
    if (before_switch) before_switch();
    __atomic_store_n(generation_, generation + 1, __ATOMIC_RELEASE);
}

void CountTables::drain_all() {
    drain(tables_[0]);
    drain(tables_[1]);
}

}  // namespace vtscope
