// One parser for the workload flags of every command: each value flag a list, a sweep the
// product of them, a point a list of one.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "cli/product.hpp"
#include "cli_runner.hpp"
#include "io/csv_records.hpp"
#include "model/operators.hpp"
#include "model/parameters.hpp"

using namespace roofline;
using cli::Product;
using cli::product_size;

namespace {

// The first row by its header's names, read as the tool reads CSV (a warnings cell is quoted and
// holds commas).
std::map<std::string, std::string> first_row(const std::string& csv) {
  const std::vector<io::CsvRecord> records = io::csv_records(csv, "output.csv");
  std::map<std::string, std::string> out;
  if (records.size() < 2) return out;
  for (std::size_t i = 0; i < records[0].cells.size() && i < records[1].cells.size(); ++i) {
    out[records[0].cells[i]] = records[1].cells[i];
  }
  return out;
}

double number(const std::map<std::string, std::string>& row, const std::string& column) { return std::stod(row.at(column)); }

std::vector<std::string> json_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("product: 2 × 3 points, the last axis fastest, as nested loops") {
  Product p({2, 3});
  CHECK(p.size() == 6);
  std::vector<std::pair<std::size_t, std::size_t>> seen;
  do {
    seen.emplace_back(p.index()[0], p.index()[1]);
  } while (p.next());
  CHECK(seen == std::vector<std::pair<std::size_t, std::size_t>>{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}});
}

