#pragma once
// Parsing of --shapes=MxKxN,MxKxN,...

#include <string_view>
#include <vector>

#include "shapes/gemm_shape.h"

namespace gemmscope {

// Items are separated by commas; whitespace (spaces, tabs) around an item is ignored so that
// "--shapes='4096x4096x4096, 8192x8192x8192'" works, but whitespace inside an item is not
// ("4096 x 4096x4096" is refused). The separator is a lowercase 'x'. Each of M, K, N is a
// decimal integer in [1, kMaxGemmDimension].
// Throws std::invalid_argument naming --shapes and the offending item for an empty list, an
// empty item (",," or a trailing comma), an item without exactly three dimensions, or a
// non-numeric, non-positive or too large dimension.
std::vector<GemmShape> parse_shape_list(std::string_view text);

}  // namespace gemmscope
