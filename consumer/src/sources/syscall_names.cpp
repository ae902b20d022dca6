// SPDX-License-Identifier: Apache-2.0
#include "sources/syscall_names.h"

#include <algorithm>
#include <iterator>

namespace vtscope {
namespace {

struct Entry {
    int nr;
    const char* name;
};

constexpr Entry kEntries[] = {
#include "syscall_names.inc"
};

}  // namespace

const char* syscall_name(int nr) {
    auto it = std::find_if(std::begin(kEntries), std::end(kEntries), [nr](const Entry& e) { return e.nr == nr; });
    return it == std::end(kEntries) ? nullptr : it->name;
}

}  // namespace vtscope