TEST_CASE("product: the count stops at the limit without overflowing") {
  const std::vector<std::size_t> sizes{1000, 1000, 1000};
  CHECK(product_size(sizes, 1'000'000'000) == std::optional<std::size_t>(1'000'000'000));
  CHECK_FALSE(product_size(std::vector<std::size_t>{1000, 1000, 1001}, 1'000'000'000));
  // 2^32 · 2^32 overflows 64 bits: refused, not wrapped around to 0.
  const std::size_t big = std::size_t{1} << 32;
  CHECK_FALSE(product_size(std::vector<std::size_t>{big, big}, std::numeric_limits<std::size_t>::max()));
  CHECK(product_size(std::vector<std::size_t>{big, 0}, 10) == std::optional<std::size_t>(0));
}

TEST_CASE("sweep: rows come in the order of the old nested loops - gpu, then tp, then batch fastest") {
  const auto r = test::run_cli({"sweep", "-m", "llama-2-7b", "-g", "a100-80gb,h100-sxm", "--tp", "1,2", "-b", "1,8",
                                "-f", "jsonl"});
  REQUIRE(r.code == 0);
  std::vector<std::tuple<std::string, long, long>> order;
  for (const std::string& line : json_lines(r.out)) {
    const auto j = nlohmann::json::parse(line);
    order.emplace_back(j["gpu"]["name"], j["workload"]["tp"], j["workload"]["batch"]);
  }
  const std::string a100 = "NVIDIA A100 80GB SXM", h100 = "NVIDIA H100 SXM";
  CHECK(order == std::vector<std::tuple<std::string, long, long>>{{a100, 1, 1}, {a100, 1, 8}, {a100, 2, 1}, {a100, 2, 8},
                                                                  {h100, 1, 1}, {h100, 1, 8}, {h100, 2, 1}, {h100, 2, 8}});
}

TEST_CASE("sweep: more than 10^9 points are refused before the first, naming the flags") {
  // 100,000 batches × 100,000 prompts = 10^10 points.
  const auto r = test::run_cli({"sweep", "-m", "llama-2-7b", "-g", "a100-80gb", "-b", "1..100000", "-p", "1..100000"});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::Contains("more than 1000000000 points") && Catch::Contains("--batch has 100000") &&
                        Catch::Contains("--prompt has 100000"));
}

TEST_CASE("sweep: --group-size and --activations are axes") {
  // Llama-2-7B's 6,476,005,376 matrix weights in int4 carry one fp16 scale per group: 2/32 bytes
  // per weight against 2/128, 303,562,752 bytes more at group 32.
  const auto r = test::run_cli({"sweep", "-m", "llama-2-7b", "-g", "a100-80gb", "--weights", "int4", "--group-size",
                                "32,128", "--activations", "fp16,fp32", "-f", "jsonl"});
  REQUIRE(r.code == 0);
  const auto lines = json_lines(r.out);
  REQUIRE(lines.size() == 4);
  const auto g32 = nlohmann::json::parse(lines[0]), g32_fp32 = nlohmann::json::parse(lines[1]),
             g128 = nlohmann::json::parse(lines[2]);
  CHECK(g32["model"]["weight_bytes"].get<double>() - g128["model"]["weight_bytes"].get<double>() == 6476005376.0 * 3 / 64);
  // The KV cache follows the activation format: fp32 doubles it.
  CHECK(g32["workload"]["kv"] == "fp16");
  CHECK(g32_fp32["workload"]["kv"] == "fp32");
}

TEST_CASE("sweep: --weights takes every format by name, as a list - the outputs name each class's format") {
  // Llama-2-7B: 6,476,005,376 weights in 224 block matrices; 262,144,000 in the fp16 tables;
  // 266,240 in fp16 norms.
  const auto r = test::run_cli({"sweep", "-m", "llama-2-7b", "-g", "h100-sxm", "--weights",
                                "fp16,fp8-block,mxfp4,nvfp4,awq", "-f", "jsonl"});
  REQUIRE(r.code == 0);
  const auto lines = json_lines(r.out);
  REQUIRE(lines.size() == 5);
  const double blocks = 6476005376.0, rest = 262144000.0 * 2 + 266240.0 * 2;
  const auto bytes = [&](std::size_t i) {
    return nlohmann::json::parse(lines[i])["model"]["weight_bytes"].get<double>();
  };
  CHECK(bytes(0) == blocks * 2 + rest);
  CHECK(bytes(1) == blocks * (1 + 4.0 / 16384) + rest);
  CHECK(bytes(2) == blocks * 0.53125 + rest);
  CHECK(bytes(3) == blocks * 0.5625 + 224 * 4 + rest);
  CHECK(bytes(4) == blocks * (0.5 + 2.5 / 128) + rest);
  const auto nv = nlohmann::json::parse(lines[3]), awq = nlohmann::json::parse(lines[4]);
  CHECK(nv["workload"]["weights"] == "nvfp4");
  CHECK(nv["workload"]["weight_formats"]["attention"] == "nvfp4");
  CHECK(nv["workload"]["weight_formats"]["dense_ffn"] == "nvfp4");
  CHECK(nv["workload"]["weight_formats"]["experts"].is_null());  // a dense model has none
  CHECK(nv["workload"]["weight_formats"]["lm_head"] == "fp16");
  CHECK(nv["workload"]["weight_formats"]["embedding"] == "fp16");
  CHECK(nv["workload"]["group_size"].is_null());  // nvfp4 fixes its own group
  CHECK(awq["workload"]["group_size"] == 128);
}

TEST_CASE("point: --lm-head int4 changes the head alone, in every output") {
  // Llama-2-7B's head: 131,072,000 weights at 0.5 + 2/128 B, 67,584,000 B instead of 262,144,000.
  const auto r = test::run_cli({"-m", "llama-2-7b", "-g", "a100-80gb", "--lm-head", "int4", "-f", "json"});
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["model"]["weight_bytes"] == 13476831232.0 - 262144000.0 + 67584000.0);
  CHECK(j["workload"]["weights"] == "fp16");
  CHECK(j["workload"]["weight_formats"]["lm_head"] == "int4");
  CHECK(j["workload"]["weight_formats"]["embedding"] == "fp16");
  CHECK(j["workload"]["weight_formats"]["attention"] == "fp16");
  const auto csv =
      first_row(test::run_cli({"-m", "llama-2-7b", "-g", "a100-80gb", "--lm-head", "int4", "-f", "csv"}).out);
  CHECK(csv.at("workload_weight_formats_lm_head") == "int4");
  CHECK(csv.at("workload_weight_formats_experts").empty());
  CHECK(csv.at("workload_group_size") == "128");
}

