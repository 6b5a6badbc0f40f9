#include "xml_well_formed.h"

#include <gtest/gtest.h>

namespace gemmscope::report::testing {
namespace {

TEST(XmlWellFormed, AcceptsWellFormedDocuments) {
  EXPECT_EQ(xml_well_formedness_error(
                "<?xml version=\"1.0\"?>\n<!-- c --><svg a=\"1\" b='x &amp; y'><g><text>a &lt; "
                "b &#215;</text><rect/></g></svg>\n"),
            "");
}

TEST(XmlWellFormed, RejectsWhatAnXmlParserRejects) {
  EXPECT_EQ(xml_well_formedness_error("<svg><g></svg></g>"), "</svg> does not close <g> at byte 8");
  EXPECT_EQ(xml_well_formedness_error("<svg>"), "element <svg> is never closed at byte 5");
  EXPECT_EQ(xml_well_formedness_error("<a/><b/>"), "a second root element at byte 4");
  EXPECT_EQ(xml_well_formedness_error("<svg a=1/>"), "unquoted attribute value at byte 7");
  EXPECT_EQ(xml_well_formedness_error("<svg a=\"1\" a=\"2\"/>"), "attribute a repeated at byte 12");
  EXPECT_EQ(xml_well_formedness_error("<t>x & y</t>"), "'&' without ';' at byte 5");
  EXPECT_EQ(xml_well_formedness_error("<t>&nbsp;</t>"), "unknown entity &nbsp; at byte 3");
  EXPECT_EQ(xml_well_formedness_error("<t a=\"<\"/>"), "'<' inside text or an attribute at byte 6");
  EXPECT_EQ(xml_well_formedness_error("text<t/>"), "text outside the root element at byte 0");
  EXPECT_EQ(xml_well_formedness_error(""), "no root element at byte 0");
}

}  // namespace
}  // namespace gemmscope::report::testing
