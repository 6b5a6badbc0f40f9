# CUTLASS (header-only) for the Hopper kernels of kernels/cutlass/: the grouped GEMMs behind
# --grouped=cutlass and the dense block-scaled GEMMs behind --provider=cutlass. Optional: without
# it everything else builds, those implementations refuse their cases saying how to get it, and
# --grouped=auto / --provider=auto choose among the others.
#
# Where CUTLASS comes from, in this order:
#   GEMMSCOPE_CUTLASS_DIR    a directory with include/cutlass and include/cute: a CUTLASS
#                            checkout, or the `source` folder of pip's nvidia-cutlass wheel
#                            (site-packages/cutlass_library/source).
#   an installed wheel       python3 is asked where nvidia-cutlass is (a module lookup, no import).
#   GEMMSCOPE_CUTLASS_FETCH  ON (default): pip downloads the nvidia-cutlass wheel (no install)
#                            into the build tree and its headers are used from there; where the
#                            package index cannot be reached the build goes on without CUTLASS
#                            and says so.
#   GEMMSCOPE_CUTLASS        OFF: do not look for CUTLASS at all (a build without its minutes of
#                            nvcc).
#
# Sets GEMMSCOPE_CUTLASS_FOUND, GEMMSCOPE_CUTLASS_VERSION (empty without), GEMMSCOPE_CUTLASS_SUMMARY
# (what this build has, for the configure output) and, when found, the interface target
# gemmscope_cutlass_headers.
option(GEMMSCOPE_CUTLASS "Build the CUTLASS kernels when CUTLASS is found" ON)
option(GEMMSCOPE_CUTLASS_FETCH "Download nvidia-cutlass's headers with pip when none are found" ON)
set(GEMMSCOPE_CUTLASS_DIR "" CACHE PATH
  "Directory holding include/cutlass and include/cute (CUTLASS >= 4.2); empty: look for nvidia-cutlass")
set(GEMMSCOPE_CUTLASS_WHEEL "nvidia-cutlass==4.2.0.0" CACHE STRING
  "The pip requirement GEMMSCOPE_CUTLASS_FETCH downloads")

# Whether `dir` holds CUTLASS >= 4.2's headers: sets `version_var` to its version, or `why_var`.
function(gemmscope_check_cutlass_dir dir version_var why_var)
  if(NOT EXISTS "${dir}/include/cutlass/version.h" OR NOT EXISTS "${dir}/include/cute/tensor.hpp")
    set(${why_var} "${dir} has no include/cutlass/version.h and include/cute/tensor.hpp"
        PARENT_SCOPE)
    return()
  endif()
  file(STRINGS "${dir}/include/cutlass/version.h" version
       REGEX "^#define CUTLASS_(MAJOR|MINOR|PATCH) [0-9]+")
  string(REGEX REPLACE ".*CUTLASS_MAJOR ([0-9]+).*CUTLASS_MINOR ([0-9]+).*CUTLASS_PATCH ([0-9]+).*"
         "\\1.\\2.\\3" version "${version}")
  if(version VERSION_LESS 4.2)
    set(${why_var} "CUTLASS ${version} at ${dir} is older than 4.2" PARENT_SCOPE)
  else()
    set(${version_var} "${version}" PARENT_SCOPE)
  endif()
endfunction()

# pip download (no install, no dependencies) of the wheel into the build tree, unpacked there.
# Sets `dir_var` to its headers' folder, or `why_var`.
function(gemmscope_fetch_cutlass python dir_var why_var)
  set(fetch_dir "${PROJECT_BINARY_DIR}/_deps/nvidia-cutlass")
  set(source "${fetch_dir}/cutlass_library/source")
  if(EXISTS "${source}/include/cutlass/version.h")
    set(${dir_var} "${source}" PARENT_SCOPE)
    return()
  endif()
  message(STATUS "gemmscope: downloading ${GEMMSCOPE_CUTLASS_WHEEL} (CUTLASS's headers) with pip")
  file(REMOVE_RECURSE "${fetch_dir}")
  execute_process(
    COMMAND "${python}" -m pip download --no-deps --only-binary=:all: --disable-pip-version-check
            --retries 0 --timeout 15 -d "${fetch_dir}/wheel" "${GEMMSCOPE_CUTLASS_WHEEL}"
    RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output TIMEOUT 300)
  file(GLOB wheel "${fetch_dir}/wheel/*.whl")
  if(NOT status EQUAL 0 OR NOT wheel)
    string(REGEX MATCH "ERROR: [^\n]*" first_error "${output}")
    set(${why_var} "pip could not download ${GEMMSCOPE_CUTLASS_WHEEL} (${first_error})"
        PARENT_SCOPE)
    return()
  endif()
  file(ARCHIVE_EXTRACT INPUT "${wheel}" DESTINATION "${fetch_dir}" PATTERNS "cutlass_library/source/include/*")
  set(${dir_var} "${source}" PARENT_SCOPE)