TEST_CASE("point: a tied table takes the head's format and is named in it - Llama-3.2-1B with --lm-head int4") {
  // One table of 128,256 x 2048 weights, weighed as the embedding: 2 B each, or 0.5 + 2/128 B in
  // int4, 525,336,576 - 135,438,336 = 389,898,240 B fewer, and named int4 wherever formats are.
  const std::string model = test::data_file("hf-configs/llama-3.2-1b.json");
  const auto bf16 = nlohmann::json::parse(test::run_cli({"-m", model, "-g", "h100-sxm", "-f", "json"}).out);
  const auto r = test::run_cli({"-m", model, "-g", "h100-sxm", "--lm-head", "int4", "-f", "json"});
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(bf16["model"]["weight_bytes"].get<double>() - j["model"]["weight_bytes"].get<double>() == 389898240.0);
  CHECK(j["workload"]["weight_formats"]["embedding"] == "int4");
  CHECK(j["workload"]["weight_formats"]["lm_head"].is_null());  // no bytes of its own
  CHECK(bf16["workload"]["weight_formats"]["embedding"] == "bf16");
  const auto table = test::run_cli({"-m", model, "-g", "h100-sxm", "--lm-head", "int4"});
  CHECK_THAT(table.out, Catch::Contains("(bf16: attention, dense_ffn; int4: embedding)"));
  const auto csv = first_row(test::run_cli({"-m", model, "-g", "h100-sxm", "--lm-head", "int4", "-f", "csv"}).out);
  CHECK(csv.at("workload_weight_formats_embedding") == "int4");
}

TEST_CASE("point: a checkpoint's formats per class - gpt-oss-like MXFP4 experts beside bf16 - in the table and JSON") {
  const std::string model = test::data_file("good/gpt-oss-like.yaml");
  const auto table = test::run_cli({"-m", model, "-g", "h100-sxm"});
  REQUIRE(table.code == 0);
  // 13,747,605,120 B (tests/model/test_weight_formats.cpp).
  CHECK_THAT(table.out, Catch::Contains("weights 13.7 GB (bf16: attention, lm_head, embedding; mxfp4: experts)"));
  const auto j = nlohmann::json::parse(test::run_cli({"-m", model, "-g", "h100-sxm", "-f", "json"}).out);
  CHECK(j["model"]["weight_bytes"] == 13747605120.0);
  CHECK(j["workload"]["weights"] == "mixed");
  CHECK(j["workload"]["weight_formats"]["experts"] == "mxfp4");
  CHECK(j["workload"]["weight_formats"]["attention"] == "bf16");
  CHECK(j["workload"]["weight_formats"]["dense_ffn"].is_null());
  // --weights sets every block class, the checkpoint's experts included.
  const auto all =
      nlohmann::json::parse(test::run_cli({"-m", model, "-g", "h100-sxm", "--weights", "bf16", "-f", "json"}).out);
  CHECK(all["workload"]["weights"] == "bf16");
  CHECK(all["model"]["weight_bytes"] == 13747605120.0 + 19110297600.0 * (2 - 0.53125));
}

