// SPDX-License-Identifier: Apache-2.0
#include "java_base_patch.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>

namespace vtscope::native {
namespace {

constexpr std::string_view kPatchOption = "--patch-module=java.base=";
constexpr size_t kMaxStampBytes = 64 * 1024;
constexpr size_t kMaxVirtualThreadClassBytes = 1 << 20;  // JDK 25's is about 40 KiB

// A descriptor closed at the end of its scope.
struct Fd {
    int fd = -1;
    explicit Fd(int f) : fd(f) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() {
        if (fd >= 0) close(fd);
    }
};

// The patch is code the JVM runs in java.base, and the library drops its JVMTI events for it:
// nobody but the JVM's user (or root) may have been able to change it. So each directory and
// file of it is owned by the effective user or root and writable by neither group nor others.
bool check_owner_and_mode(int fd, const std::string& path, bool directory, std::string* error) {
    struct stat st {};
    if (fstat(fd, &st) != 0) return *error = "cannot stat " + path + ": " + std::strerror(errno), false;
    if (directory ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode))
        return *error = path + (directory ? " is not a directory" : " is not a regular file"), false;
    if (st.st_uid != geteuid() && st.st_uid != 0)
        return *error = path + " belongs to uid " + std::to_string(st.st_uid) + ", not to this JVM's user or root",
               false;
    if (st.st_mode & (S_IWGRP | S_IWOTH)) return *error = path + " is writable by group or others", false;
    return true;
}

// The last component is never followed (O_NOFOLLOW: a symbolic link fails with ELOOP).
int open_directory(int at, const std::string& name) {
    return openat(at, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

std::nullopt_t open_failed(const std::string& path, bool* missing, std::string* error) {
    int err = errno;
    *missing = err == ENOENT;
    *error = "cannot open " + path + ": " + std::strerror(err);
    return std::nullopt;
}

// The file at relative (components separated by '/') under dir_fd, each directory opened
// without following a link and checked, the file regular, checked, and at most cap bytes.
// nullopt with *error (set only when *missing is false: a file that is not there is no error).
std::optional<std::string> read_patch_file(int dir_fd, const std::string& dir, const std::string& relative, size_t cap,
                                           bool* missing, std::string* error) {
    *missing = false;
    Fd at(dup(dir_fd));
    std::string path = dir;
    size_t begin = 0;
    for (size_t slash; (slash = relative.find('/', begin)) != std::string::npos; begin = slash + 1) {
        std::string name = relative.substr(begin, slash - begin);
        path += "/" + name;
        Fd next(open_directory(at.fd, name));
        if (next.fd < 0) return open_failed(path, missing, error);
        if (!check_owner_and_mode(next.fd, path, true, error)) return std::nullopt;
        std::swap(at.fd, next.fd);
    }
    path += "/" + relative.substr(begin);
    Fd file(openat(at.fd, relative.substr(begin).c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (file.fd < 0) return open_failed(path, missing, error);
    if (!check_owner_and_mode(file.fd, path, false, error)) return std::nullopt;
    std::string content;
    char buffer[8192];
    for (ssize_t n; (n = read(file.fd, buffer, sizeof(buffer))) != 0;) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return *error = "cannot read " + path + ": " + std::strerror(errno), std::nullopt;
        if (content.size() + static_cast<size_t>(n) > cap)
            return *error = path + " is larger than " + std::to_string(cap) + " bytes", std::nullopt;
        content.append(buffer, static_cast<size_t>(n));
    }
    return content;
}

// The release file's or the stamp's line that names the JDK build ("KEY=value" as written).
std::optional<std::string> build_line(const std::string& text, std::string_view key) {
    std::istringstream in(text);
    std::string line;
    std::optional<std::string> found;
    while (std::getline(in, line))
        if (line.size() > key.size() && line.compare(0, key.size(), key) == 0 && line[key.size()] == '=') found = line;
    return found;
}

std::optional<std::string> read_release(const std::string& path) {
    std::ifstream in(path);
    if (!in) return std::nullopt;
    return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

std::vector<std::string> java_base_patch_paths(const std::vector<std::string>& jvm_args) {
    const std::string* value = nullptr;
    for (const std::string& arg : jvm_args)
        if (arg.size() > kPatchOption.size() && arg.compare(0, kPatchOption.size(), kPatchOption) == 0) value = &arg;
    std::vector<std::string> paths;
    if (!value) return paths;
    std::stringstream list(value->substr(kPatchOption.size()));
    for (std::string path; std::getline(list, path, ':');)
        if (!path.empty()) paths.push_back(path);
    return paths;
}

std::optional<std::string> jvm_arg_property(const std::vector<std::string>& jvm_args, std::string_view key) {
    std::string prefix = "-D" + std::string(key) + "=";
    std::optional<std::string> value;
    for (const std::string& arg : jvm_args)
        if (arg.compare(0, prefix.size(), prefix) == 0) value = arg.substr(prefix.size());
    return value;
}

namespace {

// The stamp's JDK against the running one's; empty when they are the same build.
std::string compare_builds(const std::string& stamp_text, const std::string& stamp, const std::string& dir,
                           const std::string& java_home) {
    auto version = build_line(stamp_text, "JAVA_RUNTIME_VERSION");
    auto implementor = build_line(stamp_text, "IMPLEMENTOR");
    std::string release = java_home + "/release";
    auto release_text = read_release(release);
    auto running_version = release_text ? build_line(*release_text, "JAVA_RUNTIME_VERSION") : std::nullopt;
    auto running_implementor = release_text ? build_line(*release_text, "IMPLEMENTOR") : std::nullopt;
    if (!version) return stamp + " names no JAVA_RUNTIME_VERSION";
    if (!running_version)
        return "the running JDK's " + release + " names no JAVA_RUNTIME_VERSION to check the patch in " + dir +
               " against";
    if (version == running_version && implementor == running_implementor) return {};
    return "the patched java.base in " + dir + " was written for " + *version +
           (implementor ? " " + *implementor : std::string()) + ", but this JDK (" + java_home + ") is " +
           *running_version + (running_implementor ? " " + *running_implementor : std::string()) +
           ": write it again with this JDK (-agentpath:libvtscope.so=write-patch=DIR)";
}

// The class files are the ones this library writes: MountHook and PatchLink byte for byte (the
// library carries them), VirtualThread this JDK's rewritten by writePatch, so at least linked to
// PatchLink (its constant pool names the class). Empty when they are, else why not.
std::string check_patch_classes(int dir_fd, const std::string& dir, const PatchClassFiles& expected) {
    const struct {
        const char* path;
        std::span<const unsigned char> bytes;
    } exact[] = {{"io/vtscope/otep/MountHook.class", expected.mount_hook},
                 {"io/vtscope/otep/PatchLink.class", expected.patch_link}};
    bool missing = false;
    std::string error;
    for (const auto& file : exact) {
        auto content = read_patch_file(dir_fd, dir, file.path, file.bytes.size(), &missing, &error);
        if (!content) return missing ? dir + "/" + file.path + " is missing" : error;
        if (content->size() != file.bytes.size() || std::memcmp(content->data(), file.bytes.data(), file.bytes.size()))
            return dir + "/" + file.path + " is not the class this library writes";
    }
    auto vt =
        read_patch_file(dir_fd, dir, "java/lang/VirtualThread.class", kMaxVirtualThreadClassBytes, &missing, &error);
    if (!vt) return missing ? dir + "/java/lang/VirtualThread.class is missing" : error;
    if (vt->find("io/vtscope/otep/PatchLink") == std::string::npos)
        return dir + "/java/lang/VirtualThread.class is not the one write-patch makes";
    return {};
}

}  // namespace

JavaBasePatch check_java_base_patch(const std::vector<std::string>& jvm_args, const std::string& java_home,
                                    const PatchClassFiles& expected) {
    JavaBasePatch result;
    for (const std::string& dir : java_base_patch_paths(jvm_args)) {
        Fd dir_fd(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        bool missing = false;
        std::string error;
        auto stamp_text = dir_fd.fd < 0
                              ? std::nullopt
                              : read_patch_file(dir_fd.fd, dir, kPatchStamp, kMaxStampBytes, &missing, &error);
        // No stamp: not this path (the JVM may take java.base classes from others), unless the
        // stamp is there but refused, which refuses the patch.
        if (!stamp_text && (dir_fd.fd < 0 || missing)) continue;
        result.dir = dir;
        result.kind = JavaBasePatch::Kind::kMismatch;
        if (!stamp_text || !check_owner_and_mode(dir_fd.fd, dir, true, &error)) {
            result.error = "refused the patched java.base: " + error;
            return result;
        }
        result.error = compare_builds(*stamp_text, dir + "/" + kPatchStamp, dir, java_home);
        if (!result.error.empty()) return result;
        if (std::string why = check_patch_classes(dir_fd.fd, dir, expected); !why.empty())
            result.error = "refused the patched java.base: " + why;
        else
            result.kind = JavaBasePatch::Kind::kOurs;
        return result;
    }
    return result;
}

bool prepare_patch_directory(const std::string& dir, std::string* error) {
    // 0755: the JVMs that run on the patch may be another user's; nothing in it is secret.
    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
        return *error = "cannot create " + dir + ": " + std::strerror(errno), false;
    Fd dir_fd(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (dir_fd.fd < 0) return *error = "cannot open " + dir + ": " + std::strerror(errno), false;
    return check_owner_and_mode(dir_fd.fd, dir, true, error);
}

std::string running_java_home() {
    Dl_info info{};
    void* symbol = dlsym(RTLD_DEFAULT, "JNI_GetCreatedJavaVMs");
    if (!symbol || !dladdr(symbol, &info) || !info.dli_fname) return {};
    std::string path = info.dli_fname;  // .../lib/server/libjvm.so
    for (int up = 0; up < 3; up++) {
        size_t slash = path.rfind('/');
        if (slash == std::string::npos || slash == 0) return {};
        path.resize(slash);
    }
    return path;
}

}  // namespace vtscope::native
