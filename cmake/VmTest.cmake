# hl_add_vm_test(<name>
#                COMMAND <cmd> [args...]
#                [INSMOD "<module> [params]" ...]    our modules to load first
#                [MODPROBE "<module> [params]" ...]  guest kernel modules
#                [KERNELS <series>...]               default: all supported
#                [TIMEOUT <seconds>]                 default: 600
#                [RUNVM_ARGS <args>...]              more run-vm options
#                [NO_UNLOAD]
#                [NO_DEBUG]                          not on the debug kernel
#                [DEBUG_ONLY]                        only on the debug kernel
#                [USERSPACE]                         see below
#                [DEBIAN_CONFIG]                     see below
#                [TRIXIE]                            see below
#                [PARALLEL]                          may share the machine
#                [CPUS <n>]                          vCPUs (see below)
#                [COST <seconds>]                    expected run time
#                [PAIR])                             two guests and their link
#
# Registers one CTest test per kernel, named vm-<series>.<name>, labelled
# "vm" and "vm-<series>", that boots that kernel under tools/vm/run-vm and
# runs the command inside the guest.  A test that runs on 6.12 also runs on
# the debug kernel (built from 6.12 sources) as vm-debug.<name>, labelled
# "vm" and "vm-debug", with HL_DEBUG_TIMEOUT_FACTOR times the timeout.
# DEBUG_ONLY registers only that one: for a test whose worth is what the
# debug kernel's checks (KASAN, lockdep) see, such as a fuzzer.
# Such a test then leaves Debian's own 6.12 build out: the debug kernel
# compiles the same sources with the same compat answers and checks more.
# DEBIAN_CONFIG keeps it on Debian's 6.12 too, for a test whose subject is
# what Debian's configuration makes of the code (no CONFIG_PCI_P2PDMA: the
# Gaudi-host refusals); so do the tests the debug kernel does not run
# (NO_DEBUG, PAIR); HL_RELEASE_ALL_TESTS=ON keeps them all.
# TRIXIE also runs the test on Debian 13's 6.12 kernel (trixie-root.sh) as
# vm-trixie.<name>, labelled "vm" and "vm-trixie": our modules built by
# trixie's compiler against its headers, loaded in its kernel, with the
# host's (Debian 12) programs in the guest.
# A VM test runs alone (RUN_SERIAL) unless it says PARALLEL: then CTest
# may run it beside another PARALLEL test (`ctest -j2`).  A guest under
# TCG keeps about one core busy (the host's load stays near 1 while the
# suite runs its guests one at a time), so two such guests share a 2-core
# machine at little cost each.  PARALLEL is for tests whose checks do not
# depend on how fast the guest runs; a test that measures time (benchmarks,
# bounded waits asserted to be short, peer timeouts) stays alone.
#
# A PARALLEL guest has one vCPU, so that two of them fill the two cores
# without contending: two guests of two vCPUs each ran 1.5 to 3 times
# slower side by side than alone, and for work that does not divide,
# one vCPU did the same work with less host CPU (measured in
# Documentation/testing.md).  CPUS 2 keeps two vCPUs for a test whose checks need things to
# run at the same time (races between threads or processes on one
# object, concurrent destroy, kills mid-copy) or whose work divides
# (a build with make -j2).  Tests that run alone have two by default.
#
# USERSPACE marks a test whose subject is userspace code (a tool, the
# library's own logic, a benchmark's smoke run): the kernel paths it
# reaches are those the kernel's own tests drive on every kernel, so it
# runs on the first of its kernels only (6.1, Debian 12's own, by
# default), and on the others and the debug kernel only when
# HL_USERSPACE_ALL_KERNELS or HL_DEBUG_ALL_TESTS is ON (the suite's time
# budget; see Documentation/testing.md).
#
# COST is the test's run time in seconds on an idle machine (6.12; twice
# that on the debug kernel).  CTest starts the costliest tests first, so
# a long test does not start last and leave a core idle; after a run,
# CTest's own record of the measured times takes over.
#
# PAIR boots two guests joined by a link with tools/vm/run-vm-pair (the
# options apply to both; the command runs in both, HL_NODE tells which)
# and adds the label "multinode".  Pair tests do not run on the debug
# kernel: it has no virtio-net driver for the link.

# KASAN, lockdep and object tracking slow the guest down.
set(HL_DEBUG_TIMEOUT_FACTOR 3 CACHE STRING "timeout multiplier for vm-debug tests")

# Reports the debug kernel makes about known bugs in our modules that wait
# for their fix, exempted from its log check one exact message at a time
# (any other report still fails the test).  Remove an entry with its fix.
set(HL_DEBUG_KNOWN_REPORTS)

option(HL_DEBUG_ALL_TESTS
  "Run the USERSPACE VM tests on the debug kernel too" OFF)
option(HL_RELEASE_ALL_TESTS
  "Run the VM tests the debug kernel runs on Debian's 6.12 build too" OFF)
option(HL_USERSPACE_ALL_KERNELS
  "Run the USERSPACE VM tests on every supported kernel, not the first only" OFF)

