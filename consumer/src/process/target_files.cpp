// SPDX-License-Identifier: Apache-2.0
#include "process/target_files.h"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace vtscope {
namespace {

int openat2_in_root(int root, const std::string& path, uint64_t flags, Symlinks symlinks) {
    open_how how{};
    how.flags = flags | O_CLOEXEC;
    // RESOLVE_IN_ROOT: `..` and absolute symlinks stop at the target's root, as they do for the
    // target itself (fs/namei.c, LOOKUP_IN_ROOT); no /proc magic link may lead out of it.
    how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
    if (symlinks == Symlinks::kRefuse) how.resolve |= RESOLVE_NO_SYMLINKS;
    std::string relative = path;
    while (!relative.empty() && relative.front() == '/') relative.erase(0, 1);
    if (relative.empty()) relative = ".";
    int fd;
    do {
        fd = static_cast<int>(syscall(SYS_openat2, root, relative.c_str(), &how, sizeof(how)));
    } while (fd < 0 && errno == EAGAIN);  // a rename raced the lookup (openat2(2))
    return fd;
}

std::string errno_text(int err) {
    if (err == ELOOP) return "a symbolic link on the way (refused)";
    if (err == EXDEV) return "the path leaves the target's root (refused)";
    return std::strerror(err);
}

}  // namespace

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) close(fd_);
        fd_ = other.release();
    }
    return *this;
}

UniqueFd::~UniqueFd() {
    if (fd_ >= 0) close(fd_);
}

int UniqueFd::release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
}

Status check_regular(int fd, uint64_t max_bytes, const std::string& what, struct stat* st) {
    if (fstat(fd, st) != 0) return make_error("cannot stat " + what + ": " + std::strerror(errno));
    if (!S_ISREG(st->st_mode)) return make_error(what + " is not a regular file (refused)");
    if (st->st_size < 0 || static_cast<uint64_t>(st->st_size) > max_bytes)
        return make_error(what + " is larger than " + std::to_string(max_bytes >> 20) + " MiB (refused)");
    return ok_status();
}

Expected<std::string> read_capped(int fd, uint64_t max_bytes, const std::string& what) {
    std::string data;
    char buffer[65536];
    for (;;) {
        ssize_t n = read(fd, buffer, sizeof(buffer));
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return make_error("cannot read " + what + ": " + std::strerror(errno));
        if (n == 0) return data;
        if (data.size() + static_cast<size_t>(n) > max_bytes)
            return make_error(what + " grew past " + std::to_string(max_bytes >> 20) + " MiB while read (refused)");
        data.append(buffer, static_cast<size_t>(n));
    }
}

Expected<TargetRoot> TargetRoot::open(pid_t pid) {
    std::string path = "/proc/" + std::to_string(pid) + "/root";
    int fd = ::open(path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return make_error("cannot open the root of process " + std::to_string(pid) + ": " + std::strerror(errno));
    return TargetRoot(UniqueFd(fd), "process " + std::to_string(pid));
}

TargetRoot TargetRoot::from_fd(UniqueFd dir, std::string label) { return TargetRoot(std::move(dir), std::move(label)); }

Expected<TargetFile> TargetRoot::open_regular(const std::string& path, uint64_t max_bytes, Symlinks symlinks) const {
    std::string what = path + " of " + label_;
    TargetFile file;
    file.fd = UniqueFd(openat2_in_root(dir_.get(), path, O_RDONLY | O_NONBLOCK | O_NOCTTY, symlinks));
    if (!file.fd) return make_error("cannot open " + what + ": " + errno_text(errno));
    if (auto checked = check_regular(file.fd.get(), max_bytes, what, &file.st); !checked) return checked.error();
    return file;
}

Expected<UniqueFd> TargetRoot::open_directory(const std::string& path) const {
    UniqueFd dir(openat2_in_root(dir_.get(), path, O_PATH | O_DIRECTORY, Symlinks::kRefuse));
    if (!dir) return make_error("cannot open " + path + " of " + label_ + ": " + errno_text(errno));
    return dir;
}

Expected<UniqueFd> TargetRoot::open_node(const std::string& path) const {
    // Without O_NOFOLLOW, RESOLVE_NO_SYMLINKS refuses a symlink as the last name too (openat2(2)).
    UniqueFd node(openat2_in_root(dir_.get(), path, O_PATH, Symlinks::kRefuse));
    if (!node) return make_error("cannot open " + path + " of " + label_ + ": " + errno_text(errno));
    return node;
}

Expected<TargetFile> open_mapped_file(pid_t pid, uint64_t start, uint64_t end, uint64_t max_bytes) {
    char path[96];
    std::snprintf(path, sizeof(path), "/proc/%d/map_files/%llx-%llx", static_cast<int>(pid),
                  static_cast<unsigned long long>(start), static_cast<unsigned long long>(end));
    std::string what =
        std::string("the file mapped at ") + (std::strrchr(path, '/') + 1) + " in process " + std::to_string(pid);
    TargetFile file;
    // map_files links are magic links to the mapped inode (fs/proc/base.c, proc_map_files_get_link):
    // following one never walks a path the target wrote.
    file.fd = UniqueFd(::open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    if (!file.fd) return make_error("cannot open " + what + ": " + std::strerror(errno));
    if (auto checked = check_regular(file.fd.get(), max_bytes, what, &file.st); !checked) return checked.error();
    return file;
}

}  // namespace vtscope
