// The stream blocker's promise: host time spent while enqueuing the timed work is not timed.

#include "bench/timing/iteration_timer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "kernels/device_buffer.h"
#include "tests/gpu_test_support.h"

namespace gemmscope {
namespace {

TEST(IterationTimer, HostDelaysWhileEnqueuingAreNotTimed) {
  GEMMSCOPE_REQUIRE_GPU();
  IterationTimer timer(/*flush_l2=*/true, /*hold_stream=*/true);
  DeviceBuffer<char> buffer(1 << 20);
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreate(&stream));
  const double seconds = timer.time(stream, [&](cudaStream_t s) {
    CUDA_CHECK(cudaMemsetAsync(buffer.get(), 1, buffer.bytes(), s));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // a slow host
    CUDA_CHECK(cudaMemsetAsync(buffer.get(), 2, buffer.bytes(), s));
  });
  CUDA_CHECK(cudaStreamDestroy(stream));
  // Two 1 MiB memsets take microseconds; without the blocker this would read >= 50 ms.
  EXPECT_GT(seconds, 0.0);
  EXPECT_LT(seconds, 0.005);
}

}  // namespace
}  // namespace gemmscope
