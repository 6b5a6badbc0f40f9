# DeepGEMM (deepseek-ai/DeepGEMM, header-only CUDA templates, MIT) for kernels/deepgemm/: the
# dense FP8Block Fprop and Dgrad GEMMs behind --provider=deepgemm. Optional: without it everything
# else builds, that provider refuses its cases saying how to get it, and --provider=auto chooses
# among the others. Its kernels include CUTLASS's CuTe, so it needs CUTLASS (cmake/cutlass.cmake).
#
# Where DeepGEMM comes from, in this order:
#   GEMMSCOPE_DEEPGEMM_DIR   a clone of the repository (or the deep_gemm/include folder of one);
#   an installed package     python3 is asked where the deep_gemm package is (a module lookup, no
#                            import): its include folder.
# Nothing is downloaded: DeepGEMM publishes no wheel to fetch. Tested at commit 54e2261.
#
# Sets GEMMSCOPE_DEEPGEMM_FOUND, GEMMSCOPE_DEEPGEMM_SUMMARY (for the configure output) and, when
# found, the interface target gemmscope_deepgemm_headers.

set(GEMMSCOPE_DEEPGEMM_DIR "" CACHE PATH
    "A clone of deepseek-ai/DeepGEMM (empty: look for an installed deep_gemm package)")

set(GEMMSCOPE_DEEPGEMM_FOUND OFF)
set(_gemmscope_deepgemm_kernel "deep_gemm/impls/sm90_fp8_gemm_1d2d.cuh")
set(_gemmscope_deepgemm_include "")
set(_gemmscope_deepgemm_why "")
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
if(NOT _gemmscope_deepgemm_why AND NOT GEMMSCOPE_CUTLASS_FOUND)
  set(_gemmscope_deepgemm_why "DeepGEMM's kernels need CUTLASS, which this build has not")
endif()

if(NOT _gemmscope_deepgemm_why)
  set(GEMMSCOPE_DEEPGEMM_FOUND ON)
  set(GEMMSCOPE_DEEPGEMM_SUMMARY
      "DeepGEMM's sm_90a FP8 1x128 x 128x128 GEMM (dense FP8Block) from ${_gemmscope_deepgemm_include}")
  add_library(gemmscope_deepgemm_headers INTERFACE)
  # SYSTEM: our warnings-as-errors apply to our code, not to DeepGEMM's headers.
  target_include_directories(gemmscope_deepgemm_headers SYSTEM INTERFACE
    "${_gemmscope_deepgemm_include}")
  target_link_libraries(gemmscope_deepgemm_headers INTERFACE gemmscope_cutlass_headers)
elseif(GEMMSCOPE_DEEPGEMM_DIR)
  message(FATAL_ERROR "gemmscope: GEMMSCOPE_DEEPGEMM_DIR is set but unusable: ${_gemmscope_deepgemm_why}")
else()
  string(CONCAT GEMMSCOPE_DEEPGEMM_SUMMARY "no DeepGEMM (${_gemmscope_deepgemm_why}): "
         "--provider=deepgemm refuses its cases and its GPU tests skip; to build it: git clone "
         "https://github.com/deepseek-ai/DeepGEMM and -DGEMMSCOPE_DEEPGEMM_DIR=<the clone>")
endif()
