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

# hl_cached_kernel(<target> <script> <prefix> <tree-key> <tree-env> <what>
#                  <missing> <out-var>)
# A kernel not installed on the host, kept in a cache by <script>, whose
# env file (<script> --env) holds <prefix>_KVER and <prefix>_<tree-key>:
# adds <target>, which builds our modules for it with
# <tree-env>=<that path> (build-kmods.sh), and sets <out-var> to its version
# (empty, saying <missing>, when the cache has none).
function(hl_cached_kernel target script prefix tree_key tree_env what missing out)
  set(${out} "" PARENT_SCOPE)
  execute_process(
    COMMAND ${script} --env
    OUTPUT_VARIABLE _env OUTPUT_STRIP_TRAILING_WHITESPACE
    ERROR_QUIET RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(STATUS "${what}: ${missing}")
    return()
  endif()
  file(STRINGS ${_env} _lines REGEX "^${prefix}_(KVER|${tree_key})=")
  foreach(_l IN LISTS _lines)
    if(_l MATCHES "^${prefix}_([A-Z]+)='([^']*)'")
      set(_v_${CMAKE_MATCH_1} ${CMAKE_MATCH_2})
    endif()
  endforeach()
  add_custom_target(${target}
    COMMAND ${CMAKE_COMMAND} -E env ${tree_env}=${_v_${tree_key}}
            ${PROJECT_SOURCE_DIR}/tools/build-kmods.sh ${_v_KVER}
            ${CMAKE_BINARY_DIR}/kmod/${_v_KVER}
    COMMENT "Building kernel modules for ${what} ${_v_KVER} (W=1, sparse)"
    USES_TERMINAL VERBATIM)
  add_dependencies(kmods ${target})
  message(STATUS "${what}: ${_v_KVER} (${_env})")
  set(${out} ${_v_KVER} PARENT_SCOPE)
endfunction()

# The debug kernel: its build tree is in its cache (debug-kernel.sh).
set(HL_DEBUG_KVER "")
if(HL_BUILD_KMODS AND HL_DEBUG_KERNEL)
  hl_cached_kernel(kmods_debug ${PROJECT_SOURCE_DIR}/tools/vm/debug-kernel.sh
    HLDK BUILD HL_KDIR "Debug kernel"
    "not built (tools/vm/debug-kernel.sh); no vm-debug tests" HL_DEBUG_KVER)
endif()

# Debian 13's kernel (tools/vm/trixie-root.sh): its headers' build programs
# need trixie's C library, so our modules are built chrooted in the trixie
# root (build-kmods.sh HL_KROOT).  HL_TRIXIE_KVER is empty when the root is
# not built or HL_TRIXIE is off.
set(HL_TRIXIE_KVER "")
if(HL_BUILD_KMODS AND HL_TRIXIE)
  hl_cached_kernel(kmods_trixie ${PROJECT_SOURCE_DIR}/tools/vm/trixie-root.sh
    HLTX ROOT HL_KROOT "Debian 13 kernel"
    "no trixie root (tools/vm/trixie-root.sh); no vm-trixie tests" HL_TRIXIE_KVER)
endif()
