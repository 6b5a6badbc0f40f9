#include "tools/report/op_layers.h"

#include <gtest/gtest.h>

#include "shapes/layer_gemms.h"

namespace gemmscope::report {
namespace {

using Counts = std::map<std::string, int64_t>;

RunContext context_of(const std::map<std::string, std::string>& values) {
  return RunContext(values);
}

TEST(OpLayers, ParsesEveryOpOfADeepseekLikeRun) {
  const ParsedOpLayers parsed = parse_op_layers(
      "q_a=61 q_b=61 kv_a=61 kv_b=61 attn_out=61 mlp_up=3 mlp_down=3 shared_up=58 "
      "shared_down=58 expert_up=58 expert_down=58");
  EXPECT_EQ(parsed.problem, "");
  EXPECT_EQ(parsed.layers, (Counts{{"q_a", 61},
                                   {"q_b", 61},
                                   {"kv_a", 61},
                                   {"kv_b", 61},
                                   {"attn_out", 61},
                                   {"mlp_up", 3},
                                   {"mlp_down", 3},
                                   {"shared_up", 58},
                                   {"shared_down", 58},
                                   {"expert_up", 58},
                                   {"expert_down", 58}}));
  EXPECT_EQ(parse_op_layers("qkv=32").layers, (Counts{{"qkv", 32}}));
}

struct MalformedOpLayers {
  const char* text;
  const char* problem;
};

class OpLayersRejects : public ::testing::TestWithParam<MalformedOpLayers> {};

TEST_P(OpLayersRejects, NamingTheEntry) {
  const ParsedOpLayers parsed = parse_op_layers(GetParam().text);
  EXPECT_TRUE(parsed.layers.empty()) << GetParam().text;
  EXPECT_EQ(parsed.problem, GetParam().problem);
}

INSTANTIATE_TEST_SUITE_P(
    Values, OpLayersRejects,
    ::testing::Values(
        MalformedOpLayers{"", "an empty entry (entries are op=layers, one space apart)"},
        MalformedOpLayers{"qkv=4  attn_out=4",
                          "an empty entry (entries are op=layers, one space apart)"},
        MalformedOpLayers{"qkv=4 ", "an empty entry (entries are op=layers, one space apart)"},
        MalformedOpLayers{"qkv=4,attn_out=4",
                          "layers of qkv must be a positive integer, got '4,attn_out=4'"},
        MalformedOpLayers{"qkv:4", "entry 'qkv:4' is not op=layers"},
        MalformedOpLayers{"qkv=4 router=4", "unknown op 'router'"},
        MalformedOpLayers{"gemm0=4", "unknown op 'gemm0'"},
        MalformedOpLayers{"=4", "unknown op ''"},
        MalformedOpLayers{"qkv=0", "layers of qkv must be a positive integer, got '0'"},
        MalformedOpLayers{"qkv=-3", "layers of qkv must be a positive integer, got '-3'"},
        MalformedOpLayers{"qkv=", "layers of qkv must be a positive integer, got ''"},
        MalformedOpLayers{"qkv=4.5", "layers of qkv must be a positive integer, got '4.5'"},
        MalformedOpLayers{"qkv=99999999999999999999",
                          "layers of qkv must be a positive integer, got '99999999999999999999'"},
        MalformedOpLayers{"qkv=4 qkv=4", "op qkv is listed twice"}));

TEST(OpLayers, WithoutTheKeyEveryOpHasNumHiddenLayersAndAnOlderRunItsFourOps) {
  const OpLayers layers = op_layers(context_of({{"num_hidden_layers", "24"}}), {"qkv", "mlp_up"});
  EXPECT_EQ(layers.ops, (std::vector<std::string>{"qkv", "attn_out", "mlp_up", "mlp_down"}));
  EXPECT_EQ(layers.per_op,
            (Counts{{"qkv", 24}, {"attn_out", 24}, {"mlp_up", 24}, {"mlp_down", 24}}));
  EXPECT_FALSE(layers.mixed);
  EXPECT_EQ(layers.common(), 24);
  EXPECT_EQ(layer_kinds_text(layers), std::nullopt);
}

TEST(OpLayers, WithoutTheKeyOrALayerCountTheCountsAreUnknownWithTheReason) {
  const OpLayers layers = op_layers(context_of({}), {"qkv"});
  EXPECT_TRUE(layers.per_op.empty());
  EXPECT_EQ(layers.na_reason, "num_hidden_layers is not in the JSON context");
  EXPECT_FALSE(layers.mixed);
  EXPECT_EQ(layers.common(), std::nullopt);
}

TEST(OpLayers, OpLayersGivesTheOpsAndTheirCountsAndTheKinds) {
  const OpLayers layers = op_layers(
      context_of(
          {{"num_hidden_layers", "61"},
           {"op_layers", "qkv=61 attn_out=61 mlp_up=3 mlp_down=3 expert_up=58 expert_down=58"}}),
      {"expert_down", "qkv"});
  // Listed ops without cases belong to the run all the same: they show as missing.
  EXPECT_EQ(layers.ops, (std::vector<std::string>{"qkv", "attn_out", "mlp_up", "mlp_down",
                                                  "expert_up", "expert_down"}));
  EXPECT_EQ(layers.per_op.at("mlp_up"), 3);
  EXPECT_EQ(layers.per_op.at("expert_down"), 58);
  EXPECT_TRUE(layers.mixed);
  EXPECT_EQ(layers.common(), std::nullopt);
  EXPECT_EQ(layers.kinds, (std::vector<LayerKind>{LayerKind::kDense, LayerKind::kMoe}));
  EXPECT_EQ(layers.layers_of_kind,
            (std::map<LayerKind, int64_t>{{LayerKind::kDense, 3}, {LayerKind::kMoe, 58}}));
  EXPECT_EQ(layer_kinds_text(layers), "3 dense, 58 MoE");
}

TEST(OpLayers, AMoeModelWithoutDenseLayersHasOneCount) {
  const OpLayers layers =
      op_layers(context_of({{"op_layers", "qkv=32 attn_out=32 expert_up=32 expert_down=32"}}),
                {"qkv", "attn_out", "expert_up", "expert_down"});
  EXPECT_FALSE(layers.mixed);
  EXPECT_EQ(layers.common(), 32);
  EXPECT_EQ(layers.kinds, (std::vector<LayerKind>{LayerKind::kMoe}));
}

TEST(OpLayers, AKindWhoseOpsDisagreeHasNoCountOfItsOwn) {
  const OpLayers layers =
      op_layers(context_of({{"op_layers",
                             "qkv=61 attn_out=61 mlp_up=3 mlp_down=4 expert_up=58 "
                             "expert_down=58"}}),
                {"qkv"});
  EXPECT_TRUE(layers.mixed);
  EXPECT_EQ(layers.layers_of_kind, (std::map<LayerKind, int64_t>{{LayerKind::kMoe, 58}}));
  EXPECT_EQ(layer_kinds_text(layers), std::nullopt);
}

TEST(OpLayers, AnOpWithCasesThatOpLayersDoesNotCountMakesTheCountsUnknown) {
  const OpLayers layers =
      op_layers(context_of({{"num_hidden_layers", "4"}, {"op_layers", "qkv=4 attn_out=4"}}),
                {"qkv", "attn_out", "mlp_up"});
  EXPECT_TRUE(layers.per_op.empty());
  EXPECT_EQ(layers.na_reason, "op_layers has no count for mlp_up ('qkv=4 attn_out=4')");
}

TEST(OpLayers, MalformedOpLayersIsNeverReplacedByNumHiddenLayers) {
  const OpLayers layers = op_layers(
      context_of({{"num_hidden_layers", "4"}, {"op_layers", "qkv=4 attn_out=four"}}), {"qkv"});
  EXPECT_TRUE(layers.per_op.empty());
  EXPECT_EQ(layers.na_reason,
            "op_layers 'qkv=4 attn_out=four' is malformed: layers of attn_out must be a positive "
            "integer, got 'four'");
  EXPECT_EQ(layers.ops, (std::vector<std::string>{"qkv", "attn_out", "mlp_up", "mlp_down"}));
}

TEST(OpLayers, DenseAndMoeOpsWithoutOpLayersCannotBeCounted) {
  const OpLayers layers = op_layers(context_of({{"num_hidden_layers", "61"}}),
                                    {"qkv", "attn_out", "mlp_up", "mlp_down", "expert_up"});
  EXPECT_EQ(layers.ops,
            (std::vector<std::string>{"qkv", "attn_out", "mlp_up", "mlp_down", "expert_up"}));
  EXPECT_TRUE(layers.per_op.empty());
  EXPECT_TRUE(layers.mixed) << "a layer of each kind is still worth showing";
  EXPECT_EQ(layers.na_reason,
            "op_layers is not in the JSON context, and num_hidden_layers cannot count a run with "
            "both dense (mlp_*) and MoE (shared_*, expert_*) layers");
}

TEST(OpLayers, EveryLayerOpHasItsKind) {
  const std::optional<LayerKind> attention, dense = LayerKind::kDense, moe = LayerKind::kMoe;
  const std::map<std::string, std::optional<LayerKind>> expected = {
      {"qkv", attention},  {"q_a", attention},      {"q_b", attention}, {"kv_a", attention},
      {"kv_b", attention}, {"attn_out", attention}, {"mlp_up", dense},  {"mlp_down", dense},
      {"shared_up", moe},  {"shared_down", moe},    {"expert_up", moe}, {"expert_down", moe}};
  ASSERT_EQ(expected.size(), kLayerOps.size());
  for (std::string_view op : kLayerOps)
    EXPECT_EQ(layer_kind_of(op), expected.at(std::string(op))) << op;
  EXPECT_EQ(layer_kind_token(LayerKind::kMoe), "moe");
  EXPECT_EQ(layer_kind_name(LayerKind::kMoe), "MoE");
}

}  // namespace
}  // namespace gemmscope::report
