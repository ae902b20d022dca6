// SPDX-License-Identifier: Apache-2.0
#include "output/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "output/safe_text.h"

namespace vtscope {

namespace {
Error output_error(const std::string& shown_as, const std::string& why) {
    return make_error("cannot write " + terminal_safe(shown_as) + ": " + why);
}
}  // namespace

// vtscope runs as root, often writing into a shared directory such as /tmp where the target's
// user can plant a name first: a symlink there would have root write (and truncate) the file it
// points at, a hard link likewise. So, as perf does for perf.data: O_NOFOLLOW (a symlink is
// refused: ELOOP), a regular file is truncated only once it is known to have no other link and to be vtscope's user's, and a
// new file is created 0600 (the report names the target's threads and traces).
Expected<std::unique_ptr<OutputFile>> OutputFile::open(const std::string& path, const std::string& name) {
    const std::string shown_as = name.empty() ? "output " + path : name;
    // /dev/stdout and /dev/stderr are symlinks (to /proc/self/fd/N) that users name for the
    // streams: they are the streams, not files to open.
    if (path == "-" || path == "/dev/stdout") return std::unique_ptr<OutputFile>(new OutputFile(stdout, false));
    if (path == "/dev/stderr") return std::unique_ptr<OutputFile>(new OutputFile(stderr, false));
    // O_NONBLOCK: a FIFO planted at the path with no reader fails (ENXIO) instead of hanging.
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
    if (fd < 0) {
        if (errno == ELOOP) return output_error(shown_as, "it is a symbolic link (refused: vtscope follows none)");
        return output_error(shown_as, std::strerror(errno));
    }
    struct stat st {};
    if (fstat(fd, &st) != 0 || fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0) {
        int err = errno;
        close(fd);
        return output_error(shown_as, std::strerror(err));
    }
    // A FIFO or a device (/dev/null) is written as it is; only a regular file is truncated.
    if (S_ISREG(st.st_mode)) {
        if (st.st_nlink > 1 || st.st_uid != geteuid()) {
            close(fd);
            return output_error(shown_as, st.st_nlink > 1
                                              ? "it has " + std::to_string(st.st_nlink) + " hard links (refused)"
                                              : "it belongs to uid " + std::to_string(st.st_uid) + " (refused)");
        }
        if (ftruncate(fd, 0) != 0) {
            int err = errno;
            close(fd);
            return output_error(shown_as, std::strerror(err));
        }
    }
    FILE* file = fdopen(fd, "w");
    if (!file) {
        int err = errno;
        close(fd);
        return output_error(shown_as, std::strerror(err));
    }
    return std::unique_ptr<OutputFile>(new OutputFile(file, true));
}

OutputFile::~OutputFile() {
    if (owned_) std::fclose(file_);
}

void OutputFile::write(std::string_view text) {
    if (std::fwrite(text.data(), 1, text.size(), file_) != text.size() && !errno_) errno_ = errno ? errno : EIO;
}

void OutputFile::flush() {
    if (std::fflush(file_) != 0 && !errno_) errno_ = errno ? errno : EIO;
}

}  // namespace vtscope
