# The supported kernels installed on this machine and a target that builds
# our modules for each of them into ${CMAKE_BINARY_DIR}/kmod/<kver>.
#
# Sets HL_KERNEL_SERIES (e.g. "6.1;6.12") and HL_KVER_<series> (the full
# version of the newest installed kernel of that series).

set(HL_KERNEL_SERIES "")
if(HL_BUILD_KMODS)
  execute_process(
    COMMAND ${PROJECT_SOURCE_DIR}/tools/vm/kernels.sh
    OUTPUT_VARIABLE _hl_kernels
    ERROR_VARIABLE _hl_kernels_err
    RESULT_VARIABLE _hl_kernels_rc)
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
