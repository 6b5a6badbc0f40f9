#pragma once
// Helpers of the FP8 quantization tests: fixed-seed random BF16 data with planted features,
// device buffers poisoned with 0xFF (so an element a kernel forgets to write shows up) and
// guarded at the end (so a write past the end shows up), and bit-exact comparisons that say
// where they differ.

#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/device_buffer.h"
#include "quant/base/cuda_check.h"

namespace gemmscope::testing {

// A test tensor's size, and how traces name it ("257x391").
struct Shape {
  int64_t rows;
  int64_t cols;
};

inline std::string shape_name(const Shape& shape) {
  return std::to_string(shape.rows) + "x" + std::to_string(shape.cols);
}

// Normal(0, 1) values with, at about 1% each, exact zeros, 100x outliers and 1e-6x tiny values;
// rows and columns scaled by different powers of two so that every 1x128 and 128x128 block
// gets its own scale.
inline std::vector<__nv_bfloat16> random_bf16(int64_t rows, int64_t cols, uint32_t seed) {
  std::mt19937 generator(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> percent(0, 99);
  std::vector<__nv_bfloat16> values(rows * cols);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      float x = normal(generator) * std::ldexp(1.0f, static_cast<int>(r % 7) - 3) *
                std::ldexp(1.0f, static_cast<int>(c % 5) - 2);
      const int feature = percent(generator);
      if (feature == 0)
        x = 0.0f;
      if (feature == 1)
        x *= 100.0f;
      if (feature == 2)
        x *= 1e-6f;
      values[r * cols + c] = __float2bfloat16(x);
    }
  }
  return values;
}

template <typename T>
DeviceBuffer<T> upload(const std::vector<T>& host) {
  DeviceBuffer<T> device(host.size());
  CUDA_CHECK(
      cudaMemcpy(device.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  return device;
}

template <typename T>
std::vector<T> download(const T* device, size_t count) {
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<T> host(count);
  CUDA_CHECK(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

// `count` elements followed by a guard, every byte 0xFF.
template <typename T>
class PoisonedBuffer {
 public:
  static constexpr size_t kGuardElements = 64;

  explicit PoisonedBuffer(size_t count) : count_(count), buffer_(count + kGuardElements) {
    CUDA_CHECK(cudaMemset(buffer_.get(), 0xFF, buffer_.bytes()));
  }
  T* get() const { return buffer_.get(); }
  size_t size() const { return count_; }
  std::vector<T> contents() const { return download(buffer_.get(), count_); }
  bool guard_intact() const {
    const std::vector<T> guard = download(buffer_.get() + count_, kGuardElements);
    std::vector<unsigned char> bytes(guard.size() * sizeof(T));
    std::memcpy(bytes.data(), guard.data(), bytes.size());
    for (unsigned char b : bytes) {
      if (b != 0xFF)
        return false;
    }
    return true;
  }

 private:
  size_t count_;
  DeviceBuffer<T> buffer_;
};

inline std::string describe(uint8_t value) {
  char text[8];
  std::snprintf(text, sizeof(text), "0x%02X", value);
  return text;
}

inline std::string describe(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  char text[48];
  std::snprintf(text, sizeof(text), "%.9g (0x%08X)", value, bits);
  return text;
}

// "" when `actual` equals `expected` bit for bit (or, with nan_equal, both are NaN); otherwise
// how many elements differ and the first few.
template <typename T>
std::string mismatches(const std::vector<T>& actual, const std::vector<T>& expected,
                       bool nan_equal = false) {
  if (actual.size() != expected.size()) {
    return "size " + std::to_string(actual.size()) + " != " + std::to_string(expected.size());
  }
  std::string first;
  size_t count = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    if (std::memcmp(&actual[i], &expected[i], sizeof(T)) == 0)
      continue;
    if constexpr (std::is_floating_point_v<T>) {
      if (nan_equal && std::isnan(actual[i]) && std::isnan(expected[i]))
        continue;
    }
    if (++count <= 5) {
      first += " [" + std::to_string(i) + "] " + describe(actual[i]) +
               " != " + describe(expected[i]) + ";";
    }
  }
  if (count == 0)
    return "";
  return std::to_string(count) + " of " + std::to_string(actual.size()) + " differ:" + first;
}

// The message of the `Exception` that `action` throws, or a note that it threw none.
template <typename Exception, typename Action>
std::string thrown_message(Action&& action) {
  try {
    action();
  } catch (const Exception& error) {
    return error.what();
  }
  return "<no exception>";
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The four outputs of an FP8 quantizer under test, poisoned and guarded: each copy (`count`
// bytes) and its scales, and which copies the call asks for.
class QuantizerOutputs {
 public:
  QuantizerOutputs(int64_t count, int64_t rowwise_scales, int64_t columnwise_scales,
                   bool want_rowwise, bool want_columnwise)
      : rowwise_(static_cast<size_t>(count)),
        columnwise_(static_cast<size_t>(count)),
        rowwise_scales_(static_cast<size_t>(rowwise_scales)),
        columnwise_scales_(static_cast<size_t>(columnwise_scales)),
        want_rowwise_(want_rowwise),
        want_columnwise_(want_columnwise) {}

  // A quantizer's targets (Fp8BlockTargets, Fp8RowwiseTargets) at the copies asked for.
  template <typename Targets>
  Targets targets() const {
    Targets targets;
    if (want_rowwise_) {
      targets.rowwise = rowwise_.get();
      targets.rowwise_scale_inv = rowwise_scales_.get();
    }
    if (want_columnwise_) {
      targets.columnwise = columnwise_.get();
      targets.columnwise_scale_inv = columnwise_scales_.get();
    }
    return targets;
  }
  size_t rowwise_scale_count() const { return rowwise_scales_.size(); }
  size_t columnwise_scale_count() const { return columnwise_scales_.size(); }

  // What every FP8 quantizer's GPU test checks against its reference's outputs: a requested copy
  // and its scales bit for bit the reference's, one not requested untouched (still 0xFF), nothing
  // written past any buffer.
  void expect_reference(const std::vector<uint8_t>& rowwise,
                        const std::vector<float>& rowwise_scales,
                        const std::vector<uint8_t>& columnwise,
                        const std::vector<float>& columnwise_scales) const {
    expect_copy(rowwise_, rowwise_scales_, rowwise, rowwise_scales, want_rowwise_, "rowwise");
    expect_copy(columnwise_, columnwise_scales_, columnwise, columnwise_scales, want_columnwise_,
                "columnwise");
  }

 private:
  static void expect_copy(const PoisonedBuffer<uint8_t>& data, const PoisonedBuffer<float>& scales,
                          const std::vector<uint8_t>& expected_data,
                          const std::vector<float>& expected_scales, bool wanted,
                          const std::string& name) {
    if (wanted) {
      EXPECT_EQ(mismatches(data.contents(), expected_data), "") << name << " data";
      EXPECT_EQ(mismatches(scales.contents(), expected_scales), "") << name << " scales";
    } else {
      EXPECT_EQ(data.contents(), std::vector<uint8_t>(expected_data.size(), 0xFF))
          << name << " not requested";
    }
    EXPECT_TRUE(data.guard_intact() && scales.guard_intact())
        << "written past the end of the " << name << " copy";
  }

  PoisonedBuffer<uint8_t> rowwise_;
  PoisonedBuffer<uint8_t> columnwise_;
  PoisonedBuffer<float> rowwise_scales_;
  PoisonedBuffer<float> columnwise_scales_;
  bool want_rowwise_;
  bool want_columnwise_;
};

}  // namespace gemmscope::testing