TEST_CASE("point: a list of two batches is refused naming --batch") {
  const auto r = test::run_cli({"-m", "llama-2-7b", "-g", "a100-80gb", "--batch", "1,2"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::StartsWith("error: --batch: takes one value here, got 2"));
  const auto range = test::run_cli({"plot", "-m", "llama-2-7b", "-g", "a100-80gb", "--prompt", "128..512:x2"});
  CHECK(range.code == 2);
  CHECK_THAT(range.err, Catch::Contains("--prompt: takes one value here, got 3"));
}

TEST_CASE("plan: --attention naive writes the prompt's scores to memory: a longer prefill, as the point command finds") {
  auto plan = [](const std::string& attention) {
    // 3840 + 256 tokens: the most of Llama-2-7B's 4096 a request may hold.
    return test::run_cli({"plan", "-m", "llama-2-7b", "-g", "a100-80gb", "-p", "3840", "--attention", attention, "-f", "csv"});
  };
  const auto flash = plan("flash"), naive = plan("naive");
  REQUIRE(flash.code == 0);
  REQUIRE(naive.code == 0);
  const double naive_prefill = number(first_row(naive.out), "prefill_time_s");
  CHECK(naive_prefill > number(first_row(flash.out), "prefill_time_s"));
  const auto point = test::run_cli({"-m", "llama-2-7b", "-g", "a100-80gb", "-p", "3840", "--attention", "naive", "-f", "csv"});
  // The plan sizes on the expected times: the point command's expected prefill.
  CHECK(naive_prefill == number(first_row(point.out), "prefill_expected_time_s"));
}

TEST_CASE("group size: beside weights that take none it is priced as given, with a warning in every format") {
  // Llama-2-7B's fp16 weights: a group size changes none of their bytes.
  const auto fp16 = test::run_cli({"-m", "llama-2-7b", "-g", "a100-80gb", "--group-size", "64", "-f", "json"});
  REQUIRE(fp16.code == 0);
  const auto plain = test::run_cli({"-m", "llama-2-7b", "-g", "a100-80gb", "-f", "json"});
  REQUIRE(plain.code == 0);
  const auto with = nlohmann::json::parse(fp16.out), without = nlohmann::json::parse(plain.out);
  CHECK(with["model"]["weight_bytes"] == without["model"]["weight_bytes"]);
  const std::string said =
      "--group-size 64 changes nothing: the weights are fp16, and only int4, awq, gptq, fp4 and fp6 weights take a "
      "group size (--weights chooses them)";
  CHECK(with["warnings"].size() == without["warnings"].size() + 1);
  CHECK(with["warnings"].back() == said);
  const auto table = test::run_cli({"-m", "llama-2-7b", "-g", "a100-80gb", "--group-size", "64"});
  CHECK_THAT(table.err, Catch::Contains(said));
  // A sweep over int4 and fp16 weights: the fp16 row says so, the int4 row, which the group sizes, does not.
  const auto sweep = test::run_cli({"sweep", "-m", "llama-2-7b", "-g", "a100-80gb", "--weights", "int4,fp16",
                                    "--group-size", "64", "-f", "jsonl"});
  REQUIRE(sweep.code == 0);
  const auto rows = json_lines(sweep.out);
  REQUIRE(rows.size() == 2);
  CHECK_THAT(rows[0], !Catch::Contains("--group-size 64 changes nothing"));
  CHECK_THAT(rows[1], Catch::Contains("--group-size 64 changes nothing"));
}

TEST_CASE("group size: an asked size that leaves a partial group along a matrix's input is refused") {
  // Llama-3.1-8B's matrices take 4096 inputs (14336 for down): 64 divides both, 100 neither, and
  // 8192 is more than q_proj has: engines quantize whole groups along K.
  const auto with = [](const std::string& g) {
    return test::run_cli({"-m", "llama-3.1-8b", "-g", "h100-sxm", "--weights", "int4", "--group-size", g});
  };
  CHECK(with("64").code == 0);
  for (const char* g : {"100", "8192"}) {
    const auto r = with(g);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("--group-size") && Catch::Contains("q_proj's 4096 input columns"));
  }
  // The default 128 is not refused where the whole matrix leaves a partial group (gpt-oss's 2880
  // inputs): priced as a share of one.
  CHECK(test::run_cli({"-m", "gpt-oss-20b", "-g", "h100-sxm", "--weights", "int4"}).code == 0);
  // A tp that splits whole groups apart is, whatever the size: Qwen3-30B-A3B's experts take 768
  // inputs in down, 96 a GPU at tp 8 (ep 1), 192 at tp 4 (1.5 groups of 128), 384 at tp 2.
  const auto awq = [](const std::string& tp) {
    return test::run_cli({"-m", "qwen3-30b-a3b", "-g", "h100-sxm", "--weights", "awq", "--tp", tp});
  };
  const auto eight = awq("8");
  CHECK(eight.code == 2);
  CHECK_THAT(eight.err, Catch::Contains("--tp: tp 8 splits expert_down's 768 input columns into 96 a GPU, not whole "
                                        "groups of 128"));
  CHECK(awq("4").code == 2);
  CHECK(awq("2").code == 0);
  // DeepSeek-V3's decode reads kv_b_proj per head (q_absorb: 128 inputs of its 512): the stored
  // matrix's 512 take groups of 256.
  CHECK(test::run_cli({"-m", "deepseek-v3", "-g", "h200", "--tp", "8", "--weights", "int4", "--group-size", "256"})
            .code == 0);
}

