# ShaderBuild.cmake: build a shaderbuild project (shaderbuild.toml) as part of a CMake build.
#
#   include(path/to/cmake/ShaderBuild.cmake)
#   shaderbuild_add_shaders(<target>
#       PROJECT <dir or project file>          # required, relative to the current source dir
#       [OUTPUT_DIR <dir>]                      # default: ${CMAKE_CURRENT_BINARY_DIR}/<target>
#       [BACKENDS spirv dxil ...]               # default: the project's targets
#       [JOBS <n>]                              # default: shaderbuild's (all cores)
#       [SHADERBUILD <command> ...])            # default: the `shaderbuild` program on PATH
#
# Creates the custom target <target> (built by ALL) that runs `shaderbuild build` on the project.
# The build writes a depfile (`--depfile`) listing every source, include and the project file it
# read, so Ninja and Makefile generators re-run it when any of them changes; shaderbuild itself
# then recompiles only the shaders whose inputs changed.  The output directory is available as
# the target property SHADERBUILD_OUTPUT_DIR (e.g. for target_include_directories, to include the
# generated C headers); make consumers depend on <target> with add_dependencies().
#
# Requires CMake 3.20 (DEPFILE with both Ninja and Makefile generators).

cmake_minimum_required(VERSION 3.20)

function(shaderbuild_add_shaders target)
  cmake_parse_arguments(PARSE_ARGV 1 SB "" "PROJECT;OUTPUT_DIR;JOBS" "BACKENDS;SHADERBUILD")
  if(SB_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "shaderbuild_add_shaders: unknown arguments: ${SB_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT SB_PROJECT)
    message(FATAL_ERROR "shaderbuild_add_shaders(${target}): PROJECT <dir> is required")
  endif()
  get_filename_component(project_path "${SB_PROJECT}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT SB_OUTPUT_DIR)
    set(SB_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/${target}")
  endif()
  get_filename_component(output_dir "${SB_OUTPUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  if(NOT SB_SHADERBUILD)
    find_program(SHADERBUILD_EXECUTABLE shaderbuild REQUIRED)
    set(SB_SHADERBUILD "${SHADERBUILD_EXECUTABLE}")
  endif()

  # every output file, so that Ninja knows who writes the generated headers (and re-checks the
  # objects including them after the shaders were rebuilt); the list is taken at configure time:
  # the project file is a configure dependency, but a new file matching a glob needs a re-configure
  set(list_command ${SB_SHADERBUILD} list "${project_path}" --output-dir "${output_dir}" --json)
  foreach(backend IN LISTS SB_BACKENDS)
    list(APPEND list_command --target "${backend}")
  endforeach()
  execute_process(COMMAND ${list_command} OUTPUT_VARIABLE listing ERROR_VARIABLE list_error
                  RESULT_VARIABLE list_result)
  if(NOT list_result EQUAL 0)
    message(FATAL_ERROR "shaderbuild_add_shaders(${target}): `${list_command}` failed:\n${list_error}")
  endif()
  set(byproducts "")
  string(JSON count LENGTH "${listing}")
  if(count GREATER 0)
    math(EXPR last "${count} - 1")
    foreach(i RANGE ${last})
      string(JSON n_outputs LENGTH "${listing}" ${i} outputs)
      math(EXPR last_output "${n_outputs} - 1")
      foreach(j RANGE ${last_output})
        string(JSON path GET "${listing}" ${i} outputs ${j})
        list(APPEND byproducts "${path}")
      endforeach()
    endforeach()
  endif()
  if(IS_DIRECTORY "${project_path}")
    file(GLOB project_files "${project_path}/shaderbuild.toml" "${project_path}/pyproject.toml")
  else()
    set(project_files "${project_path}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${project_files})

  set(stamp "${CMAKE_CURRENT_BINARY_DIR}/${target}.shaderbuild.stamp")
  set(command ${SB_SHADERBUILD} build "${project_path}" --output-dir "${output_dir}" -q --depfile "${stamp}.d")
  if(SB_JOBS)
    list(APPEND command -j "${SB_JOBS}")
  endif()
  foreach(backend IN LISTS SB_BACKENDS)
    list(APPEND command --target "${backend}")
  endforeach()

  add_custom_command(
    OUTPUT "${stamp}"
    BYPRODUCTS ${byproducts}
    COMMAND ${command}
    DEPFILE "${stamp}.d"
    COMMENT "shaderbuild: ${SB_PROJECT}"
    VERBATIM)
  add_custom_target(${target} ALL DEPENDS "${stamp}")
  set_target_properties(${target} PROPERTIES SHADERBUILD_OUTPUT_DIR "${output_dir}")
endfunction()
