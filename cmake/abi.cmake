# SPDX-License-Identifier: MIT
# The shared library exports the functions of include/udccp/udccp.h and
# nothing else (issue 14: the ABI is the header).  The list comes from the
# header itself (cmake/abi_symbols.sh), so a new public function is
# exported by declaring it; everything else in lib/ and io/ stays local.
# Symbols carry the version node UDCCP_0 (the SONAME's major, 0: see
# doc/abi.md for the policy); tests/abi_symbols.sh checks `nm -D`.
set(UDCCP_HEADER ${CMAKE_SOURCE_DIR}/include/udccp/udccp.h)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${UDCCP_HEADER} ${CMAKE_SOURCE_DIR}/include/udccp/ccid.h
  ${CMAKE_SOURCE_DIR}/cmake/abi_symbols.sh)
execute_process(COMMAND sh ${CMAKE_SOURCE_DIR}/cmake/abi_symbols.sh ${UDCCP_HEADER}
  OUTPUT_VARIABLE UDCCP_ABI_SYMBOLS RESULT_VARIABLE UDCCP_ABI_RC)
if(NOT UDCCP_ABI_RC EQUAL 0 OR UDCCP_ABI_SYMBOLS STREQUAL "")
  message(FATAL_ERROR "cmake/abi_symbols.sh found no functions in ${UDCCP_HEADER}")
endif()
string(REGEX REPLACE "\n$" "" UDCCP_ABI_SYMBOLS "${UDCCP_ABI_SYMBOLS}")
string(REPLACE "\n" ";\n    " UDCCP_ABI_SYMBOLS "${UDCCP_ABI_SYMBOLS}")
set(UDCCP_VERSION_SCRIPT ${CMAKE_BINARY_DIR}/libudccp.map)
file(WRITE ${UDCCP_VERSION_SCRIPT}.tmp
  "/* generated from include/udccp/udccp.h by cmake/abi.cmake */\n"
  "UDCCP_0 {\n  global:\n    ${UDCCP_ABI_SYMBOLS};\n  local:\n    *;\n};\n")
# rewritten only when it changed, so the library relinks only then
file(COPY_FILE ${UDCCP_VERSION_SCRIPT}.tmp ${UDCCP_VERSION_SCRIPT} ONLY_IF_DIFFERENT)
target_link_options(udccp_shared PRIVATE -Wl,--version-script=${UDCCP_VERSION_SCRIPT})
set_target_properties(udccp_shared PROPERTIES LINK_DEPENDS ${UDCCP_VERSION_SCRIPT})
