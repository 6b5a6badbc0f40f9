// The helpers that read the docs, on small strings: each check of readme_test.cpp can fail.

#include "tests/docs/doc_text.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace gemmscope::docs {
namespace {

using ::testing::ElementsAre;

TEST(DocText, FindsFencedBlocksAndTheirInfoIndentedOnesToo) {
  const std::string markdown =
      "# Title\n"
      "```sh\n"
      "cmake -S . -B build\n"
      "```\n"
      "- a list item:\n"
      "  ```text\n"
      "  two\n"
      "  ```\n";
  const std::vector<CodeBlock> blocks = code_blocks(markdown);
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0].info, "sh");
  EXPECT_EQ(blocks[0].text, "cmake -S . -B build\n");
  EXPECT_EQ(blocks[0].line, 2);
  EXPECT_EQ(blocks[1].info, "text");
  EXPECT_EQ(blocks[1].text, "two\n");
  EXPECT_EQ(prose(markdown), "# Title\n\n\n\n- a list item:\n\n\n\n");
}

TEST(DocText, InlineCodeSpansJoinWrappedLines) {
  EXPECT_THAT(inline_code("run `gemm_bench --verify` and `cmake --build\n  build`, then"),
              ElementsAre("gemm_bench --verify", "cmake --build build"));
  EXPECT_EQ(without_inline_code("a `--b` c"), "a       c");
}

TEST(DocText, ShellCommandsJoinContinuationsAndDropComments) {
  EXPECT_THAT(shell_commands("B=build/bench/gemm_bench\n"
                             "$B --model=x \\\n"
                             "   --verify   # check it\n"
                             "\n"
                             "# a comment line\n"
                             "sed '/^a#b$/d' f\n"),
              ElementsAre("B=build/bench/gemm_bench", "$B --model=x --verify", "sed '/^a#b$/d' f"));
}

TEST(DocText, ShellWordsUnquoteAndSplitSeparators) {
  EXPECT_THAT(
      shell_words("$B '--benchmark_filter=^(a|b)/' \"x y\"&&ctest|tail ; z"),
      ElementsAre("$B", "--benchmark_filter=^(a|b)/", "x y", "&&", "ctest", "|", "tail", ";", "z"));
}

TEST(DocText, FlagsGoToTheProgramTheyFollow) {
  const std::vector<FlagUse> uses = flag_uses(
      shell_words("cmake --build build -j 2 && ncu --nvtx build/bench/gemm_bench --profile && "
                  "B=x tools/torch_peer.py --out=t.json -- --model=llama3-8b | grep --count y"),
      "gemmscope");
  ASSERT_EQ(uses.size(), 6u);
  EXPECT_EQ(uses[0].program, "external:cmake");
  EXPECT_EQ(uses[0].name, "build");
  EXPECT_EQ(uses[1].program, "external:ncu");
  EXPECT_EQ(uses[2].program, "gemm_bench");
  EXPECT_EQ(uses[2].name, "profile");
  EXPECT_EQ(uses[3].program, "tools/torch_peer.py");
  EXPECT_EQ(uses[3].word, "--out=t.json");
  EXPECT_EQ(uses[4].program, "gemm_bench");
  EXPECT_EQ(uses[4].name, "model");
  EXPECT_EQ(uses[5].program, "external:grep");
}

TEST(DocText, AFlagOnItsOwnGoesToTheDefaultProgram) {
  const std::vector<FlagUse> uses = flag_uses(shell_words("--grouped=cutlass,loop"), "gemmscope");
  ASSERT_EQ(uses.size(), 1u);
  EXPECT_EQ(uses[0].program, "gemmscope");
  EXPECT_EQ(uses[0].name, "grouped");
}

TEST(DocText, FlagNamesOfHelpTextAndProse) {
  EXPECT_EQ(
      flag_names("  --model=NAME   preset\n  --gated_mlp[=true|false]\n"
                 "[--benchmark_filter=<regex>] --v=<n> --include-emulated; a---b -- x"),
      (std::set<std::string>{"model", "gated_mlp", "benchmark_filter", "v", "include-emulated"}));
}

// What readme_test.cpp does with every flag: a bogus one is not among the help's.
TEST(DocText, ABogusFlagIsNotInTheHelp) {
  const std::set<std::string> help = flag_names("  --verify  check\n  --emulate  emulate\n");
  for (const FlagUse& use : flag_uses(shell_words("$B --verify --emulatte"), "gemmscope")) {
    EXPECT_EQ(help.count(use.name), use.name == "verify" ? 1u : 0u) << use.word;
  }
}

TEST(DocText, LastCommandOfAScript) {
  EXPECT_EQ(last_command("#!/bin/sh\nset -e\n# The test command:\n  make && ctest  \n\n# end\n"),
            "make && ctest");
}

TEST(DocText, FiltersAreExtendedRegularExpressionsSearchedFor) {
  EXPECT_TRUE(filter_selects("NVFP4/Wgrad", "NVFP4/Wgrad/qkv/autocast/M:1/K:2/N:3/manual_time"));
  EXPECT_FALSE(filter_selects("^Wgrad", "NVFP4/Wgrad/qkv/autocast/M:1/K:2/N:3/manual_time"));
  EXPECT_TRUE(filter_selects("^(BF16|FP8Block)/.*/prequant/", "FP8Block/Fprop/x/prequant/M:1"));
  EXPECT_FALSE(filter_selects("-/Quantize/", "FP8Block/Quantize/x/both/R:1/C:2"));
}

TEST(DocText, LinksOutsideInlineCode) {
  EXPECT_THAT(link_targets("see [a](docs/a.md#b), ![c](img.svg) and `[d](e)`"),
              ElementsAre("docs/a.md#b", "img.svg"));
}

TEST(DocText, HeadingAnchorsAsGitHubMakesThem) {
  EXPECT_EQ(heading_anchor("Verification (`--verify`)"), "verification---verify");
  EXPECT_EQ(heading_anchor("The GPC clock: what NVML's clock does not show"),
            "the-gpc-clock-what-nvmls-clock-does-not-show");
  EXPECT_EQ(heading_anchors("# A\n```sh\n# not a heading\n```\n## A\n### Set-up: two commands\n"),
            (std::set<std::string>{"a", "a-1", "set-up-two-commands"}));
}

}  // namespace
}  // namespace gemmscope::docs