TEST_CASE("tp: fp8-block weights split through their 128-wide blocks are refused, as engines refuse to load them") {
  // Qwen3-30B-A3B's experts are 768 wide: 192 a GPU at tp 4 (1.5 blocks); under --ep 4 each GPU
  // holds whole experts, and its attention splits into 1024 and 128 columns, whole blocks.
  const auto at = [](std::initializer_list<std::string> layout) {
    std::vector<std::string> args{"-m", "qwen3-30b-a3b", "-g", "h100-sxm", "--weights", "fp8-block"};
    args.insert(args.end(), layout);
    return test::run_cli(args);
  };
  const auto split = at({"--tp", "4"});
  CHECK(split.code == 2);
  CHECK_THAT(split.err, Catch::Contains("--tp") && Catch::Contains("768 output columns 4 ways, into 192 a GPU"));
  CHECK(at({"--tp", "4", "--ep", "4"}).code == 0);
  // Under ep 2 of tp 8 the experts split tp / ep = 4 ways, which the reason says.
  CHECK_THAT(at({"--tp", "8", "--ep", "2"}).err, Catch::Contains("tp 8 splits expert_gate's 768 output columns 4 ways"));
  CHECK(at({"--tp", "2"}).code == 0);  // 384: three whole blocks
  // The head is vocab-parallel, outside engines' block quantization: not checked.
  CHECK(test::run_cli({"-m", "llama-3.1-8b", "-g", "h100-sxm", "--lm-head", "fp8-block", "--tp", "8"}).code == 0);
  // Other formats split anywhere.
  CHECK(test::run_cli({"-m", "qwen3-30b-a3b", "-g", "h100-sxm", "--weights", "fp8", "--tp", "4"}).code == 0);
}

TEST_CASE("tp: Gated DeltaNet's gates stay 16-bit under fp8-block, so Qwen3.5-397B-A17B loads at tp 8") {
  // Qwen's FP8 checkpoints leave each DeltaNet layer's in_proj_ba (in_proj_a and in_proj_b) in
  // bf16: 2 × 64 value heads = 128 columns of 4096 inputs, split 16 a GPU at tp 8, which no
  // engine refuses since no fp8 block is split.
  const auto at = [](const std::string& weights, const std::string& tp) {
    return test::run_cli({"-m", "qwen3.5-397b-a17b", "-g", "h200", "--weights", weights, "--tp", tp, "-f", "json"});
  };
  for (const char* tp : {"2", "4", "8"}) {
    INFO("tp " << tp);
    CHECK(at("fp8-block", tp).code == 0);
  }
  // The whole model: 60 layers, 45 of them DeltaNet ([linear, linear, linear, full]). In
  // fp8-block a gate matrix was 4096 × 128 × 1 B + 32 × 1 blocks × 4 B = 524,416 B; in bf16 it is
  // 4096 × 128 × 2 = 1,048,576 B: 45 × 4096 × 128 × (2 − 1 − 4 / 16384) = 23,587,200 B more.
  const std::string yaml = test::read_text(std::string(ROOFLINEPLAN_SOURCE) + "/presets/models/qwen3.5-397b-a17b.yaml");
  const ModelSpec m = io::read_model(io::parse_yaml(yaml, "qwen3.5-397b-a17b.yaml"));
  const Precision block = resolve_precision(m, {.weights = WeightFormat::fp8_block});
  const LayerStack whole = describe_layers(*m.architecture, 1);
  LayerStack all_fp8 = whole;  // the old pricing: every attention matrix in fp8 blocks
  for (Block& b : all_fp8.blocks) {
    for (PhasedStep& s : b.steps) {
      if (auto* l = std::get_if<LinearStep>(&s.step)) l->block_exempt = false;
    }
  }
  const WeightBytes now = weight_bytes(whole, block), before = weight_bytes(all_fp8, block);
  CHECK(now.total().value() - before.total().value() == 23'587'200.0);
  CHECK(now.of(TensorClass::attention).value() - before.of(TensorClass::attention).value() == 23'587'200.0);
  CHECK(now.of(TensorClass::experts) == before.of(TensorClass::experts));
  const auto json = nlohmann::json::parse(at("fp8-block", "1").out);
  CHECK(json["model"]["weight_bytes"].get<double>() == now.total().value());
  // At tp 8 each GPU's 16 columns: 45 × 4096 × 16 × 2 = 5,898,240 B a decode step, a 16-bit GEMM
  // (no fp8 activation scales, nothing unpacked) beside in_proj_qkvz's fp8-block one.
  Workload w;
  w.tp = 8;
  w.precision = block;
  const OpList decode = build_ops(Phase::decode, m, w);
  const auto op = [&](std::string_view name) {
    const auto it = std::find_if(decode.begin(), decode.end(), [&](const OpCost& o) { return o.name == name; });
    REQUIRE(it != decode.end());
    return *it;
  };
  CHECK(op("in_proj_ba").weight_bytes.value() == 5'898'240.0);
  CHECK(op("in_proj_ba").kernel == KernelKind::linear);
  CHECK(op("in_proj_ba").dequant == Dequant::none);
  CHECK(op("in_proj_qkvz").kernel == KernelKind::linear_fp8_block);
  // Other formats are unchanged: per-tensor fp8 keeps the gates in fp8, a scale a matrix
  // (45 × (4096 × 16 + 4) = 2,949,300 B), in fp8 arithmetic.
  w.precision = resolve_precision(m, {.weights = WeightFormat::fp8});
  const OpList fp8 = build_ops(Phase::decode, m, w);
  const auto gates = std::find_if(fp8.begin(), fp8.end(), [](const OpCost& o) { return o.name == "in_proj_ba"; });
  REQUIRE(gates != fp8.end());
  CHECK(gates->weight_bytes.value() == 2'949'300.0);
  CHECK(gates->kernel == KernelKind::linear_fp8);
}

