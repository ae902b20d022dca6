// Read-only access to another process's memory. The consumer never writes the target: every
// read goes through process_vm_readv and is checked for a short or failed transfer.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <span>
#include <string>

#include "expected.h"

namespace vtscope {

// One read of a batch: exactly size bytes at address into out; ok says whether it was done.
struct ReadRequest {
    uint64_t address = 0;
    void* out = nullptr;
    size_t size = 0;
    bool ok = false;
};

class MemoryReader {
public:
    virtual ~MemoryReader() = default;
    // Reads exactly size bytes at address; false on any failure (unmapped, short read).
    virtual bool read(uint64_t address, void* out, size_t size) const = 0;

    template <typename T>
    bool read_value(uint64_t address, T& out) const {
        return read(address, &out, sizeof(T));
    }
    // Every request, in order, as read() would do it one by one; a reader that can do several in
    // one call (ProcessMemory) overrides it. A failed request does not fail the others.
    virtual void read_batch(std::span<ReadRequest> requests) const;
    // A NUL-terminated string of at most max_len bytes.
    bool read_string(uint64_t address, std::string& out, size_t max_len = 256) const;
};

class ProcessMemory final : public MemoryReader {
public:
    explicit ProcessMemory(pid_t pid) : pid_(pid) {}
    bool read(uint64_t address, void* out, size_t size) const override;
    // All requests in as few process_vm_readv calls as it takes: one per 1,024 requests
    // (UIO_MAXIOV) and one more after each request that fails.
    void read_batch(std::span<ReadRequest> requests) const override;

private:
    pid_t pid_;
};

}  // namespace vtscope
