# The supported kernels installed on this machine and a target that builds
# our modules for each of them into ${CMAKE_BINARY_DIR}/kmod/<kver>.
#
# Sets HL_KERNEL_SERIES (e.g. "6.1;6.12") and HL_KVER_<series> (the full
# version of the newest installed kernel of that series), and
# HL_DEBUG_KVER, the version of the KASAN/lockdep debug kernel built by
# tools/vm/debug-kernel.sh (empty when it is not built or HL_DEBUG_KERNEL
# is off; re-run CMake after building it).

set(HL_KERNEL_SERIES "")
# Userspace-only builds still learn the installed kernels: host tests
# compile against their uapi headers.
execute_process(
  COMMAND ${PROJECT_SOURCE_DIR}/tools/vm/kernels.sh
  OUTPUT_VARIABLE _hl_kernels
  ERROR_VARIABLE _hl_kernels_err
  RESULT_VARIABLE _hl_kernels_rc)
if(NOT HL_BUILD_KMODS AND _hl_kernels_rc EQUAL 0)
  string(REPLACE "\n" ";" _hl_lines "${_hl_kernels}")
  foreach(_line IN LISTS _hl_lines)
    if(NOT _line STREQUAL "")
      string(REPLACE " " ";" _pair "${_line}")
      list(GET _pair 0 _series)
      list(GET _pair 1 HL_KVER_${_series})
    endif()
  endforeach()
endif()
if(HL_BUILD_KMODS)
  if(NOT _hl_kernels_rc EQUAL 0)
    message(FATAL_ERROR "${_hl_kernels_err}Run tools/setup.sh to install both "
                        "kernels, or configure with -DHL_BUILD_KMODS=OFF.")
  endif()
  string(REPLACE "\n" ";" _hl_lines "${_hl_kernels}")
  add_custom_target(kmods ALL)
  foreach(_line IN LISTS _hl_lines)
    if(_line STREQUAL "")
      continue()
    endif()
    string(REPLACE " " ";" _pair "${_line}")
    list(GET _pair 0 _series)
    list(GET _pair 1 _kver)
    list(APPEND HL_KERNEL_SERIES ${_series})
    set(HL_KVER_${_series} ${_kver})
    string(REPLACE "." "_" _tname "kmods_${_series}")
    add_custom_target(${_tname}
      COMMAND ${PROJECT_SOURCE_DIR}/tools/build-kmods.sh ${_kver}
              ${CMAKE_BINARY_DIR}/kmod/${_kver}
      COMMENT "Building kernel modules for ${_kver} (W=1, sparse)"
      USES_TERMINAL VERBATIM)
    add_dependencies(kmods ${_tname})
    message(STATUS "Kernel ${_series}: ${_kver}")
  endforeach()
endif()

# The debug kernel is not installed on the host: its build tree is in its
# cache, named by the kernel.env that debug-kernel.sh writes.
set(HL_DEBUG_KVER "")
if(HL_BUILD_KMODS AND HL_DEBUG_KERNEL)
  execute_process(
    COMMAND ${PROJECT_SOURCE_DIR}/tools/vm/debug-kernel.sh --env
    OUTPUT_VARIABLE _hl_dk_env OUTPUT_STRIP_TRAILING_WHITESPACE
    ERROR_QUIET RESULT_VARIABLE _hl_dk_rc)
  if(_hl_dk_rc EQUAL 0)
    file(STRINGS ${_hl_dk_env} _hl_dk_lines REGEX "^HLDK_(KVER|BUILD)=")
    foreach(_l IN LISTS _hl_dk_lines)
      if(_l MATCHES "^HLDK_([A-Z]+)='([^']*)'")
        set(_hl_dk_${CMAKE_MATCH_1} ${CMAKE_MATCH_2})
      endif()
    endforeach()
    set(HL_DEBUG_KVER ${_hl_dk_KVER})
    add_custom_target(kmods_debug
      COMMAND ${CMAKE_COMMAND} -E env HL_KDIR=${_hl_dk_BUILD}
              ${PROJECT_SOURCE_DIR}/tools/build-kmods.sh ${HL_DEBUG_KVER}
              ${CMAKE_BINARY_DIR}/kmod/${HL_DEBUG_KVER}
      COMMENT "Building kernel modules for the debug kernel ${HL_DEBUG_KVER} (W=1, sparse)"
      USES_TERMINAL VERBATIM)
    add_dependencies(kmods kmods_debug)
    message(STATUS "Debug kernel: ${HL_DEBUG_KVER} (${_hl_dk_env})")
  else()
    message(STATUS "Debug kernel: not built (tools/vm/debug-kernel.sh); no vm-debug tests")
  endif()
endif()

# Debian 13's kernel (tools/vm/trixie-root.sh): not installed on the host
# either; its headers' build programs need trixie's C library, so our
# modules are built chrooted in the trixie root (build-kmods.sh HL_KROOT).
# Sets HL_TRIXIE_KVER (empty when the root is not built or HL_TRIXIE is off).
set(HL_TRIXIE_KVER "")
if(HL_BUILD_KMODS AND HL_TRIXIE)
  execute_process(
    COMMAND ${PROJECT_SOURCE_DIR}/tools/vm/trixie-root.sh --env
    OUTPUT_VARIABLE _hl_tx_env OUTPUT_STRIP_TRAILING_WHITESPACE
    ERROR_QUIET RESULT_VARIABLE _hl_tx_rc)
  if(_hl_tx_rc EQUAL 0)
    file(STRINGS ${_hl_tx_env} _hl_tx_lines REGEX "^HLTX_(KVER|ROOT)=")
    foreach(_l IN LISTS _hl_tx_lines)
      if(_l MATCHES "^HLTX_([A-Z]+)='([^']*)'")
        set(_hl_tx_${CMAKE_MATCH_1} ${CMAKE_MATCH_2})
      endif()
    endforeach()
    set(HL_TRIXIE_KVER ${_hl_tx_KVER})
    add_custom_target(kmods_trixie
      COMMAND ${CMAKE_COMMAND} -E env HL_KROOT=${_hl_tx_ROOT}
              ${PROJECT_SOURCE_DIR}/tools/build-kmods.sh ${HL_TRIXIE_KVER}
              ${CMAKE_BINARY_DIR}/kmod/${HL_TRIXIE_KVER}
      COMMENT "Building kernel modules for Debian 13's ${HL_TRIXIE_KVER} in its root (W=1, sparse)"
      USES_TERMINAL VERBATIM)
    add_dependencies(kmods kmods_trixie)
    message(STATUS "Debian 13 kernel: ${HL_TRIXIE_KVER} (${_hl_tx_env})")
  else()
    message(STATUS "Debian 13 kernel: no trixie root (tools/vm/trixie-root.sh); no vm-trixie tests")
  endif()
endif()
