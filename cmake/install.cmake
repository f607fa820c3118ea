# SPDX-License-Identifier: MIT
# Installation: cmake --install BUILD [--prefix P] puts in place
#   lib/libudccp.a, lib/libudccp.so*            (static and shared)
#   include/udccp/udccp.h
#   lib/pkgconfig/libudccp.pc                   (pkg-config --cflags --libs libudccp)
#   lib/cmake/udccp/udccpConfig*.cmake          (find_package(udccp): udccp::udccp,
#                                                udccp::udccp_static)
#   bin/udccp-*                                  (the tools, see CMakeLists.txt)
#   share/man/man1/udccp-*.1, share/man/man3/udccp.3 and udccp_<function>.3
#   share/doc/udccp/                            (doc/*.md, README, LICENSE, CHANGELOG)
#   lib/wireshark/plugins/dccp-udp.lua            (tshark/Wireshark decode DCCP-UDP)
# tests/install_pkgconfig.sh installs into a temporary prefix and builds
# against it both ways.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set_target_properties(udccp_shared PROPERTIES EXPORT_NAME udccp)
set_target_properties(udccp_static PROPERTIES EXPORT_NAME udccp_static)
# Components (the .deb packages, cmake/package.cmake): lib (the shared
# library), dev (header, static library, .so link, pkg-config, CMake
# package, API man pages, guides), tools (programs, their man pages, the
# Wireshark plugin), preload (libudccp-preload.so).
install(TARGETS udccp_static udccp_shared EXPORT udccpTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT lib NAMELINK_COMPONENT dev
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT lib
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${CMAKE_SOURCE_DIR}/include/udccp/udccp.h ${CMAKE_SOURCE_DIR}/include/udccp/ccid.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/udccp COMPONENT dev)

set(UDCCP_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/udccp)
install(EXPORT udccpTargets NAMESPACE udccp:: DESTINATION ${UDCCP_CMAKE_DIR}
  COMPONENT dev)
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/udccpConfig.cmake.in
  ${CMAKE_BINARY_DIR}/udccpConfig.cmake INSTALL_DESTINATION ${UDCCP_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/udccpConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/udccpConfig.cmake
  ${CMAKE_BINARY_DIR}/udccpConfigVersion.cmake DESTINATION ${UDCCP_CMAKE_DIR}
  COMPONENT dev)

# pkg-config: the prefix is found from the .pc file's own place
# (${pcfiledir}), so an install with DESTDIR or cmake --install --prefix
# is usable where it lands.
foreach(d LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${d}}")
    set(UDCCP_PC_${d} "${CMAKE_INSTALL_${d}}")
  else()
    set(UDCCP_PC_${d} "\${prefix}/${CMAKE_INSTALL_${d}}")
  endif()
endforeach()
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(UDCCP_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH UDCCP_PC_UP "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
  string(REGEX REPLACE "/$" "" UDCCP_PC_UP "${UDCCP_PC_UP}")
  set(UDCCP_PC_PREFIX "\${pcfiledir}/${UDCCP_PC_UP}")
endif()
configure_file(${CMAKE_SOURCE_DIR}/cmake/libudccp.pc.in
  ${CMAKE_BINARY_DIR}/libudccp.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/libudccp.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT dev)

# Man pages (doc/*.1 for the tools, doc/*.3 for the API)
file(GLOB UDCCP_MAN1 CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/doc/*.1)
file(GLOB UDCCP_MAN3 CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/doc/*.3)
install(FILES ${UDCCP_MAN1} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1
  COMPONENT tools)
install(FILES ${UDCCP_MAN3} DESTINATION ${CMAKE_INSTALL_MANDIR}/man3
  COMPONENT dev)

# One page per public function (man udccp_connect), made from the header,
# which is the manual (doc/gen_man3.py): build/man/man3/udccp_*.3
find_package(Python3 COMPONENTS Interpreter)
if(Python3_FOUND)
  set(UDCCP_MAN3_DIR ${CMAKE_BINARY_DIR}/man/man3)
  add_custom_command(OUTPUT ${UDCCP_MAN3_DIR}/.generated
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/doc/gen_man3.py
            ${CMAKE_SOURCE_DIR}/include/udccp/udccp.h ${UDCCP_MAN3_DIR} ${PROJECT_VERSION}
    COMMAND ${CMAKE_COMMAND} -E touch ${UDCCP_MAN3_DIR}/.generated
    DEPENDS ${CMAKE_SOURCE_DIR}/include/udccp/udccp.h
            ${CMAKE_SOURCE_DIR}/include/udccp/ccid.h ${CMAKE_SOURCE_DIR}/doc/gen_man3.py
    COMMENT "man pages from udccp.h")
  add_custom_target(udccp_man3 ALL DEPENDS ${UDCCP_MAN3_DIR}/.generated)
  install(DIRECTORY ${UDCCP_MAN3_DIR}/ DESTINATION ${CMAKE_INSTALL_MANDIR}/man3
    COMPONENT dev FILES_MATCHING PATTERN "udccp_*.3")
else()
  message(WARNING "python3 not found: no per-function man pages (apt-get install python3)")
endif()

# The guides and notes (doc/*.md: guide.md first), README, LICENSE, CHANGELOG
file(GLOB UDCCP_DOCS CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/doc/*.md)
install(FILES ${UDCCP_DOCS} ${CMAKE_SOURCE_DIR}/README.md ${CMAKE_SOURCE_DIR}/LICENSE
  ${CMAKE_SOURCE_DIR}/CHANGELOG.md DESTINATION ${CMAKE_INSTALL_DOCDIR}
  COMPONENT dev)

# Wireshark: the DCCP-UDP (RFC 6773) dissector plugin, where Wireshark
# looks for global plugins (with prefix /usr on Debian:
# /usr/lib/x86_64-linux-gnu/wireshark/plugins)
install(FILES ${CMAKE_SOURCE_DIR}/tools/wireshark/dccp-udp.lua
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/wireshark/plugins COMPONENT tools)
