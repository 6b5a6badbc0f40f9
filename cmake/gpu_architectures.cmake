# gemmscope_visible_gpu_architectures(ARCHITECTURES GPUS): the CUDA architectures of the GPUs
# nvidia-smi reports on this machine, as CMAKE_CUDA_ARCHITECTURES spells them ("90" for compute
# capability 9.0, distinct ones between semicolons), and their names; both empty where there is
# no nvidia-smi or it sees no GPU. nvidia-smi rather than CMake's `native`, which fails the
# configure on a machine without a GPU instead of letting it fall back.
function(gemmscope_visible_gpu_architectures architectures_var gpus_var)
  set(architectures "")
  set(gpus "")
  find_program(GEMMSCOPE_NVIDIA_SMI nvidia-smi)
  if(GEMMSCOPE_NVIDIA_SMI)
    execute_process(
      COMMAND "${GEMMSCOPE_NVIDIA_SMI}" --query-gpu=compute_cap,name --format=csv,noheader
      OUTPUT_VARIABLE listing RESULT_VARIABLE status ERROR_QUIET TIMEOUT 20)
    if(status EQUAL 0)
      string(REPLACE "\n" ";" lines "${listing}")
      foreach(line IN LISTS lines)
        if(line MATCHES "^ *([0-9]+)\\.([0-9]+) *, *(.+)$")
          set(architecture "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
          string(STRIP "${CMAKE_MATCH_3}" name)
          list(APPEND architectures "${architecture}")
          list(APPEND gpus "${name}")
        endif()
      endforeach()
      list(REMOVE_DUPLICATES architectures)
      list(REMOVE_DUPLICATES gpus)
    endif()
  endif()
  string(REPLACE ";" ", " gpus "${gpus}")
  set(${architectures_var} "${architectures}" PARENT_SCOPE)
  set(${gpus_var} "${gpus}" PARENT_SCOPE)
endfunction()
