// SPDX-License-Identifier: Apache-2.0
// Whether this process may load and attach vtscope's BPF programs.
#pragma once

namespace vtscope {

// CAP_BPF + CAP_PERFMON (kernel 5.8+), or CAP_SYS_ADMIN, in the effective set.
bool have_bpf_privilege();

}  // namespace vtscope
