# SPDX-License-Identifier: Apache-2.0
# The Debian package (CPack's DEB generator): make package, or `cpack -G DEB` in the build folder,
# writes vtscope_<version>_<arch>.deb there, with what cmake/VtscopeInstall.cmake installs under
# /usr. Its Depends are the shared libraries' packages as dpkg-shlibdeps finds them (libbpf1,
# libelf1, libcurl4, libc6, ...): the binary needs no other package. The JDK is the traced JVM's,
# not a dependency: block --jfr reads recordings with the build's JDK (VTSCOPE_DEFAULT_JFR_JDK)
# or the one --jfr-jdk names, which no Debian package of this release provides (JDK 24+).
set(VTSCOPE_PACKAGE_MAINTAINER "the vtscope authors <maintainers@users.noreply.a-seed-82fb4e7a.example>"
  CACHE STRING "the Debian package's Maintainer field")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME vtscope)
set(CPACK_PACKAGE_VENDOR "the vtscope authors")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT ${VTSCOPE_PACKAGE_MAINTAINER})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "attributes OS events of a JVM to Java virtual threads and trace contexts")
# Lines kept under 80 columns, as dpkg shows them.
set(CPACK_PACKAGE_DESCRIPTION "vtscope traces a running JVM with eBPF (syscalls, CPU profiles,
off-CPU blocking) and attributes each event to the Java virtual thread mounted
at that instant and to its OpenTelemetry trace context, on a stock HotSpot
JDK 24 or later. The package also carries libvtscope.so, the optional in-JVM
library (-agentpath), and the Java side's jars.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_RESOURCE_FILE_README ${PROJECT_SOURCE_DIR}/README.md)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # vtscope_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${VTSCOPE_PACKAGE_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Debian has no licence field: its place is /usr/share/doc/vtscope/copyright (cmake/deb/copyright,
# machine-readable), which VtscopeInstall.cmake installs.
include(CPack)

# The package's test: builds it with this configuration, unpacks it into a scratch root and runs
# vtscope, libvtscope and the jars from there (scripts/test-package.sh). Not in a sanitized tree:
# its binaries need the sanitizers' runtime and are not what one ships.
if(VTSCOPE_TESTS AND NOT VTSCOPE_SANITIZE)
  add_test(NAME Package.DebInstallsAndRuns
    COMMAND ${PROJECT_SOURCE_DIR}/scripts/test-package.sh ${CMAKE_BINARY_DIR} ${PROJECT_VERSION} ${VTSCOPE_JAVA_HOME})
  set_tests_properties(Package.DebInstallsAndRuns PROPERTIES LABELS package SKIP_RETURN_CODE 77 TIMEOUT 900)
endif()
