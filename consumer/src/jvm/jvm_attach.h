// SPDX-License-Identifier: Apache-2.0
// HotSpot's dynamic attach (what jcmd does, without starting a JVM): the .attach_pid file and
// SIGQUIT make the target open /tmp/.java_pidPID, and one request on that socket runs one
// diagnostic command. vtscope profile and block use it for Compiler.perfmap, VM.flags and
// JFR.start/JFR.stop. The target may be hostile: both names are found inside its root and use
// the pid it sees itself, the trigger file is created O_EXCL with no symlink followed, the socket
// must be a socket listened on by the target itself (SO_PEERCRED), the reply is capped at 1 MiB,
// and the process is held by a pidfd throughout.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <string_view>

#include "core/expected.h"

namespace vtscope {

// The output of a command from the raw reply on the attach socket: an error when the result code
// on its first line is not 0. The reply is the target's: its text is not yet safe to print.
Expected<std::string> parse_attach_reply(std::string_view reply, const std::string& command);

// Runs `jcmd PID <command>` in the target through the attach socket and returns its output.
Expected<std::string> jvm_diagnostic_command(pid_t pid, const std::string& command, std::chrono::milliseconds timeout);

}  // namespace vtscope
