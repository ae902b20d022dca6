// SPDX-License-Identifier: Apache-2.0
// The fuzzer's bytes as a file: one memfd per process, rewritten for each input, read by the ELF
// readers through its descriptor as they read a target's opened file (`path()` names it through
// /proc/self/fd for readers that search by name).
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace vtscope::fuzz {

class MemfdFile {
public:
    explicit MemfdFile(const char* name) : fd_(memfd_create(name, MFD_CLOEXEC)) {
        if (fd_ < 0) std::abort();  // no file, no fuzzing: fail loudly rather than test nothing
    }
    MemfdFile(const MemfdFile&) = delete;
    MemfdFile& operator=(const MemfdFile&) = delete;
    ~MemfdFile() { close(fd_); }

    // Replaces the content with bytes.
    void write(const uint8_t* data, size_t size) {
        if (ftruncate(fd_, 0) != 0) std::abort();
        size_t done = 0;
        while (done < size) {
            ssize_t n = pwrite(fd_, data + done, size - done, static_cast<off_t>(done));
            if (n <= 0) std::abort();
            done += static_cast<size_t>(n);
        }
    }
    int fd() const { return fd_; }
    std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }

private:
    int fd_;
};

}  // namespace vtscope::fuzz
