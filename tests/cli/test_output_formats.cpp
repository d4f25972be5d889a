// The output contract: JSON keys of docs/architecture.md, CSV header and quoting, Markdown tables.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>

#include "cli_runner.hpp"
#include "io/presets.hpp"
#include "report/report_csv.hpp"
#include "report/report_json.hpp"

using namespace roofline;

namespace {
test::CliResult seed(std::initializer_list<std::string> extra) {
  std::vector<std::string> args{"--model", test::example_file("7b.yaml"), "--gpu", test::example_file("a100.yaml")};
  args.insert(args.end(), extra);
  return test::run_cli(args);
}
}  // namespace

TEST_CASE("json: the seed example carries the contract's keys and numbers") {
  const auto r = seed({"--format", "json"});
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  for (const char* section : {"model", "gpu", "workload", "prefill", "decode", "critical_batch", "memory", "ops"}) {
    CHECK(j.contains(section));
  }
  for (const char* key : {"name", "params", "params_active", "weight_bytes", "kv_bytes_per_token"}) CHECK(j["model"].contains(key));
  for (const char* key : {"name", "bandwidth", "peak_flops", "ridge_point", "memory_capacity"}) CHECK(j["gpu"].contains(key));
  for (const char* key : {"batch", "prompt_tokens", "gen_tokens", "context_tokens", "tp"}) CHECK(j["workload"].contains(key));
  for (const char* key : {"flops", "bytes", "intensity", "compute_time", "memory_time", "time", "bound"}) CHECK(j["prefill"].contains(key));
  for (const char* key : {"flops", "bytes", "intensity", "compute_time", "memory_time", "step_time", "tokens_per_s", "bound"}) {
    CHECK(j["decode"].contains(key));
  }
  for (const char* key : {"weights", "kv_cache", "activations", "reserve", "total", "capacity", "fits", "max_batch"}) {
    CHECK(j["memory"].contains(key));
  }
  CHECK(j["decode"]["step_time"].get<double>() == Approx(7.0e-3));
  CHECK(j["decode"]["bound"] == "memory");
  CHECK(j["prefill"]["bound"] == "compute");
  CHECK(j["critical_batch"]["weights_only"].get<double>() == Approx(156.0));
  CHECK(j["workload"]["context_tokens"] == 640);
  CHECK(j["memory"]["max_batch"].is_null());  // not modelled for a params-only model: null, not 0
  CHECK(j["ops"][0]["phase"] == "prefill");
  // The params-only warning is in the document, and stderr stays empty.
  CHECK_THAT(j["warnings"][0].get<std::string>(), Catch::Contains("architecture unknown"));
  CHECK(r.err.empty());
}

TEST_CASE("csv: a header and one row - same column count - SI values with units in the names") {
  const auto r = seed({"--format", "csv"});
  REQUIRE(r.code == 0);
  const auto header_end = r.out.find("\r\n");
  const std::string header = r.out.substr(0, header_end);
  const std::string row = r.out.substr(header_end + 2, r.out.size() - header_end - 4);
  CHECK_THAT(header, Catch::StartsWith("model_name,model_params,") && Catch::Contains(",decode_step_time_s,") &&
                         Catch::Contains(",decode_tokens_per_s,"));
  CHECK(std::count(header.begin(), header.end(), ',') == std::count(row.begin(), row.end(), ','));
  CHECK(r.out.ends_with("\r\n"));
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 2);
}

TEST_CASE("csv: fields with commas or quotes are quoted per RFC 4180") {
  std::string out;
  report::append_csv_field(out, "A100, \"80GB\"");
  CHECK(out == "\"A100, \"\"80GB\"\"\"");
  out.clear();
  report::append_csv_field(out, "plain");
  CHECK(out == "plain");
}

TEST_CASE("csv --ops: one row per operator of both phases") {
  const auto r = test::run_cli({"-m", "llama-2-7b", "-g", "a100-80gb", "--ops", "--format", "csv"});
  REQUIRE(r.code == 0);
  // 15 operators per phase for a dense gated model with flash attention, plus the header.
  CHECK(std::count(r.out.begin(), r.out.end(), '\n') == 1 + 2 * 15);
  CHECK_THAT(r.out, Catch::StartsWith("phase,name,layers,flops,bytes,"));
}

