# DeepGEMM (deepseek-ai/DeepGEMM, header-only CUDA templates, MIT) for kernels/deepgemm/: the
# FP8Block Fprop and Dgrad GEMMs behind --provider=deepgemm (dense) and --grouped=deepgemm
# (m-grouped experts). Optional: without it everything else builds, those providers refuse their
# cases saying how to get it, and auto chooses among the others. Its kernels include CUTLASS's CuTe, so it needs CUTLASS (cmake/cutlass.cmake).
#
# Where DeepGEMM comes from, in this order:
#   GEMMSCOPE_DEEPGEMM_DIR   a clone of the repository (or the deep_gemm/include folder of one);
#   an installed package     python3 is asked where the deep_gemm package is (a module lookup, no
#                            import): its include folder.
#   GEMMSCOPE_DEEPGEMM_FETCH ON (default), in a build with CUTLASS: FetchContent clones
#                            GEMMSCOPE_DEEPGEMM_REPOSITORY at GEMMSCOPE_DEEPGEMM_COMMIT (the commit
#                            we test; its kernel's template arguments change between versions)
#                            into the build tree, without its submodules (we use our own CUTLASS),
#                            and a re-configure reuses that copy. Where the clone fails (offline, a
#                            bad URL or commit) the build goes on without DeepGEMM and says why.
#
# Sets GEMMSCOPE_DEEPGEMM_FOUND, GEMMSCOPE_DEEPGEMM_SUMMARY (for the configure output) and, when
# found, the interface target gemmscope_deepgemm_headers.

# Script mode (cmake -P this file, from gemmscope_fetch_deepgemm below): the clone itself. It runs
# in a child process because FetchContent's errors are fatal, and a failed clone must not stop
# configure.
if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  include(FetchContent)
  FetchContent_Populate(deepgemm QUIET
    GIT_REPOSITORY "${GEMMSCOPE_DEEPGEMM_REPOSITORY}"
    GIT_TAG "${GEMMSCOPE_DEEPGEMM_COMMIT}"
    # Only the submodules under deep_gemm/include, which has none: third-party/cutlass and fmt are
    # not needed (we use our own CUTLASS). The empty value that means none in ExternalProject is
    # dropped by FetchContent_Populate in CMake 3.25.
    GIT_SUBMODULES "deep_gemm/include"
    SUBBUILD_DIR "${GEMMSCOPE_DEEPGEMM_DEPS}/deepgemm-subbuild"
    SOURCE_DIR "${GEMMSCOPE_DEEPGEMM_DEPS}/deepgemm-src"
    BINARY_DIR "${GEMMSCOPE_DEEPGEMM_DEPS}/deepgemm-build")
  return()
endif()

set(GEMMSCOPE_DEEPGEMM_DIR "" CACHE PATH
    "A clone of deepseek-ai/DeepGEMM (empty: look for an installed deep_gemm package, then fetch)")
option(GEMMSCOPE_DEEPGEMM_FETCH
       "Clone DeepGEMM at GEMMSCOPE_DEEPGEMM_COMMIT into the build tree when none is found" ON)
set(GEMMSCOPE_DEEPGEMM_REPOSITORY "https://github.com/deepseek-ai/DeepGEMM.git" CACHE STRING
    "The git repository GEMMSCOPE_DEEPGEMM_FETCH clones")
set(GEMMSCOPE_DEEPGEMM_COMMIT "54e22612409371d6364144b69086735beb54e98b" CACHE STRING
    "The DeepGEMM commit GEMMSCOPE_DEEPGEMM_FETCH checks out (the one gemmscope is tested at)")

