// SPDX-License-Identifier: Apache-2.0
#include "cli/privilege.h"

#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace vtscope {

bool have_bpf_privilege() {
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    if (syscall(SYS_capget, &header, data) != 0) return false;
    auto has = [&](int cap) { return (data[cap / 32].effective >> (cap % 32)) & 1u; };
    return has(CAP_SYS_ADMIN) || (has(CAP_BPF) && has(CAP_PERFMON));
}

}  // namespace vtscope
