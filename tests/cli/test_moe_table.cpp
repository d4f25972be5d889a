// Issue 26, the grouped-expert class: aiconfigurator's MoE tables (`*_moe.csv`, fixtures in
// tests/data/gpu-kernels/: every 1499th row of H100's and H200's) read as what each row's fused MoE
// asks of the GPU it timed, fitted, and held to the roofline.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "hardware/kernel_classes.hpp"
#include "io/kernel_table.hpp"
#include "io/moe_routing.hpp"
#include "io/spec_loader.hpp"
#include "model/kernel_fit.hpp"

using namespace roofline;
using test::check_error;
using test::data_file;
using test::temp_file;
using test::write_temp;
using test::run_cli;

namespace {

const std::string kHead =
    "op_name,moe_dtype,num_tokens,hidden_size,inter_size,topk,num_experts,moe_tp_size,moe_ep_size,distribution,"
    "latency_us\n";

}  // namespace

TEST_CASE("moe table: balanced routing deals each token's picks evenly, worked out exactly") {
  // Top-8 of 256 over ep 16 (16 experts a GPU, 0 … 15 on the one timed); the stride is 256/8 = 32.
  // 4 tokens (fewer than the stride): token i's pick j is expert i·32/4 + 32j = 8i + 32j; of
  // those only 0 (token 0) and 8 (token 1) are below 16: 2 picks, 2 experts.
  const io::ExpertLoad few = io::balanced_load(4, 8, 256, 16);
  CHECK(few.rows == 2);
  CHECK(few.experts == 2);
  // 64 tokens: pick j walks experts 32j … 32j + 63; j = 0 covers 0 … 15 and j = 7 (224 … 287,
  // 256 … 287 wrapping to 0 … 31) covers them again: 32 picks, the mean 64·8/16, on all 16.
  const io::ExpertLoad many = io::balanced_load(64, 8, 256, 16);
  CHECK(many.rows == 32);
  CHECK(many.experts == 16);
  // One GPU: every pick, 2 a token of Mixtral's 8 experts; one token reaches 2 of them.
  CHECK(io::balanced_load(1000, 2, 8, 1).rows == 2000);
  CHECK(io::balanced_load(1, 2, 8, 1).experts == 2);
}

TEST_CASE("moe table: power-law routing times the busiest GPU, with fewer experts reached") {
  // 64 tokens, top-8 of 256, ep 16: the mean GPU gets 32 picks; the collector times the busiest.
  const io::ExpertLoad skewed = io::power_law_load(64, 8, 256, 16, 1.2);
  CHECK(skewed.rows > 32);
  CHECK(skewed.rows <= 64 * 8);
  CHECK(skewed.experts <= 16);
  // One GPU holding all 128 experts: every pick is its own, but skew reaches fewer experts than
  // the balanced deal's 128 at 16 tokens × 8.
  const io::ExpertLoad one = io::power_law_load(16, 8, 128, 1, 1.01);
  CHECK(one.rows == Approx(128).epsilon(1e-12));
  CHECK(one.experts < 128);
  CHECK(io::balanced_load(16, 8, 128, 1).experts == 128);
  // Seeded: the same expectation every time.
  CHECK(io::power_law_load(64, 8, 256, 16, 1.2).rows == skewed.rows);
}

TEST_CASE("moe table: power-law picks that rounding loses go to each GPU's quietest expert, at most one a token") {
  // Two tokens' top-8 of 128 on one GPU: 16 picks. Under n·top_k ≤ E each expert's share is drawn
  // on [0.01, 2] (mean 1.99 / ln 200 = 0.376 at α = 1.01, so the 128 shares sum to about 48): an
  // expert takes x / 48 × 16 = x / 3 picks, at most 2/3, so it rounds to 0 or 1. The shortfall goes
  // to the quietest experts, which hold 0: every pick lands on an expert of its own, 16 reached, as
  // the balanced deal's 16 (h100_sxm_moe.csv, bfloat16 4096 × 1536: 227.6 µs, against the
  // balanced row's 217.8). Dealt to the busiest instead, the 7 or so experts that rounded to 1
  // would have taken them: 9.75 reached over the draws, priced at 155 µs.
  const io::ExpertLoad two = io::power_law_load(2, 8, 128, 1, 1.01);
  CHECK(two.rows == 16);
  CHECK(two.experts == 16);
  // One token's top-22 of 512 over ep 32 (Nemotron-3's experts, 16 a GPU): each share rounds to 0
  // (x / 190 × 22 ≤ 0.23), and the 22 picks go one a GPU to ranks 0 … 21, each to its first expert:
  // the busiest GPU holds one pick on one expert (the table's 107 µs on an H100 at hidden 8192 ×
  // 5120, about one expert's 168 MB, as the balanced deal's one pick took; dealt to the busiest
  // experts, in no order, 2.8 picks on 2.8 experts over the draws).
  const io::ExpertLoad one = io::power_law_load(1, 22, 512, 32, 1.01);
  CHECK(one.rows == 1);
  CHECK(one.experts == 1);
  // A token picks an expert once: Mixtral's top-2 of 8, one expert a GPU (ep 8), 1000 tokens. The
  // busiest expert's share of x on [1, 800] can pass half of the 2000 picks; it is capped at 1000
  // and the excess dealt to the other experts (uncapped, the busiest GPU took 1163 over the draws).
  const io::ExpertLoad capped = io::power_law_load(1000, 2, 8, 8, 1.2);
  CHECK(capped.rows <= 1000);
  CHECK(capped.experts == 1);
}