# Clones DeepGEMM into the build tree, or reuses the copy an earlier configure cloned at the same
# repository and commit (no network needed then). Sets `include_var` to its deep_gemm/include
# folder, or `why_var`.
function(gemmscope_fetch_deepgemm kernel include_var why_var)
  set(deps "${PROJECT_BINARY_DIR}/_deps")
  set(include "${deps}/deepgemm-src/deep_gemm/include")
  set(stamp "${deps}/deepgemm-fetched.txt")
  set(wanted "${GEMMSCOPE_DEEPGEMM_REPOSITORY} ${GEMMSCOPE_DEEPGEMM_COMMIT}")
  if(EXISTS "${stamp}" AND EXISTS "${include}/${kernel}")
    file(READ "${stamp}" fetched)
    if(fetched STREQUAL wanted)
      set(${include_var} "${include}" PARENT_SCOPE)
      return()
    endif()
  endif()
  find_package(Git QUIET)
  if(NOT GIT_FOUND)
    set(${why_var} "GEMMSCOPE_DEEPGEMM_FETCH needs git, which is not installed" PARENT_SCOPE)
    return()
  endif()
  message(STATUS "gemmscope: fetching DeepGEMM ${GEMMSCOPE_DEEPGEMM_COMMIT} from "
                 "${GEMMSCOPE_DEEPGEMM_REPOSITORY}")
  file(REMOVE_RECURSE "${deps}/deepgemm-src" "${deps}/deepgemm-subbuild" "${deps}/deepgemm-build"
       "${stamp}")
  # GIT_TERMINAL_PROMPT=0: a repository that asks for a password (GitHub's answer to a wrong URL)
  # fails at once instead of waiting on the terminal; the low-speed limit ends a stalled transfer
  # after 30 s rather than at the 300 s timeout.
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -E env GIT_TERMINAL_PROMPT=0 GIT_HTTP_LOW_SPEED_LIMIT=1000
            GIT_HTTP_LOW_SPEED_TIME=30
            "${CMAKE_COMMAND}" "-DGEMMSCOPE_DEEPGEMM_REPOSITORY=${GEMMSCOPE_DEEPGEMM_REPOSITORY}"
            "-DGEMMSCOPE_DEEPGEMM_COMMIT=${GEMMSCOPE_DEEPGEMM_COMMIT}"
            "-DGEMMSCOPE_DEEPGEMM_DEPS=${deps}" "-DGIT_EXECUTABLE=${GIT_EXECUTABLE}"
            "-DCMAKE_GENERATOR=${CMAKE_GENERATOR}" "-DCMAKE_MAKE_PROGRAM=${CMAKE_MAKE_PROGRAM}"
            -P "${CMAKE_CURRENT_FUNCTION_LIST_FILE}"
    RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output TIMEOUT 300)
  set(why "")
  if(NOT status EQUAL 0)
    # git's own message says why (host unreachable, no such repository or commit).
    string(REGEX MATCH "(fatal|error): [^\n]*" first_error "${output}")
    if(NOT first_error)
      string(REGEX MATCH "CMake Error[^\n]*" first_error "${output}")
    endif()
    if(NOT first_error)
      set(first_error "${status}")
    endif()
    string(CONCAT why "could not fetch ${GEMMSCOPE_DEEPGEMM_COMMIT} from "
           "${GEMMSCOPE_DEEPGEMM_REPOSITORY}: ${first_error}")
  elseif(NOT EXISTS "${include}/${kernel}")
    string(CONCAT why "${GEMMSCOPE_DEEPGEMM_REPOSITORY} at ${GEMMSCOPE_DEEPGEMM_COMMIT} has no "
           "deep_gemm/include/${kernel}")
  endif()
  if(NOT why STREQUAL "")
    set(${why_var} "${why}" PARENT_SCOPE)
    return()
  endif()
  file(WRITE "${stamp}" "${wanted}")
  set(${include_var} "${include}" PARENT_SCOPE)
endfunction()

