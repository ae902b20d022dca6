// SPDX-License-Identifier: Apache-2.0
// Read-only access to another process's memory. The consumer never writes the target: every
// read goes through process_vm_readv and is checked for a short or failed transfer.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <span>
#include <string>

#include "core/expected.h"

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
    // With a pidfd of the target, a read is good only if the target had not exited when it
    // returned: after that the pid may name another process, and what was read may be its.
    explicit ProcessMemory(pid_t pid, int pidfd = -1) : pid_(pid), pidfd_(pidfd) {}
    bool read(uint64_t address, void* out, size_t size) const override;
    // All requests in as few process_vm_readv calls as it takes: one per 1,024 requests
    // (UIO_MAXIOV) and one more after each request that fails.
    void read_batch(std::span<ReadRequest> requests) const override;

private:
    bool still_the_target() const;
    pid_t pid_;
    int pidfd_;  // not owned (the Target's ProcessHandle); -1: no such check
};

}  // namespace vtscope
