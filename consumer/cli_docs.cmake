# SPDX-License-Identifier: Apache-2.0
# The man pages and the bash completion, generated from the option tables by the built vtscope
# (its hidden --man and --completion), so they always match the parser; installed with it.
include(GNUInstallDirs)

set(VTSCOPE_COMMANDS trace stat profile block top report list)
set(VTSCOPE_MAN_DIR ${CMAKE_BINARY_DIR}/man)
set(VTSCOPE_COMPLETION ${CMAKE_BINARY_DIR}/completion/vtscope)
set(VTSCOPE_MAN_PAGES ${VTSCOPE_MAN_DIR}/vtscope.1)
add_custom_command(
  OUTPUT ${VTSCOPE_MAN_DIR}/vtscope.1
  COMMAND ${CMAKE_COMMAND} -E make_directory ${VTSCOPE_MAN_DIR}
  COMMAND vtscope --man > ${VTSCOPE_MAN_DIR}/vtscope.1
  DEPENDS vtscope
  COMMENT "Generating vtscope.1")
foreach(cmd IN LISTS VTSCOPE_COMMANDS)
  add_custom_command(
    OUTPUT ${VTSCOPE_MAN_DIR}/vtscope-${cmd}.1
    COMMAND ${CMAKE_COMMAND} -E make_directory ${VTSCOPE_MAN_DIR}
    COMMAND vtscope ${cmd} --man > ${VTSCOPE_MAN_DIR}/vtscope-${cmd}.1
    DEPENDS vtscope
    COMMENT "Generating vtscope-${cmd}.1")
  list(APPEND VTSCOPE_MAN_PAGES ${VTSCOPE_MAN_DIR}/vtscope-${cmd}.1)
endforeach()
add_custom_command(
  OUTPUT ${VTSCOPE_COMPLETION}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/completion
  COMMAND vtscope --completion > ${VTSCOPE_COMPLETION}
  DEPENDS vtscope
  COMMENT "Generating the bash completion")
add_custom_target(vtscope_cli_docs ALL DEPENDS ${VTSCOPE_MAN_PAGES} ${VTSCOPE_COMPLETION})

install(FILES ${VTSCOPE_MAN_PAGES} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${VTSCOPE_COMPLETION} DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)

# docs/commands is checked in (cli_table_test fails when it is stale); this rewrites it.
set(VTSCOPE_MARKDOWN_DIR ${PROJECT_SOURCE_DIR}/docs/commands)
set(markdown_commands COMMAND vtscope --markdown > ${VTSCOPE_MARKDOWN_DIR}/vtscope.md)
foreach(cmd IN LISTS VTSCOPE_COMMANDS)
  list(APPEND markdown_commands COMMAND vtscope ${cmd} --markdown > ${VTSCOPE_MARKDOWN_DIR}/vtscope-${cmd}.md)
endforeach()
add_custom_target(vtscope_markdown
  COMMAND ${CMAKE_COMMAND} -E make_directory ${VTSCOPE_MARKDOWN_DIR}
  ${markdown_commands}
  DEPENDS vtscope
  COMMENT "Writing docs/commands from the option tables")