endfunction()

set(GEMMSCOPE_CUTLASS_FOUND OFF)
set(GEMMSCOPE_CUTLASS_VERSION "")
set(_gemmscope_cutlass_dir "${GEMMSCOPE_CUTLASS_DIR}")
set(_gemmscope_cutlass_why "")
set(_gemmscope_cutlass_version "")
if(NOT GEMMSCOPE_CUTLASS)
  set(_gemmscope_cutlass_why "GEMMSCOPE_CUTLASS is OFF")
elseif(NOT _gemmscope_cutlass_dir)
  find_program(GEMMSCOPE_PYTHON3 python3)
  if(GEMMSCOPE_PYTHON3)
    execute_process(
      COMMAND "${GEMMSCOPE_PYTHON3}" -c
        "import importlib.util as u; s = u.find_spec('cutlass_library'); print(s.submodule_search_locations[0] + '/source' if s else '')"
      OUTPUT_VARIABLE _gemmscope_cutlass_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(NOT _gemmscope_cutlass_dir AND GEMMSCOPE_CUTLASS_FETCH)
      gemmscope_fetch_cutlass("${GEMMSCOPE_PYTHON3}" _gemmscope_cutlass_dir _gemmscope_cutlass_why)
    endif()
  endif()
  if(NOT _gemmscope_cutlass_dir AND NOT _gemmscope_cutlass_why)
    set(_gemmscope_cutlass_why
        "GEMMSCOPE_CUTLASS_DIR is empty, python3 finds no nvidia-cutlass and GEMMSCOPE_CUTLASS_FETCH is OFF")
  endif()
endif()
if(NOT _gemmscope_cutlass_why)
  gemmscope_check_cutlass_dir("${_gemmscope_cutlass_dir}" _gemmscope_cutlass_version
                              _gemmscope_cutlass_why)
endif()

if(NOT _gemmscope_cutlass_why)
  set(GEMMSCOPE_CUTLASS_FOUND ON)
  set(GEMMSCOPE_CUTLASS_VERSION "${_gemmscope_cutlass_version}")
  string(CONCAT GEMMSCOPE_CUTLASS_SUMMARY "CUTLASS ${_gemmscope_cutlass_version}'s sm_90a "
         "kernels (grouped BF16 and FP8, dense FP8Block) from ${_gemmscope_cutlass_dir}")
  add_library(gemmscope_cutlass_headers INTERFACE)
  # SYSTEM: our warnings-as-errors apply to our code, not to CUTLASS's headers.
  target_include_directories(gemmscope_cutlass_headers SYSTEM INTERFACE
    "${_gemmscope_cutlass_dir}/include")
  target_compile_options(gemmscope_cutlass_headers INTERFACE
    $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>)
elseif(GEMMSCOPE_CUTLASS AND GEMMSCOPE_CUTLASS_DIR)
  message(FATAL_ERROR "gemmscope: GEMMSCOPE_CUTLASS_DIR is set but unusable: ${_gemmscope_cutlass_why}")
else()
  string(CONCAT GEMMSCOPE_CUTLASS_SUMMARY "no CUTLASS (${_gemmscope_cutlass_why}): "
         "--grouped=cutlass and --provider=cutlass refuse their cases and their GPU tests skip; to "
         "build them: pip install ${GEMMSCOPE_CUTLASS_WHEEL}, or "
         "-DGEMMSCOPE_CUTLASS_DIR=<dir with include/cutlass>")
endif()
