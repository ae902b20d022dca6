// SPDX-License-Identifier: Apache-2.0
// x86_64 syscall numbers to names (generated from asm/unistd_64.h, see syscall_names.cmake).
#pragma once

namespace vtscope {

// The name of syscall nr ("read", "clock_nanosleep"), or nullptr when nr is none or unknown.
const char* syscall_name(int nr);

}  // namespace vtscope
