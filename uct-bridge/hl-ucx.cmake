# Makes hl-ucx from hl-ucx.in (cmake -P, at build time):
#   IN      hl-ucx.in
#   OUT     the script to write
#   PLUGIN  the plugin file this copy of hl-ucx loads first
#   STAMP   ucx-source.sh's stamp: the libucx0 version the plugin is built
#           against, which hl-ucx checks against the installed one
foreach(_v IN ITEMS IN OUT PLUGIN STAMP)
  if(NOT DEFINED ${_v})
    message(FATAL_ERROR "hl-ucx.cmake: ${_v} is not set")
  endif()
endforeach()
file(READ "${STAMP}" HL_UCX_BUILT_FOR)
string(STRIP "${HL_UCX_BUILT_FOR}" HL_UCX_BUILT_FOR)
set(HL_UCX_PLUGIN_PATH "${PLUGIN}")
configure_file("${IN}" "${OUT}" @ONLY
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
                   GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
