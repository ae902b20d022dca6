// SPDX-License-Identifier: Apache-2.0
// The files of a target process, opened the only way vtscope opens them: inside the target's own
// root, never through a path the host would resolve. The target (or whoever owns its container
// filesystem) may be hostile: a symlink that points at the host's /etc, a FIFO that never ends, a
// device that never stops, a file that grows while it is read. So every open here is
//   - resolved inside the target's root (openat2 RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS on
//     /proc/PID/root, which the target cannot leave by `..` or an absolute symlink), or through
//     /proc/PID/map_files for a file the target has mapped (the mapped inode itself);
//   - O_NONBLOCK and O_NOCTTY (opening a FIFO or a tty never blocks or adopts it), then refused
//     unless fstat says it is a regular file;
//   - bounded: its size is checked before a byte is read, and a read stops at the cap.
// Nothing falls back to the same path on the host.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <string>

#include "core/expected.h"

namespace vtscope {

// An owned file descriptor (closed on destruction, movable).
class UniqueFd {
public:
    UniqueFd() = default;
    explicit UniqueFd(int fd) : fd_(fd) {}
    UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
    UniqueFd& operator=(UniqueFd&& other) noexcept;
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;
    ~UniqueFd();

    int get() const { return fd_; }
    explicit operator bool() const { return fd_ >= 0; }
    int release();

private:
    int fd_ = -1;
};

// The caps vtscope holds a target's files to (docs/security.md lists them).
inline constexpr uint64_t kMaxPerfMapBytes = 256ull << 20;  // HotSpot's map of a large app: tens of MiB
inline constexpr uint64_t kMaxElfBytes = 1ull << 30;        // libjvm.so is about 23 MiB
inline constexpr uint64_t kMaxRecordingBytes = 256ull << 20;

// A regular file of the target, opened and checked, with its stat at the time of opening.
struct TargetFile {
    UniqueFd fd;
    struct stat st {};
};

// Whether a path may follow symlinks on the way (always resolved inside the root) or must have
// none at all (a name the target must not be able to redirect, such as its perf map).
enum class Symlinks { kResolveInRoot, kRefuse };

class TargetRoot {
public:
    // Opens /proc/PID/root (the target's root directory in its own mount namespace). The
    // descriptor keeps that root reachable after the target has exited.
    static Expected<TargetRoot> open(pid_t pid);
    // A root from a directory descriptor (tests use a plain directory as a fake target root).
    static TargetRoot from_fd(UniqueFd dir, std::string label);

    // Opens `path` (absolute as the target sees it) as a regular file of at most max_bytes.
    Expected<TargetFile> open_regular(const std::string& path, uint64_t max_bytes,
                                      Symlinks symlinks = Symlinks::kRefuse) const;
    // Opens a directory of the target (O_PATH), for creating or removing names in it.
    Expected<UniqueFd> open_directory(const std::string& path) const;
    // Opens any node of the target (O_PATH, no symlink anywhere on the way, the last name
    // included), for a socket that is then checked by fstat and reached through /proc/self/fd.
    Expected<UniqueFd> open_node(const std::string& path) const;
    // How errors name this root: "process 1234", or the label given to from_fd.
    const std::string& label() const { return label_; }
    int fd() const { return dir_.get(); }

private:
    TargetRoot(UniqueFd dir, std::string label) : dir_(std::move(dir)), label_(std::move(label)) {}
    UniqueFd dir_;
    std::string label_;
};

// Opens the file the target has mapped at [start, end) through /proc/PID/map_files: the very
// inode the target maps, whatever its path says, regular and at most max_bytes.
Expected<TargetFile> open_mapped_file(pid_t pid, uint64_t start, uint64_t end, uint64_t max_bytes);

// Reads a whole opened file of at most max_bytes (more, read or grown since: an error).
Expected<std::string> read_capped(int fd, uint64_t max_bytes, const std::string& what);

// Checks an opened descriptor: a regular file of at most max_bytes; fills st.
Status check_regular(int fd, uint64_t max_bytes, const std::string& what, struct stat* st);

}  // namespace vtscope
