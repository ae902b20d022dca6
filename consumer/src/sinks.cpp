#include "sinks.h"

#include <bpf/bpf.h>

#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

namespace vtscope {

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

void CountTables::drain(bpf_map* table) {
    int fd = bpf_map__fd(table);
    std::vector<uint8_t> key(bpf_map__key_size(table)), value(bpf_map__value_size(table));
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