TEST_CASE("moe table: a row is the fused MoE's FLOPs, the reached experts' weights and the activations") {
  // Mixtral-8x7B's experts, one token, bf16, balanced: 2 picks on 2 experts, 4096 × 14336 gated.
  write_temp("h100_sxm_moe.csv", kHead + "moe,bfloat16,1,4096,14336,2,8,1,1,balanced,261.5\n"
                                         "moe,fp8,1,4096,14336,2,8,1,1,balanced,142.7\n"
                                         "moe,bfloat16,1,2688,1856,6,128,1,1,balanced,30\n");
  const io::KernelTable t = io::read_kernel_table(temp_file("h100_sxm_moe.csv"));
  CHECK(t.kind == "moe");
  REQUIRE(t.samples.size() == 3);
  const KernelAsk& a = t.samples[0].ask;
  CHECK(t.samples[0].klass == KernelClass::experts);
  CHECK(t.samples[0].seconds == Approx(261.5e-6));
  CHECK(a.rows == 2);
  CHECK(a.experts == 2);
  CHECK(a.flops == 6 * 2 * 4096.0 * 14336);                                  // gate, up and down
  CHECK(a.stream_bytes == 2 * 3 * 4096.0 * 14336 * 2);                       // two experts' matrices
  CHECK(a.bytes == a.stream_bytes + 2 * (3 * 4096.0 + 6 * 14336) * 2);       // + 393,216 B of activations
  // fp8: one byte a weight, the fp8 class.
  CHECK(t.samples[1].klass == KernelClass::experts_fp8);
  CHECK(t.samples[1].ask.stream_bytes == 2 * 3 * 4096.0 * 14336);
  // Nemotron-3 Nano's experts run ungated (ReLU²): up and down only. 6 picks reach 6 experts.
  const KernelAsk& n = t.samples[2].ask;
  CHECK(n.flops == 4 * 6 * 2688.0 * 1856);
  CHECK(n.stream_bytes == 6 * 2 * 2688.0 * 1856 * 2);
}

TEST_CASE("moe table: rows no class takes are counted by why, and bad cells refused at file:line with the column") {
  write_temp("h200_sxm_moe.csv", kHead + "moe,fp8_block,8,4096,2048,8,256,1,8,balanced,50\n"
                                         "moe,fp8_block,16,4096,2048,8,256,1,8,balanced,51\n"
                                         "moe,w4a16_mxfp4,8,2880,2880,4,128,1,1,power_law_1.2,40\n"
                                         "moe,bfloat16,8,4096,2048,8,256,1,8,power_law_1.01,60\n");
  const io::KernelTable t = io::read_kernel_table(temp_file("h200_sxm_moe.csv"));
  CHECK(t.samples.size() == 1);
  CHECK(t.left_out.at("fp8_block experts (block-scaled): no class of their own yet") == 2);
  CHECK(t.left_out.size() == 2);
  const std::string f = temp_file("h200_sxm_moe.csv");
  auto refused = [&](const std::string& row, const std::string& where, const std::string& what) {
    write_temp("h200_sxm_moe.csv", kHead + "moe,bfloat16,8,4096,2048,8,256,1,8,balanced,60\n" + row + "\n");
    check_error(run_cli({"fit", "--kernels", f}), f + where, what);
  };
  refused("moe,bfloat16,8,4096,2048,8,256,1,8,balanced,nan", ":3:", "column `latency_us`: `nan` is not a number");
  refused("moe,bfloat16,8,4096,2048,8,256,1,8,balanced,0", ":3:", "column `latency_us`: must be above 0");
  refused("moe,int3,8,4096,2048,8,256,1,8,balanced,60", ":3:", "column `moe_dtype`: `int3` is not a dtype");
  refused("moe,bfloat16,8,4096,2048,8,256,1,8,zipf,60", ":3:", "column `distribution`: `zipf` is not balanced");
  refused("moe,bfloat16,8,4096,2048,8,256,1,8,power_law_0.5,60", ":3:", "column `distribution`: `power_law_0.5`");
  refused("moe,bfloat16,8,4096,2048,8,256,1,7,balanced,60", ":3:", "column `moe_ep_size`: must divide num_experts");
  refused("moe,bfloat16,8,4096,2048,8,256,3,8,balanced,60", ":3:", "column `moe_tp_size`: must divide inter_size");
  refused("moe,bfloat16,8,4096,2048,300,256,1,8,balanced,60", ":3:", "column `topk`: must be at most num_experts");
  refused("moe,bfloat16,2.5,4096,2048,8,256,1,8,balanced,60", ":3:", "column `num_tokens`: must be a whole number");
  write_temp("h200_sxm_moe.csv", "op_name,moe_dtype,num_tokens,hidden_size,inter_size,topk,num_experts,moe_tp_size,"
                                 "distribution,latency_us\nmoe,bfloat16,8,4096,2048,8,256,1,balanced,60\n");
  check_error(run_cli({"fit", "--kernels", f}), f + ":1:", "column `moe_ep_size` is missing");
}

