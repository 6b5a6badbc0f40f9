#include "shapes/gemm_shape.h"

#include <stdexcept>

namespace gemmscope {

const char* pass_name(Pass pass) {
  switch (pass) {
    case Pass::kFprop:
      return "Fprop";
    case Pass::kDgrad:
      return "Dgrad";
    case Pass::kWgrad:
      return "Wgrad";
  }
  throw std::invalid_argument("pass_name: unknown Pass value " +
                              std::to_string(static_cast<int>(pass)));
}

double GemmShape::flops() const {
  return 2.0 * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(n);
}

bool operator==(const GemmShape& a, const GemmShape& b) {
  return a.m == b.m && a.k == b.k && a.n == b.n;
}
bool operator!=(const GemmShape& a, const GemmShape& b) {
  return !(a == b);
}

std::string to_string(const GemmShape& shape) {
  return std::to_string(shape.m) + "x" + std::to_string(shape.k) + "x" + std::to_string(shape.n);
}

std::ostream& operator<<(std::ostream& out, Pass pass) {
  return out << pass_name(pass);
}

std::ostream& operator<<(std::ostream& out, const GemmShape& shape) {
  return out << to_string(shape);
}

bool operator==(const LinearDims& a, const LinearDims& b) {
  return a.tokens == b.tokens && a.in_features == b.in_features && a.out_features == b.out_features;
}
bool operator!=(const LinearDims& a, const LinearDims& b) {
  return !(a == b);
}

std::ostream& operator<<(std::ostream& out, const LinearDims& dims) {
  return out << "tokens=" << dims.tokens << " in_features=" << dims.in_features
             << " out_features=" << dims.out_features;
}

GemmShape gemm_shape(Pass pass, const LinearDims& dims) {
  switch (pass) {
    case Pass::kFprop:
      return {dims.tokens, dims.in_features, dims.out_features};
    case Pass::kDgrad:
      return {dims.tokens, dims.out_features, dims.in_features};
    case Pass::kWgrad:
      return {dims.in_features, dims.tokens, dims.out_features};
  }
  throw std::invalid_argument("gemm_shape: unknown Pass value " +
                              std::to_string(static_cast<int>(pass)));
}

LinearDims linear_dims(Pass pass, const GemmShape& shape) {
  switch (pass) {
    case Pass::kFprop:
      return {shape.m, shape.k, shape.n};
    case Pass::kDgrad:
      return {shape.m, shape.n, shape.k};
    case Pass::kWgrad:
      return {shape.k, shape.m, shape.n};
  }
  throw std::invalid_argument("linear_dims: unknown Pass value " +
                              std::to_string(static_cast<int>(pass)));
}

}  // namespace gemmscope
