// validate() refuses every config whose GEMMs cannot be derived or launched, naming the flag.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "shapes/model_config.h"
#include "tests/shapes/invalid_argument_message.h"

namespace gemmscope {
namespace {

using ::gemmscope::testing::invalid_argument_message;
using ::testing::HasSubstr;

std::string refusal(const ModelConfig& config) {
  return invalid_argument_message([&] { validate(config); });
}

struct IntegerField {
  const char* flag;
  int64_t ModelConfig::*field;
};

const IntegerField kFields[] = {
    {"--hidden_size", &ModelConfig::hidden_size},
    {"--intermediate_size", &ModelConfig::intermediate_size},
    {"--num_attention_heads", &ModelConfig::num_attention_heads},
    {"--num_key_value_heads", &ModelConfig::num_key_value_heads},
    {"--num_hidden_layers", &ModelConfig::num_hidden_layers},
    {"--micro_batch_size", &ModelConfig::micro_batch_size},
    {"--sequence_length", &ModelConfig::sequence_length},
    {"--tensor_parallel", &ModelConfig::tensor_parallel},
};

TEST(Validate, AcceptsTheDefaults) {
  EXPECT_NO_THROW(validate(ModelConfig{}));
}

TEST(Validate, RefusesZeroNegativeAndTooLargeValuesNamingTheFlag) {
  for (const IntegerField& f : kFields) {
    for (int64_t bad : {int64_t{0}, int64_t{-8}, int64_t{2147483648}}) {
      ModelConfig config;
      config.*f.field = bad;
      EXPECT_THAT(refusal(config), HasSubstr(std::string(f.flag) + "=" + std::to_string(bad)))
          << f.flag;
    }
  }
}

TEST(Validate, HeadsMustDivideHidden) {
  ModelConfig config;
  config.num_attention_heads = 30;
  config.num_key_value_heads = 30;
  EXPECT_THAT(refusal(config),
              HasSubstr("--num_attention_heads=30 must divide --hidden_size=4096"));
}

TEST(Validate, KvHeadsMustDivideHeads) {
  ModelConfig config;
  config.num_key_value_heads = 5;
  EXPECT_THAT(refusal(config),
              HasSubstr("--num_key_value_heads=5 must divide --num_attention_heads=32"));
  config.num_key_value_heads = 64;  // more KV heads than query heads
  EXPECT_THAT(refusal(config),
              HasSubstr("--num_key_value_heads=64 must divide --num_attention_heads=32"));
}

TEST(Validate, TensorParallelMustDivideHeads) {
  ModelConfig config;
  config.tensor_parallel = 3;
  EXPECT_THAT(refusal(config),
              HasSubstr("--tensor_parallel=3 must divide --num_attention_heads=32"));
}

TEST(Validate, TensorParallelMustDivideKvHeads) {
  ModelConfig config;  // 32 heads, 8 KV heads: 16 divides the heads but not the KV heads
  config.num_key_value_heads = 8;
  config.tensor_parallel = 16;
  EXPECT_THAT(refusal(config),
              HasSubstr("--tensor_parallel=16 must divide --num_key_value_heads=8"));
}

TEST(Validate, TensorParallelMustDivideIntermediate) {
  ModelConfig config;
  config.intermediate_size = 16386;  // even, but not a multiple of 4
  config.tensor_parallel = 4;
  EXPECT_THAT(refusal(config),
              HasSubstr("--tensor_parallel=4 must divide --intermediate_size=16386"));
}

TEST(Validate, TokensMustFitAGemmDimension) {
  ModelConfig config;
  config.micro_batch_size = 65536;
  config.sequence_length = 65536;  // 2^32 tokens
  const std::string message = refusal(config);
  EXPECT_THAT(message, HasSubstr("--micro_batch_size=65536"));
  EXPECT_THAT(message, HasSubstr("--sequence_length=65536"));
  EXPECT_THAT(message, HasSubstr("4294967296"));
}

TEST(Validate, QkvWidthMustFitAGemmDimension) {
  ModelConfig config;
  config.hidden_size = 2147483646;  // the largest even value: QKV width 3x that
  config.num_attention_heads = 2;
  config.num_key_value_heads = 2;
  config.micro_batch_size = 1;
  config.sequence_length = 1;
  config.intermediate_size = 2;
  EXPECT_THAT(refusal(config), HasSubstr("QKV output width"));
  config.tensor_parallel = 2;  // per rank 3 x 2147483646 / 2 still exceeds
  EXPECT_THAT(refusal(config), HasSubstr("--tensor_parallel=2"));
}

TEST(Validate, GatedMlpUpWidthMustFitAGemmDimension) {
  ModelConfig config;
  config.intermediate_size = 2000000000;
  EXPECT_NO_THROW(validate(config));
  config.gated_mlp = true;
  const std::string message = refusal(config);
  EXPECT_THAT(message, HasSubstr("--intermediate_size=2000000000"));
  EXPECT_THAT(message, HasSubstr("--gated_mlp"));
  config.tensor_parallel = 2;  // split across two ranks it fits again
  EXPECT_NO_THROW(validate(config));
}

}  // namespace
}  // namespace gemmscope