TEST_CASE("plan: --group-size and --activations reach the plan") {
  auto plan = [](std::initializer_list<std::string> extra) {
    std::vector<std::string> args{"plan", "-m", "llama-2-7b", "-g", "a100-80gb", "-f", "csv"};
    args.insert(args.end(), extra);
    const auto r = test::run_cli(args);
    REQUIRE(r.code == 0);
    return first_row(r.out);
  };
  // 303.6 MB more scales at group 32 leave room for one sequence fewer: 182 → 181.
  CHECK(number(plan({"--weights", "int4", "--group-size", "128"}), "max_batch") == 182);
  CHECK(number(plan({"--weights", "int4", "--group-size", "32"}), "max_batch") == 181);
  // fp32 activations compute in fp32: the prefill matches the point command's in fp32.
  const auto fp32 = plan({"--activations", "fp32"});
  const auto point = test::run_cli({"-m", "llama-2-7b", "-g", "a100-80gb", "--activations", "fp32", "-f", "csv"});
  CHECK(number(fp32, "prefill_time_s") == number(first_row(point.out), "prefill_expected_time_s"));
  CHECK(number(fp32, "prefill_time_s") > 10 * number(plan({}), "prefill_time_s"));
}

TEST_CASE("jsonl: the point command writes its report on one line, plan one line per row") {
  const auto point = test::run_cli({"-m", "llama-2-7b", "-g", "a100-80gb", "-b", "8", "-f", "jsonl"});
  REQUIRE(point.code == 0);
  REQUIRE(json_lines(point.out).size() == 1);
  const auto pretty = test::run_cli({"-m", "llama-2-7b", "-g", "a100-80gb", "-b", "8", "-f", "json"});
  // The same report; JSON carries the run's envelope before it, a JSON line does not.
  auto report = nlohmann::json::parse(pretty.out);
  for (const char* key : {"schema_version", "tool", "inputs"}) CHECK(report.erase(key) == 1);
  CHECK(nlohmann::json::parse(point.out) == report);
  const auto plan = test::run_cli({"plan", "-m", "llama-2-7b", "-g", "a100-80gb,h100-sxm", "-f", "jsonl"});
  REQUIRE(plan.code == 0);
  const auto lines = json_lines(plan.out);
  REQUIRE(lines.size() == 2);
  const auto array = nlohmann::json::parse(test::run_cli({"plan", "-m", "llama-2-7b", "-g", "a100-80gb,h100-sxm", "-f", "json"}).out);
  CHECK(nlohmann::json::parse(lines[1]) == array.at("rows")[1]);
}