TEST_CASE("markdown: the same tables as pipes") {
  const auto r = seed({"--format", "markdown"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("| time | 23.0 ms (TTFT) | 7.00 ms |") && Catch::Contains("|---|---:|---:|"));
}

TEST_CASE("no NaN or inf in any number - over every preset pair at several batches and tp") {
  for (const auto& model : io::list_presets(io::PresetKind::model)) {
    const ModelSpec m = io::load_model(model.id);
    for (const auto& gpu : io::list_presets(io::PresetKind::gpu)) {
      const GpuSpec g = io::load_gpu(gpu.id);
      for (long batch : {1L, 7L, 256L}) {
        for (int tp : {1, 8}) {
          Workload w = test::default_workload(m, batch);
          w.tp = tp;
          if (!g.effective_peak(w.precision.compute)) w.precision.compute = DType::fp16;
          if (validate(w, m, g)) continue;
          const auto flat = report::report_json(evaluate(m, g, w)).flatten();
          INFO(model.id << " on " << gpu.id << " batch " << batch << " tp " << tp);
          for (const auto& [path, value] : flat.items()) {
            if (value.is_number()) CHECK(std::isfinite(value.get<double>()));
          }
        }
      }
    }
  }
}

TEST_CASE("assumptions of the model's reader show in every output: table and CSV on stderr, JSON in the document") {
  // Mamba-130m's config gives no torch_dtype; Gemma 3's is a multimodal wrapper.
  const std::string mamba = test::data_file("hf-configs/mamba-130m-subset.json");
  const std::string bf16 = "the config gives no torch_dtype: the weights it does not quantize are priced in bf16";
  const auto table = test::run_cli({"-m", mamba, "-g", "h100-sxm"});
  REQUIRE(table.code == 0);
  CHECK_THAT(table.err, Catch::Contains("warning: " + bf16));
  const auto csv = test::run_cli({"-m", mamba, "-g", "h100-sxm", "--format", "csv"});
  REQUIRE(csv.code == 0);
  CHECK_THAT(csv.err, Catch::Contains(bf16));
  CHECK_THAT(csv.out, !Catch::Contains("torch_dtype"));  // the rows stay data
  const auto json = test::run_cli({"-m", mamba, "-g", "h100-sxm", "--format", "json"});
  REQUIRE(json.code == 0);
  const auto j = nlohmann::json::parse(json.out);
  CHECK_THAT(j["warnings"][0].get<std::string>(), Catch::StartsWith(bf16));
  CHECK(json.err.empty());
  const auto gemma = test::run_cli({"-m", test::data_file("hf-configs/gemma-3-27b-it.json"), "-g", "h200", "--format", "json"});
  REQUIRE(gemma.code == 0);
  CHECK_THAT(nlohmann::json::parse(gemma.out)["warnings"][0].get<std::string>(),
             Catch::StartsWith("multimodal model: the vision and audio towers' weights are held in memory"));
}

TEST_CASE("summary: a windowed model's cache is given per sequence - gpt-oss-20b at 32,000 tokens holds 790 MB") {
  // 12 full layers × K and V × 8 heads × 64 × 2 B = 24,576 B a token over 32,000 tokens, and 12
  // sliding layers × 2,048 B over their 128: 789,577,728 B. Per token, as if all kept all: 49.2 kB.
  const auto r = test::run_cli({"-m", test::data_file("hf-configs/gpt-oss-20b.json"), "-g", "h100-sxm", "--prompt",
                                "30000", "--gen", "2000", "--format", "json"});
  REQUIRE(r.code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["model"]["cache_bytes_per_sequence"].get<double>() == 789'577'728.0);
  CHECK(j["model"]["kv_bytes_per_token"].get<double>() == 24 * 2048.0);
  const auto table = test::run_cli({"-m", test::data_file("hf-configs/gpt-oss-20b.json"), "-g", "h100-sxm", "--prompt",
                                    "30000", "--gen", "2000"});
  CHECK_THAT(table.out, Catch::Contains("cache 790 MB a sequence of 32000 tokens"));
}

// Issue 24, one output contract: every JSON output says its schema, its tool and what it was asked;
// a command's JSON keys are its CSV columns.
TEST_CASE("json: every command's JSON carries the schema version, the tool and the arguments as given") {
  const std::vector<std::vector<std::string>> runs = {
      {"-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "4", "-f", "json"},
      {"sweep", "-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "1,2", "-f", "json"},
      {"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "3", "-f", "json"},
      {"simulate", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "2", "--prompt", "128", "--gen", "16",
       "--duration", "20s", "--format", "json"},
      {"fit", test::data_file("measurements/training.csv"), "--format", "json"}};
  for (const auto& args : runs) {
    const auto r = test::run_cli(args);
    INFO(args.front());
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j.at("schema_version") == 2);
    CHECK_THAT(j.at("tool").get<std::string>(), Catch::StartsWith("rooflineplan "));
    const bool point = args.front().starts_with("-");
    CHECK(j.at("inputs").at("command") == (point ? "point" : args.front()));
    CHECK(j.at("inputs").at("arguments") ==
          nlohmann::json(std::vector<std::string>(args.begin() + (point ? 0 : 1), args.end())));
    // The envelope comes first, the data after it.
    CHECK(nlohmann::ordered_json::parse(r.out).begin().key() == "schema_version");
  }
}

TEST_CASE("plan: its JSON keys are its CSV columns, in the same order, steady and --percentile alike") {
  for (const bool percentile : {false, true}) {
    std::vector<std::string> args = {"plan", "-m", "llama-3.1-8b", "-g", "h100-sxm", "--rate", "3"};
    if (percentile) args.insert(args.end(), {"--percentile", "90", "--duration", "60s"});
    auto csv_args = args, json_args = args;
    csv_args.insert(csv_args.end(), {"-f", "csv"});
    json_args.insert(json_args.end(), {"-f", "json"});
    const auto csv = test::run_cli(csv_args), json = test::run_cli(json_args);
    REQUIRE(csv.code == 0);
    REQUIRE(json.code == 0);
    const std::string header = csv.out.substr(0, csv.out.find_first_of("\r\n"));
    const auto row = nlohmann::ordered_json::parse(json.out).at("rows").at(0);
    std::string keys;
    for (const auto& [key, value] : row.items()) keys += (keys.empty() ? "" : ",") + key;
    CHECK(keys == header);
    CHECK_THAT(header, Catch::StartsWith("gpu_name,tp,pp,ep,dp_attention,compute,warnings,gpus_per_replica,"));
  }
}

TEST_CASE("formats: a plan row's warnings are a JSON array, as every other command's, and one CSV cell") {
  // DeepSeek-V3 on H200s: its MTP layers unpriced, fp8 arithmetic from the checkpoint, and the
  // elementwise class borrowed. They were one string joined by " | " in JSON.
  const std::vector<std::string> plan = {"plan", "-m", "deepseek-v3", "-g", "h200", "--tp", "8", "--ep", "8", "--rate", "5"};
  for (const bool percentile : {false, true}) {
    auto args = plan;
    if (percentile) args.insert(args.end(), {"--percentile", "99", "--duration", "60s"});
    args.insert(args.end(), {"-f", "json"});
    const auto r = test::run_cli(args);
    REQUIRE(r.code == 0);
    const auto w = nlohmann::json::parse(r.out)["rows"][0]["warnings"];
    REQUIRE(w.is_array());
    REQUIRE(w.size() == 3);
    CHECK_THAT(w[0].get<std::string>(), Catch::StartsWith("the model's multi-token-prediction layers are not priced"));
    CHECK_THAT(w[1].get<std::string>(), Catch::StartsWith("the linears compute in fp8"));
  }
  auto csv = plan;
  csv.insert(csv.end(), {"-f", "csv"});
  const auto r = test::run_cli(csv);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("(nor is speculative decoding with them) | the linears compute in fp8") != std::string::npos);
}

TEST_CASE("report: prefill's tokens a weight read are one micro-batch's in a pipeline - Llama-3.1-70B, 8 micro-batches") {
  // Batch 16 in 8 micro-batches is 2 sequences each, 2 × 512 = 1024 prompt tokens, and each
  // micro-batch reads its stage's weights again: the verdict had said 16 × 512 = 8192 (the
  // intensity, 659 FLOP/B, is that of 1024 tokens a read; explain says 1024 too).
  const std::vector<std::string> args = {"-m", "llama-3.1-70b", "-g", "h100-sxm", "--tp", "2", "--pp", "2",
                                         "-b", "16", "--microbatches", "8", "-p", "512"};
  for (const char* format : {"table", "markdown"}) {
    auto with = args;
    with.insert(with.end(), {"-f", format});
    const auto r = test::run_cli(with);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("prefill is compute-bound: 1024 prompt tokens share each weight read (one of 8 "
                                      "micro-batches, each reading its stage's weights again), intensity 659 FLOP/B") &&
                          !Catch::Contains("8192 prompt tokens"));
  }
  // Batch 15 in 2: 8 and 7 sequences, the largest's 8 × 100 = 800 tokens, named so.
  const auto uneven = test::run_cli({"-m", "llama-3.1-8b", "-g", "h100-sxm", "--pp", "2", "-b", "15", "--microbatches", "2",
                                     "-p", "100"});
  REQUIRE(uneven.code == 0);
  CHECK_THAT(uneven.out, Catch::Contains("800 prompt tokens share each weight read (the largest of 2 micro-batches, each "
                                         "reading its stage's weights again)"));
  // Without a pipeline, the batch's: 4 × 100.
  const auto plain = test::run_cli({"-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "4", "-p", "100"});
  CHECK_THAT(plain.out, Catch::Contains("prefill is memory-bound: 400 prompt tokens share each weight read, intensity"));
}

TEST_CASE("report: a mixture of experts' prefill says each expert's share of the tokens - Qwen3-30B-A3B at batch 16") {
  // 16 × 4096 = 65536 prompt tokens, each routed to 8 of the 128 experts: each expert's weights
  // serve 65536 × 8 / 128 = 4096 of them a read on average (the verdict had said 65536 share each
  // weight read).
  const auto r = test::run_cli({"-m", "qwen3-30b-a3b", "-g", "h100-sxm", "-b", "16", "-p", "4096"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("prefill is compute-bound: each expert's weights serve 4096 prompt tokens a read on "
                                    "average (65536 tokens, each routed to 8 of the 128 experts), intensity") &&
                        !Catch::Contains("65536 prompt tokens share each weight read"));
  // In a pipeline, a micro-batch's: 16 / 2 × 4096 = 32768 tokens, 32768 × 8 / 128 = 2048 an expert.
  const auto piped = test::run_cli({"-m", "qwen3-30b-a3b", "-g", "h100-sxm", "--pp", "2", "--microbatches", "2", "-b", "16",
                                    "-p", "4096"});
  REQUIRE(piped.code == 0);
  CHECK_THAT(piped.out, Catch::Contains("each expert's weights serve 2048 prompt tokens a read on average (32768 tokens, each "
                                        "routed to 8 of the 128 experts; one of 2 micro-batches, each reading its stage's "
                                        "weights again)"));
}

TEST_CASE("point report: a prefill whose attention multiplies at the fp8 peak says so beside its compute time") {
  // Llama-3.1-8B, batch 8 of 32768 tokens over an fp8 cache on an H100: 5.93 PFLOP take 4.85 s,
  // not the 6.0 s they would at 989 TFLOP/s, for the attention's part runs at 1979.
  const auto r = test::run_cli({"-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "8", "-p", "32768", "--kv", "fp8"});
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("of which its 5.93 PFLOP of compute at 989 TFLOP/s (the attention over fp8 keys at "
                                    "1.98 PFLOP/s) take 4.85 s"));
  const auto bf16 = test::run_cli({"-m", "llama-3.1-8b", "-g", "h100-sxm", "-b", "8", "-p", "32768"});
  CHECK_THAT(bf16.out, !Catch::Contains("fp8 keys"));
}
