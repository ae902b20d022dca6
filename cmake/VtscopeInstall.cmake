# SPDX-License-Identifier: Apache-2.0
# What `cmake --install` (and make install, and the Debian package) puts where, under the prefix:
#   bin/vtscope                          the CLI
#   lib/vtscope/libvtscope.so            the in-JVM library (native/CMakeLists.txt): private to
#                                        vtscope, loaded by path (-agentpath:), so not on the
#                                        linker's path and without a soname
#   share/vtscope/java/*.jar             the Java side, from VTSCOPE_JAVA_DIR (built by Maven)
#   share/doc/vtscope/                   README.md, LICENSE, NOTICE, LICENSES/, copyright, docs/
# The CLI finds none of the others at run time: the target JVM loads libvtscope.so or a jar
# (vtscope-java.jar carries its own copy of the library), so the layout works from any prefix.
include(GNUInstallDirs)

install(TARGETS vtscope RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The jars come from Maven (make java), not from this build: installing without them would give
# an install, or a package, without its Java side, so that is an error unless asked for.
option(VTSCOPE_INSTALL_JAVA "Install the Java jars of VTSCOPE_JAVA_DIR (make java builds them)" ON)
if(VTSCOPE_INSTALL_JAVA)
  set(VTSCOPE_JARS vtscope-java.jar vtscope-otel.jar vtscope-otel-agent-extension.jar)
  install(CODE "
    foreach(jar ${VTSCOPE_JARS})
      if(NOT EXISTS \"${VTSCOPE_JAVA_DIR}/\${jar}\")
        message(FATAL_ERROR \"vtscope: no \${jar} in ${VTSCOPE_JAVA_DIR}: build the Java side first \"
          \"(make, or make java), or configure with -DVTSCOPE_JAVA_DIR=DIR, or with \"
          \"-DVTSCOPE_INSTALL_JAVA=OFF to install without it\")
      endif()
    endforeach()")
  list(TRANSFORM VTSCOPE_JARS PREPEND ${VTSCOPE_JAVA_DIR}/)
  # Not build/java/agent: the OpenTelemetry Java agents there are the tests' (two versions);
  # users run their own agent and add vtscope-otel-agent-extension.jar to it.
  install(FILES ${VTSCOPE_JARS} DESTINATION ${CMAKE_INSTALL_DATADIR}/vtscope/java)
endif()

set(VTSCOPE_DOC_DIR ${CMAKE_INSTALL_DATADIR}/doc/vtscope)
install(FILES README.md LICENSE NOTICE cmake/deb/copyright DESTINATION ${VTSCOPE_DOC_DIR})
install(DIRECTORY LICENSES DESTINATION ${VTSCOPE_DOC_DIR})
# Beside README.md, so that its links into docs/ hold in the installed copy too.
install(DIRECTORY docs DESTINATION ${VTSCOPE_DOC_DIR})
