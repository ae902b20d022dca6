// SPDX-License-Identifier: Apache-2.0
// The documents drawn from the option tables: the man pages (roff), the markdown reference in
// docs/commands and the bash completion; `usage` (options.h) is the --help text.
#pragma once

#include <string>

namespace vtscope {

// vtscope(1) for an empty command, else vtscope-COMMAND(1).
std::string man_page(const std::string& command);
// The same reference as markdown (docs/commands/vtscope.md, docs/commands/vtscope-COMMAND.md).
std::string markdown_page(const std::string& command);
// The bash completion script (share/bash-completion/completions/vtscope).
std::string bash_completion();

}  // namespace vtscope
