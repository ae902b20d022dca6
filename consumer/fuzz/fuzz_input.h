// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the fuzz targets: a cursor over the fuzzer's bytes, and a target's memory
// built from them (a MemoryReader, as the readers see a real target through process_vm_readv).
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "process/process_memory.h"

namespace vtscope::fuzz {

// text cut at every separator (an input of sections, or the NUL-separated arguments of a
// /proc/PID/cmdline); n separators give n + 1 parts, empty ones included.
inline std::vector<std::string> split(std::string_view text, char separator) {
    std::vector<std::string> parts;
    size_t pos = 0;
    while (pos <= text.size()) {
        size_t end = text.find(separator, pos);
        if (end == std::string_view::npos) end = text.size();
        parts.emplace_back(text.substr(pos, end - pos));
        pos = end + 1;
    }
    return parts;
}

// Takes fixed-size values off the front of the input; what is left is the tail.
class FuzzInput {
public:
    FuzzInput(const uint8_t* data, size_t size) : data_(data), size_(size) {}

    template <typename T>
    T take() {
        T value{};
        size_t n = std::min(sizeof(T), size_);
        std::memcpy(&value, data_, n);
        data_ += n;
        size_ -= n;
        return value;
    }
    // Up to n bytes.
    std::string_view take_bytes(size_t n) {
        n = std::min(n, size_);
        std::string_view bytes(reinterpret_cast<const char*>(data_), n);
        data_ += n;
        size_ -= n;
        return bytes;
    }
    std::string_view rest() { return take_bytes(size_); }
    bool empty() const { return size_ == 0; }

private:
    const uint8_t* data_;
    size_t size_;
};

// A sparse address space in the layout `make_memory_image` writes: regions of
//   u64 address, u32 size, then size bytes (the last one may be cut short by the input's end).
// A read succeeds only inside one region, and never at address 0, as ProcessMemory's.
class FuzzMemory final : public MemoryReader {
public:
    // At most kMaxRegions regions: the rest of the input is ignored.
    static constexpr size_t kMaxRegions = 4096;

    explicit FuzzMemory(FuzzInput& input) {
        while (!input.empty() && regions_.size() < kMaxRegions) {
            auto address = input.take<uint64_t>();
            auto size = input.take<uint32_t>();
            std::string_view bytes = input.take_bytes(size);
            regions_[address].assign(bytes.begin(), bytes.end());
        }
    }

    bool read(uint64_t address, void* out, size_t size) const override {
        if (address == 0) return false;
        auto it = regions_.upper_bound(address);
        if (it == regions_.begin()) return false;
        --it;
        uint64_t offset = address - it->first;
        if (offset > it->second.size() || size > it->second.size() - offset) return false;
        if (size) std::memcpy(out, it->second.data() + offset, size);
        return true;
    }

private:
    std::map<uint64_t, std::vector<char>> regions_;
};

// The inverse of FuzzMemory's parsing, for the seed tool: regions as one input.
inline void append_region(std::string& image, uint64_t address, std::string_view bytes) {
    auto size = static_cast<uint32_t>(bytes.size());
    image.append(reinterpret_cast<const char*>(&address), sizeof(address));
    image.append(reinterpret_cast<const char*>(&size), sizeof(size));
    image.append(bytes);
}

}  // namespace vtscope::fuzz