function(hl_add_vm_test name)
  if(NOT HL_VM_TESTS OR NOT HL_BUILD_KMODS)
    return()
  endif()
  cmake_parse_arguments(A "NO_UNLOAD;NO_DEBUG;DEBUG_ONLY;USERSPACE;PAIR;PARALLEL;DEBIAN_CONFIG;TRIXIE" "TIMEOUT;COST;CPUS"
                        "COMMAND;INSMOD;MODPROBE;KERNELS;RUNVM_ARGS" ${ARGN})
  if(NOT A_COMMAND)
    message(FATAL_ERROR "hl_add_vm_test(${name}): COMMAND is required")
  endif()
  if(NOT A_TIMEOUT)
    set(A_TIMEOUT 600)
  endif()
  if(NOT A_KERNELS)
    set(A_KERNELS ${HL_KERNEL_SERIES})
  endif()
  # The debug kernel is built from 6.12 sources.
  set(_debug_ok FALSE)
  if("6.12" IN_LIST A_KERNELS)
    set(_debug_ok TRUE)
  endif()
  if(A_USERSPACE AND NOT HL_USERSPACE_ALL_KERNELS AND NOT A_KERNELS STREQUAL "")
    list(GET A_KERNELS 0 A_KERNELS)
  endif()
  if(A_USERSPACE AND NOT HL_DEBUG_ALL_TESTS)
    set(A_NO_DEBUG TRUE)
  endif()
  if(NOT A_COST)
    set(A_COST 0)
  endif()
  math(EXPR _debug_cost "${A_COST} * 2")
  set(_args --quiet)
  foreach(_m IN LISTS A_INSMOD)
    list(APPEND _args --insmod "${_m}")
  endforeach()
  foreach(_m IN LISTS A_MODPROBE)
    list(APPEND _args --modprobe "${_m}")
  endforeach()
  if(A_NO_UNLOAD)
    list(APPEND _args --no-unload)
  endif()
  if(NOT A_CPUS)
    set(A_CPUS 2)
    if(A_PARALLEL AND NOT A_PAIR)
      set(A_CPUS 1)
    endif()
  endif()
  list(APPEND _args --cpus ${A_CPUS})
  list(APPEND _args ${A_RUNVM_ARGS})
  math(EXPR _ctest_timeout "${A_TIMEOUT} + 120")
  set(_runvm ${PROJECT_SOURCE_DIR}/tools/vm/run-vm)
  set(_labels vm)
  set(_serial TRUE)
  if(A_PARALLEL AND NOT A_PAIR)
    set(_serial FALSE)
  endif()
  if(A_PAIR)
    set(_runvm ${PROJECT_SOURCE_DIR}/tools/vm/run-vm-pair)
    set(_labels vm multinode)
    set(A_NO_DEBUG TRUE)
  endif()
  set(_plain_kernels ${A_KERNELS})
  if(A_DEBUG_ONLY)
    set(_plain_kernels)
  elseif(HL_DEBUG_KVER AND _debug_ok AND NOT A_NO_DEBUG
         AND NOT A_DEBIAN_CONFIG AND NOT HL_RELEASE_ALL_TESTS)
    list(REMOVE_ITEM _plain_kernels 6.12)
  endif()
  foreach(_series IN LISTS _plain_kernels)
    set(_kver ${HL_KVER_${_series}})
    add_test(NAME vm-${_series}.${name}
      COMMAND ${_runvm} --kernel ${_kver}
              --kmod-dir ${CMAKE_BINARY_DIR}/kmod/${_kver} ${_args}
              --timeout ${A_TIMEOUT} -- ${A_COMMAND}
      WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
    set_tests_properties(vm-${_series}.${name} PROPERTIES
      LABELS "${_labels};vm-${_series}" TIMEOUT ${_ctest_timeout}
      RUN_SERIAL ${_serial} COST ${A_COST})
  endforeach()
  if(HL_TRIXIE_KVER AND A_TRIXIE)
    add_test(NAME vm-trixie.${name}
      COMMAND ${_runvm} --kernel trixie
              --kmod-dir ${CMAKE_BINARY_DIR}/kmod/${HL_TRIXIE_KVER} ${_args}
              --timeout ${A_TIMEOUT} -- ${A_COMMAND}
      WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
    set_tests_properties(vm-trixie.${name} PROPERTIES
      LABELS "${_labels};vm-trixie" TIMEOUT ${_ctest_timeout}
      RUN_SERIAL ${_serial} COST ${A_COST})
  endif()
  if(HL_DEBUG_KVER AND _debug_ok AND NOT A_NO_DEBUG)
    math(EXPR _dt "${A_TIMEOUT} * ${HL_DEBUG_TIMEOUT_FACTOR}")
    math(EXPR _ctest_dt "${_dt} + 120")
    set(_known "")
    if(HL_DEBUG_KNOWN_REPORTS)
      string(JOIN "|" _known_re ${HL_DEBUG_KNOWN_REPORTS})
      set(_known --log-ok "${_known_re}")
    endif()
    add_test(NAME vm-debug.${name}
      COMMAND ${PROJECT_SOURCE_DIR}/tools/vm/run-vm --kernel debug
              --kmod-dir ${CMAKE_BINARY_DIR}/kmod/${HL_DEBUG_KVER} ${_args}
              ${_known} --timeout ${_dt}
              --env HL_TIMEOUT_FACTOR=${HL_DEBUG_TIMEOUT_FACTOR}
              -- ${A_COMMAND}
      WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
    set_tests_properties(vm-debug.${name} PROPERTIES
      LABELS "vm;vm-debug" TIMEOUT ${_ctest_dt} RUN_SERIAL ${_serial}
      COST ${_debug_cost})
  endif()
endfunction()
