// SPDX-License-Identifier: Apache-2.0
#include "process/container_id.h"

#include <fcntl.h>

#include "process/target_files.h"

namespace vtscope {
namespace {

constexpr size_t kIdLength = 64;

bool is_lower_hex(std::string_view text) {
    for (char c : text)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

// The id named by one path component, or empty.
std::string_view component_id(std::string_view component) {
    if (component.ends_with(".scope")) component.remove_suffix(6);
    // A runtime's monitor (conmon) has the container's id in its name but is not in the container.
    if (component.find("-conmon-") != std::string_view::npos) return {};
    size_t dash = component.rfind('-');
    std::string_view id = dash == std::string_view::npos ? component : component.substr(dash + 1);
    return id.size() == kIdLength && is_lower_hex(id) ? id : std::string_view{};
}

// The deepest component of one line's path that names an id, or empty.
std::string_view line_id(std::string_view line) {
    // "hierarchy-ID:controller-list:cgroup-path"; the path may itself hold ':'.
    size_t first = line.find(':');
    if (first == std::string_view::npos) return {};
    size_t second = line.find(':', first + 1);
    if (second == std::string_view::npos) return {};
    std::string_view path = line.substr(second + 1);
    while (!path.empty()) {
        size_t slash = path.rfind('/');
        std::string_view component = slash == std::string_view::npos ? path : path.substr(slash + 1);
        if (std::string_view id = component_id(component); !id.empty()) return id;
        if (slash == std::string_view::npos) break;
        path = path.substr(0, slash);
    }
    return {};
}

}  // namespace

std::optional<std::string> parse_container_id(std::string_view text) {
    if (text.size() > kMaxCgroupFileBytes) text = text.substr(0, kMaxCgroupFileBytes);
    // The first line that names one: with cgroup v2 there is one line ("0::/..."); with v1 every
    // hierarchy the runtime placed the container in names the same id.
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        if (std::string_view id = line_id(text.substr(pos, end - pos)); !id.empty()) return std::string(id);
        pos = end + 1;
    }
    return std::nullopt;
}

std::optional<std::string> read_container_id(pid_t pid) {
    std::string path = "/proc/" + std::to_string(pid) + "/cgroup";
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd) return std::nullopt;
    auto text = read_capped(fd.get(), kMaxCgroupFileBytes, path);
    if (!text) return std::nullopt;
    return parse_container_id(*text);
}

}  // namespace vtscope