set(GEMMSCOPE_DEEPGEMM_FOUND OFF)
set(_gemmscope_deepgemm_kernel "deep_gemm/impls/sm90_fp8_gemm_1d2d.cuh")
set(_gemmscope_deepgemm_include "")
set(_gemmscope_deepgemm_why "")
set(_gemmscope_deepgemm_fetched OFF)
set(_gemmscope_deepgemm_places "${GEMMSCOPE_DEEPGEMM_DIR}")
if(NOT GEMMSCOPE_DEEPGEMM_DIR)
  find_program(GEMMSCOPE_PYTHON3 python3)
  if(GEMMSCOPE_PYTHON3)
    execute_process(
      COMMAND "${GEMMSCOPE_PYTHON3}" -c
        "import importlib.util as u; s = u.find_spec('deep_gemm'); print(s.submodule_search_locations[0] if s else '')"
      OUTPUT_VARIABLE _gemmscope_deepgemm_places OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  endif()
endif()
if(_gemmscope_deepgemm_places)
  foreach(candidate "${_gemmscope_deepgemm_places}" "${_gemmscope_deepgemm_places}/include"
                    "${_gemmscope_deepgemm_places}/deep_gemm/include")
    if(NOT _gemmscope_deepgemm_include AND EXISTS "${candidate}/${_gemmscope_deepgemm_kernel}")
      set(_gemmscope_deepgemm_include "${candidate}")
    endif()
  endforeach()
  if(NOT _gemmscope_deepgemm_include)
    set(_gemmscope_deepgemm_why "${_gemmscope_deepgemm_places} has no ${_gemmscope_deepgemm_kernel}")
  endif()
else()
  set(_gemmscope_deepgemm_why
      "GEMMSCOPE_DEEPGEMM_DIR is empty and python3 finds no deep_gemm package")
endif()
# The fetch comes last, and only where its kernels could build: without CUTLASS a clone is wasted.
if(_gemmscope_deepgemm_why AND NOT GEMMSCOPE_DEEPGEMM_DIR)
  if(NOT GEMMSCOPE_DEEPGEMM_FETCH)
    string(APPEND _gemmscope_deepgemm_why "; GEMMSCOPE_DEEPGEMM_FETCH is OFF")
  elseif(FETCHCONTENT_FULLY_DISCONNECTED)
    string(APPEND _gemmscope_deepgemm_why "; not fetched: FETCHCONTENT_FULLY_DISCONNECTED is ON")
  elseif(NOT GEMMSCOPE_CUTLASS_FOUND)
    string(APPEND _gemmscope_deepgemm_why
           "; not fetched: DeepGEMM's kernels need CUTLASS, which this build has not")
  else()
    set(_gemmscope_deepgemm_fetch_why "")
    gemmscope_fetch_deepgemm("${_gemmscope_deepgemm_kernel}" _gemmscope_deepgemm_include
                             _gemmscope_deepgemm_fetch_why)
    if(_gemmscope_deepgemm_include)
      set(_gemmscope_deepgemm_why "")
      set(_gemmscope_deepgemm_fetched ON)
    else()
      set(_gemmscope_deepgemm_why "${_gemmscope_deepgemm_fetch_why}")
      message(STATUS "gemmscope: ${_gemmscope_deepgemm_fetch_why}; the build goes on without "
                     "DeepGEMM (configure again where ${GEMMSCOPE_DEEPGEMM_REPOSITORY} can be "
                     "reached, or -DGEMMSCOPE_DEEPGEMM_DIR=<a clone at that commit>)")
    endif()
  endif()
endif()
if(NOT _gemmscope_deepgemm_why AND NOT GEMMSCOPE_CUTLASS_FOUND)
  set(_gemmscope_deepgemm_why "DeepGEMM's kernels need CUTLASS, which this build has not")
endif()

if(NOT _gemmscope_deepgemm_why)
  set(GEMMSCOPE_DEEPGEMM_FOUND ON)
  set(GEMMSCOPE_DEEPGEMM_SUMMARY
      "DeepGEMM's sm_90a FP8 1x128 x 128x128 GEMMs (FP8Block, dense and m-grouped) from ${_gemmscope_deepgemm_include}")
  if(_gemmscope_deepgemm_fetched)
    string(APPEND GEMMSCOPE_DEEPGEMM_SUMMARY
           " (fetched ${GEMMSCOPE_DEEPGEMM_COMMIT} from ${GEMMSCOPE_DEEPGEMM_REPOSITORY})")
  endif()
  add_library(gemmscope_deepgemm_headers INTERFACE)
  # SYSTEM: our warnings-as-errors apply to our code, not to DeepGEMM's headers.
  target_include_directories(gemmscope_deepgemm_headers SYSTEM INTERFACE
    "${_gemmscope_deepgemm_include}")
  target_link_libraries(gemmscope_deepgemm_headers INTERFACE gemmscope_cutlass_headers)
elseif(GEMMSCOPE_DEEPGEMM_DIR)
  message(FATAL_ERROR "gemmscope: GEMMSCOPE_DEEPGEMM_DIR is set but unusable: ${_gemmscope_deepgemm_why}")
else()
  string(CONCAT GEMMSCOPE_DEEPGEMM_SUMMARY "no DeepGEMM (${_gemmscope_deepgemm_why}): "
         "--provider=deepgemm and --grouped=deepgemm refuse their cases and its GPU tests skip; to build it: "
         "-DGEMMSCOPE_DEEPGEMM_DIR=<a clone of ${GEMMSCOPE_DEEPGEMM_REPOSITORY} at "
         "${GEMMSCOPE_DEEPGEMM_COMMIT}>, or let configure fetch that (GEMMSCOPE_DEEPGEMM_FETCH=ON, "
         "in a build with CUTLASS, where the repository can be reached)")
endif()
