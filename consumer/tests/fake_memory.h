// SPDX-License-Identifier: Apache-2.0
// A MemoryReader over a sparse in-process address space, for testing the target readers.
#pragma once

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "process/process_memory.h"

namespace vtscope::testing {

class FakeMemory final : public MemoryReader {
public:
    // Places bytes at address; regions must not overlap.
    void put(uint64_t address, const void* data, size_t size) {
        auto& bytes = regions_[address];
        bytes.assign(static_cast<const char*>(data), static_cast<const char*>(data) + size);
    }
    template <typename T>
    void put_value(uint64_t address, const T& value) {
        put(address, &value, sizeof(T));
    }
    void put_string(uint64_t address, const std::string& s) { put(address, s.c_str(), s.size() + 1); }

    bool read(uint64_t address, void* out, size_t size) const override {
        auto it = regions_.upper_bound(address);
        if (it == regions_.begin()) return false;
        --it;
        uint64_t offset = address - it->first;
        if (offset + size > it->second.size()) return false;
        std::memcpy(out, it->second.data() + offset, size);
        return true;
    }

private:
    std::map<uint64_t, std::vector<char>> regions_;
};

}  // namespace vtscope::testing
