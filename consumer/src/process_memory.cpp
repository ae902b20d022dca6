#include "process_memory.h"

#include <sys/uio.h>

#include <algorithm>

namespace vtscope {

bool MemoryReader::read_string(uint64_t address, std::string& out, size_t max_len) const {
    out.clear();
    char chunk[64];
    while (out.size() < max_len) {
        // Read in small chunks that never cross a page end, so a string near the end of a
        // mapping is still readable.
        size_t to_page_end = 4096 - (address % 4096);
        size_t n = std::min({sizeof(chunk), to_page_end, max_len - out.size()});
        // A string may end just before an unreadable byte inside the chunk: fall back to
        // single bytes rather than fail.
        if (!read(address, chunk, n)) {
            if (!read(address, chunk, 1)) return false;
            n = 1;
        }
        for (size_t i = 0; i < n; i++) {
            if (chunk[i] == '\0') return true;
            out.push_back(chunk[i]);
        }
        address += n;
    }
    return false;
}

bool ProcessMemory::read(uint64_t address, void* out, size_t size) const {
    if (size == 0) return true;
    if (address == 0) return false;
    iovec local{out, size};
    iovec remote{reinterpret_cast<void*>(address), size};
    ssize_t n = process_vm_readv(pid_, &local, 1, &remote, 1, 0);
    return n == static_cast<ssize_t>(size);
}

}  // namespace vtscope
