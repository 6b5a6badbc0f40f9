#pragma once

// A small XML well-formedness check for the chart test, so that CI needs no XML library:
// one root element, matched and properly nested tags, quoted and unique attributes, known
// entities only, nothing but comments, processing instructions and spaces outside the root.

#include <string>
#include <string_view>

namespace gemmscope::report::testing {

// Empty when `xml` is well-formed, otherwise what is wrong and at which byte offset.
std::string xml_well_formedness_error(std::string_view xml);

}  // namespace gemmscope::report::testing
