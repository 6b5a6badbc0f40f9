# CUTLASS (header-only) for kernels/cutlass_grouped_gemm.cu, the sm_90a grouped FP8 GEMM behind
# --grouped=cutlass. Optional: without it everything else builds and that implementation reports
# its cases unsupported, saying how to get it.
#
#   GEMMSCOPE_CUTLASS_DIR  a directory with include/cutlass and include/cute: a CUTLASS checkout,
#                          or the `source` folder of pip's nvidia-cutlass wheel
#                          (site-packages/cutlass_library/source). Left empty, python3 is asked
#                          where an installed nvidia-cutlass is (no import, just a module lookup).
#
#   GEMMSCOPE_CUTLASS      OFF: do not look for CUTLASS at all (a build without its minute of
#                          nvcc, e.g. where the wheel happens to be installed).
#
# Sets GEMMSCOPE_CUTLASS_FOUND and, when found, the interface target gemmscope_cutlass_headers.
option(GEMMSCOPE_CUTLASS "Build the CUTLASS grouped FP8 GEMM when CUTLASS is found" ON)
set(GEMMSCOPE_CUTLASS_DIR "" CACHE PATH
  "Directory holding include/cutlass and include/cute (CUTLASS >= 4.2); empty: ask python3 for nvidia-cutlass")

set(GEMMSCOPE_CUTLASS_FOUND OFF)
set(_gemmscope_cutlass_dir "${GEMMSCOPE_CUTLASS_DIR}")
set(_gemmscope_cutlass_why "")
if(NOT GEMMSCOPE_CUTLASS)
  set(_gemmscope_cutlass_why "GEMMSCOPE_CUTLASS is OFF")
elseif(NOT _gemmscope_cutlass_dir)
  find_program(GEMMSCOPE_PYTHON3 python3)
  if(GEMMSCOPE_PYTHON3)
    execute_process(
      COMMAND "${GEMMSCOPE_PYTHON3}" -c
        "import importlib.util as u; s = u.find_spec('cutlass_library'); print(s.submodule_search_locations[0] + '/source' if s else '')"
      OUTPUT_VARIABLE _gemmscope_cutlass_dir OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  endif()
  if(NOT _gemmscope_cutlass_dir)
    set(_gemmscope_cutlass_why "GEMMSCOPE_CUTLASS_DIR is empty and python3 finds no nvidia-cutlass")
  endif()
endif()

if(NOT _gemmscope_cutlass_why)
  if(NOT EXISTS "${_gemmscope_cutlass_dir}/include/cutlass/version.h"
     OR NOT EXISTS "${_gemmscope_cutlass_dir}/include/cute/tensor.hpp")
    set(_gemmscope_cutlass_why
      "${_gemmscope_cutlass_dir} has no include/cutlass/version.h and include/cute/tensor.hpp")
  else()
    file(STRINGS "${_gemmscope_cutlass_dir}/include/cutlass/version.h" _gemmscope_cutlass_version
         REGEX "^#define CUTLASS_(MAJOR|MINOR|PATCH) [0-9]+")
    string(REGEX REPLACE
      ".*CUTLASS_MAJOR ([0-9]+).*CUTLASS_MINOR ([0-9]+).*CUTLASS_PATCH ([0-9]+).*" "\\1.\\2.\\3"
      _gemmscope_cutlass_version "${_gemmscope_cutlass_version}")
    if(_gemmscope_cutlass_version VERSION_LESS 4.2)
      set(_gemmscope_cutlass_why
        "CUTLASS ${_gemmscope_cutlass_version} at ${_gemmscope_cutlass_dir} is older than 4.2")
    else()
      set(GEMMSCOPE_CUTLASS_FOUND ON)
    endif()
  endif()
endif()

if(GEMMSCOPE_CUTLASS_FOUND)
  message(STATUS "gemmscope: CUTLASS ${_gemmscope_cutlass_version} at ${_gemmscope_cutlass_dir}: "
                 "building the sm_90a grouped FP8 GEMM (--grouped=cutlass)")
  add_library(gemmscope_cutlass_headers INTERFACE)
  # SYSTEM: our warnings-as-errors apply to our code, not to CUTLASS's headers.
  target_include_directories(gemmscope_cutlass_headers SYSTEM INTERFACE
    "${_gemmscope_cutlass_dir}/include")
  target_compile_options(gemmscope_cutlass_headers INTERFACE
    $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>)
elseif(GEMMSCOPE_CUTLASS AND GEMMSCOPE_CUTLASS_DIR)
  message(FATAL_ERROR "gemmscope: GEMMSCOPE_CUTLASS_DIR is set but unusable: ${_gemmscope_cutlass_why}")
else()
  message(STATUS "gemmscope: building without CUTLASS (${_gemmscope_cutlass_why}): "
                 "--grouped=cutlass reports its cases unsupported and its GPU tests skip. To build "
                 "it: pip install nvidia-cutlass, or -DGEMMSCOPE_CUTLASS_DIR=<dir with include/cutlass>")
endif()
