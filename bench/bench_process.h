// SPDX-License-Identifier: Apache-2.0
// The short names every part of vtscope-bench that runs processes uses: the process runner shared
// with the tests (consumer/tests/process_runner.h), the file system and the clock.
#pragma once

#include <chrono>
#include <filesystem>

#include "process_runner.h"

namespace vtscope::bench {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using testing::Child;
using testing::read_file;
using testing::wait_for_file;
using testing::wait_for_text;

}  // namespace vtscope::bench