TEST_CASE("sweep: JSON rows are one array, streamed, and a table past its 1000-row window keeps every row") {
  const auto json = test::run_cli({"sweep", "-m", "llama-2-7b", "-g", "a100-80gb", "-b", "1..5", "-f", "json"});
  REQUIRE(json.code == 0);
  CHECK(nlohmann::json::parse(json.out).at("rows").size() == 5);
  // No valid point is refused (exit 2), with nothing on stdout: no envelope around no rows.
  const auto none = test::run_cli({"sweep", "-m", "llama-2-13b", "-g", "a100-80gb", "--tp", "3", "-f", "json"});
  CHECK(none.code == 2);
  CHECK(none.out.empty());
  const auto table = test::run_cli({"sweep", "-m", "llama-2-7b", "-g", "a100-80gb", "-b", "1..1200", "-f", "table"});
  REQUIRE(table.code == 0);
  // A header, its rule, and 1200 rows.
  CHECK(std::count(table.out.begin(), table.out.end(), '\n') == 2 + 1200);
  CHECK_THAT(table.out, Catch::Contains("\n  Llama-2-7B  NVIDIA A100 80GB SXM  tp 1    fp16      1200     512      640"));
}

TEST_CASE("plan: a step that does not fit beside the weights is infeasible, not a batch above its max_batch") {
  // Llama-3.1-70B over two A100s in a pipeline, naive attention at 8000-token prompts: a stage
  // holds a whole prompt's 8000² scores a head, which the point's max batch counts a pp-th of. The
  // plan had answered batch 1 beside a max_batch of 0.
  const auto r = test::run_cli({"plan", "-m", "llama-3.1-70b", "-g", "a100-80gb", "--pp", "2", "--attention", "naive",
                                "-p", "8000", "--gen", "16", "--ttft", "100s", "--tpot", "1s", "-f", "csv"});
  REQUIRE(r.code == 0);
  const auto row = first_row(r.out);
  CHECK(row.at("feasible") == "false");
  CHECK_THAT(row.at("reason"), Catch::StartsWith("does not fit: the weights and one sequence need"));
  CHECK(row.at("batch").empty());
}

TEST_CASE("compute: --compute narrower than the weights stored is priced as asked, with a warning in every format") {
  // Llama-3.1-8B's bf16 weights at --compute fp8 on an H100: every linear bound at the fp8 peak,
  // which no engine reaches without quantizing the weights.
  const std::string said =
      "the linears compute in fp8, each bound at the fp8 peak, but the attention, dense_ffn weights are stored in "
      "bf16: an engine runs those GEMMs at bf16 or quantizes the weights first (--weights fp8, fewer bytes), so their bound "
      "here is below what they take";
  const auto asked = test::run_cli({"-m", "llama-3.1-8b", "-g", "h100-sxm", "--compute", "fp8", "-f", "json"});
  REQUIRE(asked.code == 0);
  const auto j = nlohmann::json::parse(asked.out);
  CHECK(std::find(j["warnings"].begin(), j["warnings"].end(), said) != j["warnings"].end());
  const auto table = test::run_cli({"-m", "llama-3.1-8b", "-g", "h100-sxm", "--compute", "fp8"});
  CHECK_THAT(table.err, Catch::Contains(said));
  // A CSV point says its warnings on stderr, beside the row.
  const auto csv = test::run_cli({"-m", "llama-3.1-8b", "-g", "h100-sxm", "--compute", "fp8", "-f", "csv"});
  REQUIRE(csv.code == 0);
  CHECK_THAT(csv.err, Catch::Contains(said));
  // fp8 weights computed in fp8 (W8A8), and int4 weights under fp8 (narrower, unpacked): nothing said.
  for (const std::string weights : {"fp8", "int4"}) {
    const auto r = test::run_cli({"-m", "llama-3.1-8b", "-g", "h100-sxm", "--compute", "fp8", "--weights", weights,
                                  "-f", "json"});
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, !Catch::Contains("each bound at the fp8 peak"));
  }
  // fp32 weights beside bf16 activations compute at the bf16 peak: narrower than the weights too.
  const auto fp32 = test::run_cli({"-m", "llama-3.1-8b", "-g", "h100-sxm", "--weights", "fp32", "-f", "json"});
  REQUIRE(fp32.code == 0);
  CHECK_THAT(fp32.out, Catch::Contains("the linears compute in bf16, each bound at the bf16 peak, but the attention, "
                                       "dense_ffn weights are stored in fp32"));
  // bf16 weights at bf16: nothing said.
  CHECK_THAT(test::run_cli({"-m", "llama-3.1-8b", "-g", "h100-sxm", "-f", "json"}).out,
             !Catch::Contains("each bound at the"));
}
