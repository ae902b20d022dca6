// Read-only access to another process's memory. The consumer never writes the target: every
// read goes through process_vm_readv and is checked for a short or failed transfer.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

#include "expected.h"

namespace vtscope {

class MemoryReader {
public:
    virtual ~MemoryReader() = default;
    // Reads exactly size bytes at address; false on any failure (unmapped, short read).
    virtual bool read(uint64_t address, void* out, size_t size) const = 0;

    template <typename T>
    bool read_value(uint64_t address, T& out) const {
        return read(address, &out, sizeof(T));
    }
    // A NUL-terminated string of at most max_len bytes.
    bool read_string(uint64_t address, std::string& out, size_t max_len = 256) const;
};

class ProcessMemory final : public MemoryReader {
public:
    explicit ProcessMemory(pid_t pid) : pid_(pid) {}
    bool read(uint64_t address, void* out, size_t size) const override;

private:
    pid_t pid_;
};

}  // namespace vtscope
