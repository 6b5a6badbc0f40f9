#pragma once
// The three GEMMs of one linear layer in training, and the M, K, N each is launched with.

#include <cstdint>
#include <limits>
#include <ostream>
#include <string>

namespace gemmscope {

// Largest M, K or N gemmscope accepts. cuBLASLt layouts take uint64_t rows and columns, but
// its header says "usually only values that can be expressed as int32_t are supported", and
// CUDA kernels index with 32-bit grid math; so every GEMM dimension must fit in int32_t.
// With that bound, any product of two dimensions stays below 2^62: element counts fit in
// int64_t and byte counts of 4-byte elements fit in size_t without overflow checks downstream.
inline constexpr int64_t kMaxGemmDimension = std::numeric_limits<int32_t>::max();

enum class Pass { kFprop, kDgrad, kWgrad };

// "Fprop", "Dgrad", "Wgrad": the token used in case names.
const char* pass_name(Pass pass);
std::ostream& operator<<(std::ostream& out, Pass pass);  // pass_name(pass)

struct GemmShape {
  int64_t m = 0;
  int64_t k = 0;
  int64_t n = 0;

  double flops() const;  // 2 * m * k * n: one multiply and one add per term
};

bool operator==(const GemmShape& a, const GemmShape& b);
bool operator!=(const GemmShape& a, const GemmShape& b);
std::string to_string(const GemmShape& shape);  // "MxKxN", as --shapes takes it
std::ostream& operator<<(std::ostream& out, const GemmShape& shape);

// A linear layer Y = X * W^T: X [tokens, in_features], W [out_features, in_features],
// dY [tokens, out_features].
struct LinearDims {
  int64_t tokens = 0;
  int64_t in_features = 0;
  int64_t out_features = 0;
};

bool operator==(const LinearDims& a, const LinearDims& b);
bool operator!=(const LinearDims& a, const LinearDims& b);
std::ostream& operator<<(std::ostream& out, const LinearDims& dims);

// The GEMM a pass launches: Fprop Y = X*W^T is (tokens, in, out); Dgrad dX = dY*W is
// (tokens, out, in); Wgrad dW = dY^T*X is (in, tokens, out), as in TransformerEngine's tutorial.
GemmShape gemm_shape(Pass pass, const LinearDims& dims);

// The inverse of gemm_shape: the linear layer whose `pass` launches `shape`.
LinearDims linear_dims(Pass pass, const GemmShape& shape);

}  // namespace gemmscope
