#pragma once
// What DeepGEMM's m-grouped contiguous kernels take of the groups, whichever the precision
// (kernels/deepgemm/grouped_gemm.cu for FP8Block, grouped_bf16_gemm.cpp for BF16): every expert's
// rows one after another in one operand, each expert's row count whole 128-row tiles (a tile's
// rows belong to one expert), and a table in device memory of each row's expert.

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kernels/deepgemm/grouped_gemm.h"
#include "kernels/device_buffer.h"
#include "kernels/gemm_problem.h"
#include "quant/base/cuda_check.h"
#include "quant/base/unsupported.h"

namespace gemmscope::deepgemm {

// An operand's address in bytes, for the checks that each expert's piece follows the previous
// one's.
inline const uint8_t* bytes(const void* pointer) {
  return static_cast<const uint8_t*>(pointer);
}

// "group 3 (256x2048x1536)", for a refusal's message.
inline std::string group_text(const GemmProblem& group, size_t g) {
  return "group " + std::to_string(g) + " (" + std::to_string(group.left.outer()) + "x" +
         std::to_string(group.left.contraction()) + "x" + std::to_string(group.right.outer()) + ")";
}

// Refuses group g unless its `rows` are whole tiles.
inline void require_whole_tiles(const char* who, const GemmProblem& group, size_t g, int64_t rows) {
  if (rows % kDeepGemmGroupRowAlignment != 0) {
    throw Unsupported(std::string(who) + ": " + group_text(group, g) +
                      ": each expert's rows must be a multiple of " +
                      std::to_string(kDeepGemmGroupRowAlignment) +
                      " (its tiles' rows belong to one expert); --grouped=deepgemm pads them so");
  }
}

// `row_expert` (each row's expert) in device memory, uploaded synchronously: planned outside any
// timed region, nothing on a case's stream; shared by a problem's configurations.
inline std::shared_ptr<DeviceBuffer<int>> row_expert_table(const std::vector<int>& row_expert) {
  auto table = std::make_shared<DeviceBuffer<int>>(row_expert.size());
  CUDA_CHECK(cudaMemcpy(table->get(), row_expert.data(), row_expert.size() * sizeof(int),
                        cudaMemcpyHostToDevice));
  return table;
}

}  // namespace gemmscope::deepgemm
