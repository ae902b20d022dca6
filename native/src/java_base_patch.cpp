#include "java_base_patch.h"

#include <dlfcn.h>

#include <fstream>
#include <sstream>

namespace vtscope::native {
namespace {

constexpr std::string_view kPatchOption = "--patch-module=java.base=";

// The release file's or the stamp's lines that name the JDK build ("KEY=value" as written).
std::optional<std::string> build_line(const std::string& path, std::string_view key, bool* readable) {
    std::ifstream in(path);
    *readable = in.is_open();
    std::string line;
    std::optional<std::string> found;
    while (std::getline(in, line))
        if (line.size() > key.size() && line.compare(0, key.size(), key) == 0 && line[key.size()] == '=') found = line;
    return found;
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

JavaBasePatch check_java_base_patch(const std::vector<std::string>& jvm_args, const std::string& java_home) {
    JavaBasePatch result;
    for (const std::string& dir : java_base_patch_paths(jvm_args)) {
        std::string stamp = dir + "/" + kPatchStamp;
        bool stamp_readable = false, release_readable = false;
        auto version = build_line(stamp, "JAVA_RUNTIME_VERSION", &stamp_readable);
        if (!stamp_readable) continue;  // not this path: the JVM may take java.base classes from others
        result.dir = dir;
        auto implementor = build_line(stamp, "IMPLEMENTOR", &stamp_readable);
        std::string release = java_home + "/release";
        auto running_version = build_line(release, "JAVA_RUNTIME_VERSION", &release_readable);
        auto running_implementor = build_line(release, "IMPLEMENTOR", &release_readable);
        if (!version) {
            result.kind = JavaBasePatch::Kind::kMismatch;
            result.error = stamp + " names no JAVA_RUNTIME_VERSION";
        } else if (!release_readable || !running_version) {
            result.kind = JavaBasePatch::Kind::kMismatch;
            result.error = "the running JDK's " + release + " names no JAVA_RUNTIME_VERSION to check the patch in " +
                           dir + " against";
        } else if (version != running_version || implementor != running_implementor) {
            result.kind = JavaBasePatch::Kind::kMismatch;
            result.error = "the patched java.base in " + dir + " was written for " + *version +
                           (implementor ? " " + *implementor : std::string()) + ", but this JDK (" + java_home +
                           ") is " + *running_version +
                           (running_implementor ? " " + *running_implementor : std::string()) +
                           ": write it again with this JDK (-agentpath:libvtscope.so=write-patch=DIR)";
        } else {
            result.kind = JavaBasePatch::Kind::kOurs;
        }
        return result;
    }
    return result;
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
