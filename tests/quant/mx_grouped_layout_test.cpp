// GroupedOperandLayout for MXFP8 and NVFP4 (quant/grouped_operand_layout.h): ragged and empty
// groups, each group's data, scales and views exactly its own tensor layout's, at offsets that
// follow the previous groups' pieces; scale padding per group; shapes a group's format refuses.

#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "quant/mxfp8/operand.h"
#include "quant/nvfp4/operand.h"
#include "tests/quant/fp8_test_support.h"

namespace gemmscope {
namespace {

using testing::contains;
using testing::thrown_message;

const uint8_t* const kData = reinterpret_cast<const uint8_t*>(0x100000);
const uint8_t* const kScale = reinterpret_cast<const uint8_t*>(0x200000);

// Every group's placement and views against its own tensor layout, and the buffers' sizes
// against the sum over the groups.
template <typename TensorLayout, typename... Extra>
void expect_groups_are_tensors(const GroupedOperandLayout<TensorLayout>& layout,
                               const std::vector<int64_t>& group_rows, Extra... extra) {
  int64_t first_row = 0;
  int64_t data = 0;
  int64_t rowwise_scale = 0;
  int64_t columnwise_scale = 0;
  ASSERT_EQ(layout.group_count(), static_cast<int64_t>(group_rows.size()));
  EXPECT_EQ(layout.group_rows(), group_rows);
  for (int64_t g = 0; g < layout.group_count(); ++g) {
    SCOPED_TRACE("group " + std::to_string(g));
    const int64_t rows = group_rows[static_cast<size_t>(g)];
    const GroupPlacement at = layout.placement(g);
    EXPECT_EQ(at.first_row, first_row);
    EXPECT_EQ(at.rows, rows);
    EXPECT_EQ(at.data, data);
    EXPECT_EQ(at.rowwise_scale, rowwise_scale);
    EXPECT_EQ(at.columnwise_scale, columnwise_scale);
    if (rows == 0) {
      EXPECT_FALSE(layout.group(g).has_value());
      const QuantizedTensor empty = layout.rowwise(kData, kScale, g, extra...);
      EXPECT_EQ(empty.data, nullptr);
      EXPECT_EQ(empty.rows, 0);
      EXPECT_EQ(empty.cols, 0);
      EXPECT_EQ(layout.columnwise(kData, kScale, g, extra...).rows, 0);
      continue;
    }
    ASSERT_TRUE(layout.group(g).has_value());
    const TensorLayout& tensor = *layout.group(g);
    EXPECT_EQ(tensor.rows, rows);
    EXPECT_EQ(tensor.cols, layout.cols());
    if (has_rowwise(layout.copies())) {
      const QuantizedTensor view = layout.rowwise(kData, kScale, g, extra...);
      const QuantizedTensor own = tensor.rowwise(kData + data, kScale + rowwise_scale, extra...);
      EXPECT_EQ(view.data, own.data);
      EXPECT_EQ(view.scale, own.scale);
      EXPECT_EQ(view.rows, rows);
      EXPECT_EQ(view.cols, layout.cols());
      EXPECT_EQ(view.format, own.format);
      EXPECT_EQ(view.scale_layout, own.scale_layout);
      EXPECT_EQ(view.tensor_scale, own.tensor_scale);
    } else {
      EXPECT_THROW(layout.rowwise(kData, kScale, g, extra...), std::logic_error);
    }
    if (has_columnwise(layout.copies())) {
      const QuantizedTensor view = layout.columnwise(kData, kScale, g, extra...);
      const QuantizedTensor own =
          tensor.columnwise(kData + data, kScale + columnwise_scale, extra...);
      EXPECT_EQ(view.data, own.data);
      EXPECT_EQ(view.scale, own.scale);
      EXPECT_EQ(view.rows, layout.cols());
      EXPECT_EQ(view.cols, rows);
      EXPECT_EQ(view.tensor_scale, own.tensor_scale);
    } else {
      EXPECT_THROW(layout.columnwise(kData, kScale, g, extra...), std::logic_error);
    }
    // Swizzled scales are whole 512-byte tiles: every group's start on one.
    EXPECT_EQ(rowwise_scale % 512, 0);
    EXPECT_EQ(columnwise_scale % 512, 0);
    first_row += rows;
    data += tensor.data_bytes();
    rowwise_scale += tensor.rowwise_scale_bytes();
    columnwise_scale += tensor.columnwise_scale_bytes();
  }
  EXPECT_EQ(layout.rows(), first_row);
  EXPECT_EQ(layout.data_bytes(), data);
  EXPECT_EQ(layout.rowwise_scale_bytes(), rowwise_scale);
  EXPECT_EQ(layout.columnwise_scale_bytes(), columnwise_scale);
}

TEST(MxGroupedLayout, Mxfp8RaggedAndEmptyGroups) {
  const std::vector<int64_t> rows = {0, 32, 96, 0, 128, 256};
  for (const OperandCopies copies :
       {OperandCopies::kRowwise, OperandCopies::kColumnwise, OperandCopies::kBoth}) {
    SCOPED_TRACE(static_cast<int>(copies));
    expect_groups_are_tensors(mxfp8_grouped_layout(rows, 256, copies), rows);
    expect_groups_are_tensors(mxfp8_grouped_layout(rows, 2048, copies), rows);
  }
}

// Each group pads its own scales: rows to 128, scale columns to 4.
TEST(MxGroupedLayout, Mxfp8PadsEveryGroupsScales) {
  const Mxfp8GroupedLayout layout = mxfp8_grouped_layout({32, 0, 160}, 96, OperandCopies::kBoth);
  // Rowwise: 3 scale columns -> 4; rows 32 -> 128 and 160 -> 256.
  EXPECT_EQ(layout.placement(2).rowwise_scale, 128 * 4);
  EXPECT_EQ(layout.rowwise_scale_bytes(), 128 * 4 + 256 * 4);
  // Columnwise [96, rows_g]: 96 -> 128 rows; 1 and 5 scale columns -> 4 and 8.
  EXPECT_EQ(layout.placement(2).columnwise_scale, 128 * 4);
  EXPECT_EQ(layout.columnwise_scale_bytes(), 128 * 4 + 128 * 8);
  // Data: group after group, both copies alike.
  EXPECT_EQ(layout.placement(1).data, 32 * 96);
  EXPECT_EQ(layout.placement(2).data, 32 * 96);
  EXPECT_EQ(layout.data_bytes(), 192 * 96);
  // A rowwise copy's rows need no multiple of 32.
  expect_groups_are_tensors(mxfp8_grouped_layout({33, 0, 1}, 64, OperandCopies::kRowwise),
                            {33, 0, 1});
}

TEST(MxGroupedLayout, Nvfp4RaggedAndEmptyGroupsForEveryRole) {
  const std::vector<int64_t> rows = {0, 128, 384, 0, 256};
  const Nvfp4TensorScalars* scalars = reinterpret_cast<const Nvfp4TensorScalars*>(0x300000);
  for (const Nvfp4Role role : {Nvfp4Role::kActivation, Nvfp4Role::kWeight, Nvfp4Role::kGradient}) {
    for (const OperandCopies copies :
         {OperandCopies::kRowwise, OperandCopies::kColumnwise, OperandCopies::kBoth}) {
      SCOPED_TRACE(std::to_string(static_cast<int>(role)) + " " +
                   std::to_string(static_cast<int>(copies)));
      const Nvfp4Options options = nvfp4_options_for(role);
      expect_groups_are_tensors(nvfp4_grouped_layout(rows, 256, copies, options), rows, scalars);
      expect_groups_are_tensors(nvfp4_grouped_layout(rows, 2048, copies, options), rows, scalars);
    }
  }
  // Half a byte an element: group 2's data starts 128 * 2048 / 2 bytes in.
  const Nvfp4GroupedLayout layout =
      nvfp4_grouped_layout(rows, 2048, OperandCopies::kBoth, Nvfp4Options{});
  EXPECT_EQ(layout.placement(2).data, 128 * 2048 / 2);
  EXPECT_EQ(layout.data_bytes(), 768 * 2048 / 2);
}

TEST(MxGroupedLayout, RefusesWhatAGroupsFormatRefuses) {
  // The columnwise copy of a group of 48 rows: not a multiple of MXFP8's 32.
  std::string message = thrown_message<std::invalid_argument>([] {
    mxfp8_grouped_layout({32, 48}, 64, OperandCopies::kColumnwise);
  });
  EXPECT_TRUE(contains(message, "rows") && contains(message, "48")) << message;
  message = thrown_message<std::invalid_argument>([] {
    mxfp8_grouped_layout({32, 0}, 100, OperandCopies::kRowwise);
  });
  EXPECT_TRUE(contains(message, "100")) << message;
  // NVFP4's Hadamard transform needs the columnwise copy's rows in 16s.
  message = thrown_message<std::invalid_argument>([] {
    nvfp4_grouped_layout({128, 40}, 64, OperandCopies::kColumnwise,
                         nvfp4_options_for(Nvfp4Role::kActivation));
  });
  EXPECT_TRUE(contains(message, "Hadamard") && contains(message, "40")) << message;
  message = thrown_message<std::invalid_argument>([] {
    mxfp8_grouped_layout({32, -32}, 64, OperandCopies::kRowwise);
  });
  EXPECT_TRUE(contains(message, "negative")) << message;
  EXPECT_THROW(mxfp8_grouped_layout({}, 64, OperandCopies::kRowwise), std::invalid_argument);
}

TEST(MxGroupedLayout, EveryGroupEmpty) {
  const Mxfp8GroupedLayout layout = mxfp8_grouped_layout({0, 0}, 64, OperandCopies::kBoth);
  EXPECT_EQ(layout.rows(), 0);
  EXPECT_EQ(layout.data_bytes(), 0);
  EXPECT_EQ(layout.rowwise_scale_bytes(), 0);
  EXPECT_EQ(layout.columnwise_scale_bytes(), 0);
  EXPECT_EQ(layout.rowwise(kData, kScale, 1).rows, 0);
}

TEST(MxGroupedLayout, NoSuchGroup) {
  const Mxfp8GroupedLayout layout = mxfp8_grouped_layout({32}, 64, OperandCopies::kRowwise);
  EXPECT_THROW(layout.placement(1), std::invalid_argument);
  EXPECT_THROW(layout.rowwise(kData, kScale, -1), std::invalid_argument);
}

}  // namespace
}  // namespace gemmscope
