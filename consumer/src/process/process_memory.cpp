// SPDX-License-Identifier: Apache-2.0
#include "process/process_memory.h"

#include <sys/uio.h>

#include <algorithm>

#include "process/process_handle.h"
#include <cerrno>

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

void MemoryReader::read_batch(std::span<ReadRequest> requests) const {
    for (ReadRequest& r : requests) r.ok = read(r.address, r.out, r.size);
}

void ProcessMemory::read_batch(std::span<ReadRequest> requests) const {
    // process_vm_readv copies the remote iovecs in order and stops at the first that faults,
    // returning the bytes copied until then, or the error if that was none
    // (process_vm_rw_core, mm/process_vm_access.c). So every request wholly inside the count was
    // read, the one the count ends in (or that ends exactly there, if short) failed, and the
    // batch resumes after it. At most UIO_MAXIOV (1,024) iovecs per call.
    constexpr size_t kMaxIovecs = 1024;
    iovec local[kMaxIovecs];
    iovec remote[kMaxIovecs];
    size_t next = 0;
    while (next < requests.size()) {
        size_t taken[kMaxIovecs];
        size_t count = 0;
        for (; next < requests.size() && count < kMaxIovecs; next++) {
            ReadRequest& r = requests[next];
            if (r.size == 0 || r.address == 0) {  // as read(): nothing to do, or never readable
                r.ok = r.size == 0;
                continue;
            }
            local[count] = {r.out, r.size};
            remote[count] = {reinterpret_cast<void*>(r.address), r.size};
            taken[count++] = next;
        }
        if (count == 0) break;
        ssize_t copied = process_vm_readv(pid_, local, count, remote, count, 0);
        if (copied < 0 && (errno == ESRCH || errno == EPERM)) {
            // The target is gone or not ours to read: no later request can succeed either.
            for (size_t i = taken[0]; i < requests.size(); i++) requests[i].ok = requests[i].size == 0;
            return;
        }
        size_t left = copied < 0 ? 0 : static_cast<size_t>(copied);
        for (size_t i = 0; i < count; i++) {
            ReadRequest& r = requests[taken[i]];
            r.ok = left >= r.size;
            if (!r.ok) {
                next = taken[i] + 1;  // the rest of this batch was not attempted
                break;
            }
            left -= r.size;
        }
    }
    if (!still_the_target())
        for (ReadRequest& r : requests) r.ok = r.size == 0;
}

bool ProcessMemory::still_the_target() const { return pidfd_ < 0 || !pidfd_exited(pidfd_); }

bool ProcessMemory::read(uint64_t address, void* out, size_t size) const {
    if (size == 0) return true;
    if (address == 0) return false;
    iovec local{out, size};
    iovec remote{reinterpret_cast<void*>(address), size};
    ssize_t n = process_vm_readv(pid_, &local, 1, &remote, 1, 0);
    return n == static_cast<ssize_t>(size) && still_the_target();
}

}  // namespace vtscope
