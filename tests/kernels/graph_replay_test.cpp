#include "kernels/graph_replay.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "kernels/device_buffer.h"
#include "tests/gpu_test_support.h"

namespace gemmscope {
namespace {

constexpr size_t kCount = 1 << 16;

std::vector<uint8_t> download(const DeviceBuffer<uint8_t>& buffer) {
  std::vector<uint8_t> host(buffer.size());
  CUDA_CHECK(cudaMemcpy(host.data(), buffer.get(), buffer.bytes(), cudaMemcpyDeviceToHost));
  return host;
}

TEST(GraphReplay, CapturesWhenMadeThenReplaysTheSameWorkOnAnyStream) {
  GEMMSCOPE_REQUIRE_GPU();
  DeviceBuffer<uint8_t> first(kCount);
  DeviceBuffer<uint8_t> second(kCount);
  CUDA_CHECK(cudaMemset(second.get(), 0xff, second.bytes()));  // poisoned
  int value = 7;
  int captures = 0;
  const auto enqueue = [&](cudaStream_t stream) {
    ++captures;
    CUDA_CHECK(cudaMemsetAsync(first.get(), value, first.bytes(), stream));
    CUDA_CHECK(cudaMemcpyAsync(second.get(), first.get(), first.bytes(), cudaMemcpyDeviceToDevice,
                               stream));
  };

  const GraphReplay replay(enqueue);
  EXPECT_EQ(captures, 1);
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(download(second), std::vector<uint8_t>(kCount, 0xff)) << "a capture runs nothing";

  replay.launch(nullptr);  // the legacy default stream cannot be captured, only replayed
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(download(second), std::vector<uint8_t>(kCount, 7));

  // A replay runs the captured work (value 7), not what enqueue would do now.
  value = 9;
  CUDA_CHECK(cudaMemset(second.get(), 0xff, second.bytes()));
  cudaStream_t stream = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  replay.launch(stream);
  replay.launch(stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaStreamDestroy(stream));
  EXPECT_EQ(captures, 1);
  EXPECT_EQ(download(second), std::vector<uint8_t>(kCount, 7));
}

TEST(GraphReplay, WorkThatCannotBeCapturedThrowsAndLeavesTheThreadUsable) {
  GEMMSCOPE_REQUIRE_GPU();
  DeviceBuffer<uint8_t> buffer(kCount);
  // Synchronising a stream under capture is not allowed: the capture fails, and says so.
  EXPECT_THROW(GraphReplay([&](cudaStream_t stream) {
                 CUDA_CHECK(cudaMemsetAsync(buffer.get(), 1, buffer.bytes(), stream));
                 CUDA_CHECK(cudaStreamSynchronize(stream));
               }),
               CudaError);
  cudaGetLastError();  // the failed capture's error is not sticky; clear it for what follows

  const GraphReplay replay([&](cudaStream_t stream) {
    CUDA_CHECK(cudaMemsetAsync(buffer.get(), 3, buffer.bytes(), stream));
  });
  replay.launch(nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(download(buffer), std::vector<uint8_t>(kCount, 3));
}

}  // namespace
}  // namespace gemmscope