TEST_CASE("moe table: the fixtures are fitted, and no balanced row beats the roofline") {
  const std::vector<std::string> files = {data_file("gpu-kernels/h100_sxm_moe.csv"), data_file("gpu-kernels/h200_sxm_moe.csv")};
  std::vector<std::string> args = {"fit", "--format", "json", "--kernels"};
  args.insert(args.end(), files.begin(), files.end());
  const auto r = run_cli(args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  // Every 1499th row: H100's 31 fp8_block rows and 1 mxfp4 row, H200's 34 fp8_block rows, said.
  CHECK(r.err.find("h100_sxm_moe.csv: 31 rows left out: fp8_block experts") != std::string::npos);
  CHECK(r.err.find("h100_sxm_moe.csv: 1 rows left out: w4a16_mxfp4 experts") != std::string::npos);
  CHECK(r.err.find("h200_sxm_moe.csv: 34 rows left out: fp8_block experts") != std::string::npos);
  const auto j = nlohmann::json::parse(r.out);
  int seen = 0;
  for (const auto& row : j["rows"]) {
    if (row["class"] != "experts" && row["class"] != "experts_fp8") continue;
    ++seen;
    INFO(row["class"]);
    CHECK(row["kernels"] == (row["class"] == "experts" ? 29 + 22 : 24 + 29));
    // What the note reports on the whole tables (0.14 and 0.17 with a GPU held out), here on
    // their fixtures: not yet the 0.10.
    CHECK(row["median_abs_log_in_sample"].get<double>() < 0.25);
    CHECK(row["median_abs_log_held_out"].get<double>() < 0.25);
  }
  CHECK(seen == 2);
  // The bound stays a bound where the row's routing is known exactly (balanced): none faster than
  // its FLOPs at the peak or its bytes at the bandwidth. A power-law row's picks are the
  // generator's expectation, not the draws timed (docs/expected-performance.md).
  for (const auto& [file, preset] : {std::pair{files[0], "h100-sxm"}, std::pair{files[1], "h200"}}) {
    const GpuSpec g = io::load_gpu(preset);
    const KernelCeilings c{g.datasheet_peak(DType::bf16)->value(), g.datasheet_peak(DType::fp8)->value(),
                           g.memory_bandwidth.value(), 0};
    const io::KernelTable t = io::read_kernel_table(file);
    // Read here, not in a lambda: clang before 16 cannot capture a structured binding.
    const std::string text = test::read_text(file);
    std::vector<std::string> lines;
    for (std::size_t at = 0, next; at < text.size(); at = next + 1) {
      next = text.find('\n', at);
      lines.push_back(text.substr(at, next - at));
    }
    int balanced = 0;
    for (const io::KernelSample& s : t.samples) {
      if (lines[s.line - 1].find(",balanced,") == std::string::npos) continue;
      ++balanced;
      INFO(lines[s.line - 1]);
      CHECK(s.seconds >= roofline_seconds({s.klass, s.ask, s.seconds, 0}, c));
    }
    CHECK(balanced > 10);
  }
}
