# SPDX-License-Identifier: MIT
# Debian packages (issue 15): `make deb` runs cpack -G DEB on a Release
# build installed to /usr.  One package per install component
# (cmake/install.cmake):
#   libudccp0         the shared library
#   libudccp-dev      header, static library, libudccp.so, pkg-config and
#                     CMake files, API man pages, guides
#   udccp-tools       udccp-perf, udccp-cat, udccp-sim, udccp-linkem and
#                     their man pages, the Wireshark DCCP-UDP plugin
#   libudccp-preload  LD_PRELOAD library for Linux DCCP programs
# Dependencies on libc come from dpkg-shlibdeps; -dev depends on the
# library of the same version.  tests/packaging/deb.sh installs them into
# a throwaway root, builds an example against the -dev package, removes.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME udccp)
set(CPACK_PACKAGE_VENDOR "The udccp authors")
set(CPACK_PACKAGE_CONTACT "The udccp authors <udccp@localhost>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "userspace DCCP (RFC 4340): datagrams with congestion control")
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL lib dev tools preload)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://localhost/udccp")

set(CPACK_DEBIAN_LIB_PACKAGE_NAME libudccp0)
set(CPACK_DEBIAN_LIB_PACKAGE_SECTION libs)
set(CPACK_COMPONENT_LIB_DESCRIPTION
  "userspace DCCP library\n libudccp implements DCCP (RFC 4340) with CCID 2, 3 and 4 over\n DCCP-UDP (RFC 6773) or native DCCP.")
set(CPACK_DEBIAN_LIB_PACKAGE_GENERATE_SHLIBS ON)

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libudccp-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libudccp0 (= ${PROJECT_VERSION})")
set(CPACK_COMPONENT_DEV_DESCRIPTION
  "userspace DCCP library: development files\n Header, static library, pkg-config and CMake files, man pages.")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME udccp-tools)
set(CPACK_COMPONENT_TOOLS_DESCRIPTION
  "userspace DCCP tools\n udccp-perf (like iperf3), udccp-cat (like netcat), udccp-sim and\n udccp-linkem; a Wireshark plugin for DCCP-UDP.")

set(CPACK_DEBIAN_PRELOAD_PACKAGE_NAME libudccp-preload)
set(CPACK_DEBIAN_PRELOAD_PACKAGE_SECTION libs)
set(CPACK_COMPONENT_PRELOAD_DESCRIPTION
  "run Linux DCCP programs on udccp\n An LD_PRELOAD library: SOCK_DCCP sockets of unmodified programs go\n over udccp.")
include(CPack)
