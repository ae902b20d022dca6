# SPDX-License-Identifier: Apache-2.0
# x86_64 syscall number -> name, generated at configure time from the kernel UAPI header
# (asm/unistd_64.h, "#define __NR_read 0"), so vtscope block names the syscall a task sleeps in
# without tracefs (whose sys_enter_* ids are tracepoint ids, not syscall numbers) or a hand list.
set(VTSCOPE_UNISTD_64 /usr/include/x86_64-linux-gnu/asm/unistd_64.h CACHE FILEPATH
    "x86_64 asm/unistd_64.h: the syscall number -> name table of vtscope block")
set(VTSCOPE_SYSCALL_NAMES_INC ${CMAKE_CURRENT_BINARY_DIR}/syscall_names.inc)
if(NOT EXISTS ${VTSCOPE_UNISTD_64})
  message(FATAL_ERROR "${VTSCOPE_UNISTD_64} not found (linux-libc-dev); set VTSCOPE_UNISTD_64")
endif()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${VTSCOPE_UNISTD_64})
file(STRINGS ${VTSCOPE_UNISTD_64} nr_lines REGEX "^#define __NR_[a-z0-9_]+ [0-9]+$")
set(nr_entries "")
foreach(line IN LISTS nr_lines)
  string(REGEX REPLACE "^#define __NR_([a-z0-9_]+) ([0-9]+)$" "{\\2, \"\\1\"},\n" entry "${line}")
  string(APPEND nr_entries "${entry}")
endforeach()
list(LENGTH nr_lines nr_count)
if(nr_count LESS 300)
  message(FATAL_ERROR "${VTSCOPE_UNISTD_64}: only ${nr_count} syscalls found")
endif()
file(WRITE ${VTSCOPE_SYSCALL_NAMES_INC}.tmp "// Generated from ${VTSCOPE_UNISTD_64} by syscall_names.cmake.\n${nr_entries}")
file(COPY_FILE ${VTSCOPE_SYSCALL_NAMES_INC}.tmp ${VTSCOPE_SYSCALL_NAMES_INC} ONLY_IF_DIFFERENT)
