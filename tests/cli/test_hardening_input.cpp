// Issue 11, reading input: each finding of the adversarial pass refused where it enters, with
// file:line:column, the field and exit code 2; nothing of a file that is not a description quoted
// back, nothing crashing. The files are in tests/data/bad, which also seeds the fuzz targets.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli_runner.hpp"
#include "io/input_error.hpp"
#include "io/presets.hpp"
#include "io/schema.hpp"
#include "io/text_check.hpp"

using namespace roofline;
using test::data_file;
using test::run_cli;
using test::with_model;
using test::with_gpu;
using test::check_error;

namespace fs = std::filesystem;

namespace {

ModelSpec model_from(const std::string& text) { return io::read_model(io::parse_yaml(text, "model.yaml")); }
GpuSpec gpu_from(const std::string& text) { return io::read_gpu(io::parse_yaml(text, "gpu.yaml")); }

const std::string kTinyArchitecture = "layers: 2\nhidden: 128\nheads: 4\nkv_heads: 4\nffn: 256\nffn_type: gated\n"
                                      "vocab: 512\ndtype: fp32\n";
const std::string kGpuBody = "memory: {capacity: 80 GB, bandwidth: 2039 GB/s}\ncompute: {peak: {fp16: 312 TFLOPS}}\n";

// A folder of its own under the system's temporary folder, removed at the end of the test.
struct TempDir {
  fs::path path = fs::temp_directory_path() / fmt::format("rooflineplan-hardening-{}", ::getpid());
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

// $ROOFLINEPLAN_PRESETS for one test (each test case runs in its own process under CTest).
struct PresetsVariable {
  explicit PresetsVariable(const fs::path& dir) { ::setenv("ROOFLINEPLAN_PRESETS", dir.c_str(), 1); }
  ~PresetsVariable() { ::unsetenv("ROOFLINEPLAN_PRESETS"); }
};

}  // namespace

// --- Finding 1: text an output cannot carry

TEST_CASE("hardening: a Latin-1 name is refused at load naming the field - in YAML and in config.json") {
  // "Caf" then 0xE9, Latin-1's é: before, every JSON output aborted (nlohmann type_error 316).
  check_error(with_model(data_file("bad/latin1_name.yaml")), data_file("bad/latin1_name.yaml") + ":2:7:",
              "name: byte 0xE9 is not UTF-8");
  check_error(run_cli({"-m", data_file("bad/latin1_name.yaml"), "-g", "a100-80gb", "-f", "json"}),
              data_file("bad/latin1_name.yaml") + ":2:7:", "name: byte 0xE9 is not UTF-8");
  check_error(with_model(data_file("bad/hf_latin1_name.json")), data_file("bad/hf_latin1_name.json") + ":2:20:",
              "_name_or_path: byte 0xE9 is not UTF-8");
}

TEST_CASE("hardening: UTF-8 is decoded by its rules - shortest form - no surrogates - nothing past U+10FFFF") {
  using io::TextUse;
  CHECK_FALSE(io::text_problem("Caf\xC3\xA9 \xE4\xB8\xAD \xF0\x9F\x98\x80", TextUse::value));  // é, 中, 😀
  CHECK(io::text_problem("\xC0\xAF", TextUse::value)->what == "byte 0xC0 is not UTF-8 (a Latin-1 or "
                                                               "Windows-1252 file? save it as UTF-8)");  // overlong '/'
  CHECK(io::text_problem("ab\xED\xA0\x80", TextUse::value)->offset == 2);  // a UTF-16 surrogate
  CHECK(io::text_problem("\xF4\x90\x80\x80", TextUse::value));             // U+110000
  CHECK(io::text_problem("\xF8\x88\x80\x80\x80", TextUse::value));         // a 5-byte form
  CHECK(io::text_problem("\xE4\xB8", TextUse::value));                     // cut short
  // Offset 9 of "name: x\nab\x01" is line 2, column 3.
  const io::TextPosition at = io::position_of("name: x\nab\x01", 10);
  CHECK((at.line == 2 && at.column == 3));
  // Lines end at a lone CR and at CRLF as at LF: the same byte is line 3, column 2 in each.
  const io::TextPosition cr = io::position_of("a\rb\rc\x01", 5), crlf = io::position_of("a\r\nb\r\nc\x01", 7);
  CHECK((cr.line == 3 && cr.column == 2));
  CHECK((crlf.line == 3 && crlf.column == 2));
}

TEST_CASE("hardening: control characters in names - sources and keys are refused - and never echoed") {
  const auto r = with_gpu(data_file("bad/escape_in_name.yaml"));
  check_error(r, data_file("bad/escape_in_name.yaml") + ":2:7:", "name: escape U+001B is not printable text");
  CHECK(r.err.find('\x1b') == std::string::npos);
  const std::string gpu = "name: g\n" + kGpuBody;
  CHECK_THROWS_WITH(gpu_from(gpu + "source: |\n  two\n  lines\n"),
                    Catch::StartsWith("gpu.yaml:4:9: source: line feed U+000A is not printable text"));
  CHECK_THROWS_WITH(gpu_from(gpu + "source: \"a\\tb\"\n"), Catch::Contains("source: tab U+0009"));
  CHECK_THROWS_WITH(gpu_from(gpu + "source: \"a\\x7Fb\"\n"), Catch::Contains("source: delete U+007F"));
  CHECK_THROWS_WITH(gpu_from(gpu + "source: \"a\\u009Bb\"\n"), Catch::Contains("source: control character U+009B"));
  CHECK_THROWS_WITH(gpu_from(gpu + "source: \"a\\u202Eb\"\n"), Catch::Contains("source: bidirectional control U+202E"));
  CHECK_THROWS_WITH(gpu_from(gpu + "\"a\\eb\": 1\n"), Catch::StartsWith("gpu.yaml:4:1: a key of the document: escape"));
  // JSON escapes decode to the same character: a config.json's name is held to the same rule.
  CHECK_THROWS_WITH(model_from(R"({"_name_or_path": "x\u001b[2J", "architectures": ["LlamaForCausalLM"]})"),
                    Catch::StartsWith("model.yaml:1:19: _name_or_path: escape U+001B"));
  CHECK_THROWS_WITH(model_from(R"({"architectures": ["Llama\u001b[2J"]})"),
                    Catch::StartsWith("model.yaml:1:20: architectures[0]: escape U+001B"));
}

// --- Finding 4: inputs without a size

TEST_CASE("hardening: FIFOs - devices - folders and files above 16 MiB are refused before they are read") {
  check_error(with_model("/dev/zero"), "--model: /dev/zero: is a character device, not a file", "regular file");
  const TempDir dir;
  const fs::path fifo = dir.path / "model.fifo";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  check_error(with_model(fifo.string()), "--model: " + fifo.string() + ": is a FIFO, not a file", "regular file");
  check_error(with_model(dir.path.string()), "--model: " + dir.path.string() + ": is a directory", "not a file");
  // 17 MiB, sparse: nothing is written, and it is refused by its size alone.
  const fs::path big = dir.path / "big.yaml";
  std::ofstream(big) << "name: x\n";
  fs::resize_file(big, 17 << 20);
  check_error(with_model(big.string()), "--model: " + big.string() + ": is 17.0 MiB; a description is at most 16 MiB",
              "is it the right file?");
  // 16 MiB itself is a size a description may have (and this one is then refused for its bytes).
  fs::resize_file(big, io::kMaxDescriptionBytes);
  check_error(with_model(big.string()), big.string() + ":2:1: control character U+0000", "UTF-8 text");
}

// --- Finding 5: values outside any physical range

TEST_CASE("hardening: denormal and absurd values are refused naming the field and its range") {
  check_error(with_gpu(data_file("bad/denormal_bandwidth.yaml")), data_file("bad/denormal_bandwidth.yaml") + ":3:41:",
              "memory.bandwidth: \"1e-300 GB/s\" is outside 1 MB/s … 1 PB/s");
  CHECK_THROWS_WITH(gpu_from("name: g\nmemory: {capacity: 80 GB, bandwidth: 2 TB/s}\ncompute: {peak: {fp16: "
                             "4.9e-324 FLOPS}}\n"),
                    "gpu.yaml:3:24: compute.peak.fp16: \"4.9e-324 FLOPS\" is outside 1 MFLOPS … 1 EFLOPS");
  check_error(with_model(data_file("bad/huge_params.yaml")), data_file("bad/huge_params.yaml") + ":3:9:",
              "params: 1e308 is outside 1 … 1e+15");
  CHECK_THROWS_WITH(model_from("name: x\n" + kTinyArchitecture + "max_context: 10000000000\n"),
                    "model.yaml:10:14: max_context: 10000000000 is outside 1 … 1,000,000,000");
  CHECK_THROWS_WITH(gpu_from("name: g\n" + kGpuBody + "interconnect: {bandwidth: 300 GB/s, latency: 1 ps}\n"),
                    Catch::Contains("unknown unit \"ps\""));
  CHECK_THROWS_WITH(gpu_from("name: g\n" + kGpuBody + "interconnect: {bandwidth: 300 GB/s, latency: 0.5 ns}\n"),
                    "gpu.yaml:4:46: interconnect.latency: \"0.5 ns\" is outside 1 ns … 1 s");
  // The bounds themselves are inside: 1 PB/s and 1 MB of memory read.
  const GpuSpec g =
      gpu_from("name: g\nmemory: {capacity: 1 MB, bandwidth: 1 PB/s}\ncompute: {peak: {fp16: 1 EFLOPS}}\n");
  CHECK(g.memory_bandwidth.value() == 1e15);
  CHECK(g.memory_capacity.value() == 1e6);
  CHECK_THROWS_WITH(gpu_from("name: g\nmemory: {capacity: 1 MB, bandwidth: 1.001 PB/s}\ncompute: {peak: {fp16: 1 "
                             "TFLOPS}}\n"),
                    Catch::Contains("is outside 1 MB/s … 1 PB/s"));
}

namespace {

// Every count and number of a table has a range; those stored in an int fit one.
template <class Spec>
void check_ranges(std::span<const io::Field<Spec>> fields) {
  for (const io::Field<Spec>& f : fields) {
    INFO(f.key);
    if (f.kind == io::Kind::section) check_ranges(f.fields);
    if (f.kind == io::Kind::count || f.kind == io::Kind::small_count || f.kind == io::Kind::number) {
      REQUIRE(f.range);
      CHECK(f.range->min <= f.range->max);
      CHECK(f.range->max < 1e300);
    }
    if (f.kind == io::Kind::small_count) CHECK((f.range->min >= INT_MIN && f.range->max <= INT_MAX));
  }
}

}  // namespace

TEST_CASE("hardening: every count and number of both tables has a range - and the docs show it") {
  check_ranges(io::model_schema().fields);
  check_ranges(io::gpu_schema().fields);
  CHECK(io::field_range(io::model_schema(), "moe.experts") == io::Range{1, 10'000'000});
  CHECK_THAT(io::schema_markdown(io::SchemaKind::gpu),
             Catch::Contains("| datasheet memory bandwidth | 1 MB/s … 1 PB/s |"));
  CHECK_THAT(io::schema_markdown(io::SchemaKind::model), Catch::Contains("| transformer blocks | 1 … 100,000 |"));
}

// --- Findings 8 and 9: products that wrap, integers that narrow

TEST_CASE("hardening: dimensions whose products wrap 64 bits are refused - in YAML and config.json") {
  check_error(with_model(data_file("bad/head_dim_overflow.yaml")), data_file("bad/head_dim_overflow.yaml") + ":7:11:",
              "head_dim: 4611686018427387904 is outside 1 … 1,000,000");
  // GPT-2's n_inner null means 4 × n_embd: 4 × 2^62 wrapped to 0 ("n_inner: must be positive").
  check_error(with_model(data_file("bad/hf_gpt2_n_embd_overflow.json")),
              data_file("bad/hf_gpt2_n_embd_overflow.json") + ":3:13:",
              "n_embd: 4611686018427387904 is outside 1 … 1,000,000");
}

TEST_CASE("hardening: validate() checks the 64-bit sums and products a spec built in code would wrap") {
  Architecture a;
  a.layers = 2, a.hidden = 128, a.heads = 4, a.kv_heads = 4, a.head_dim = 1L << 62, a.ffn = 256, a.vocab = 512;
  ModelSpec m;
  m.name = "wraps";
  m.architecture = a;
  // 4 × 2^62 = 2^64: one past a long.
  auto e = validate(m);
  REQUIRE(e);
  CHECK(e->field == "head_dim");
  CHECK(e->message == "heads × head_dim overflows a 64-bit integer");
  m.architecture->head_dim = 32;
  m.architecture->position_embeddings = LONG_MAX;  // + 512 vocabulary rows
  e = validate(m);
  REQUIRE(e);
  CHECK(e->field == "position_embeddings");
  m.architecture->position_embeddings = 0;
  CHECK_FALSE(validate(m));
}

TEST_CASE("hardening: an integer too large for its field is refused - never wrapped into an int") {
  // 4294967297 / 1 = 2^32 + 1 shared experts became 1 in a 32-bit int.
  check_error(with_model(data_file("bad/hf_shared_expert_wraps.json")),
              data_file("bad/hf_shared_expert_wraps.json") + ":11:38:",
              "shared_expert_intermediate_size: 4294967297 is outside 0 … 1,000,000");  // 0: no shared expert
  CHECK_THROWS_WITH(model_from("name: x\n" + kTinyArchitecture + "moe: {experts: 4294967297, top_k: 1, ffn: 8}\n"),
                    "model.yaml:10:16: moe.experts: 4294967297 is outside 1 … 10,000,000");
  CHECK_THROWS_WITH(gpu_from("name: g\n" + kGpuBody + "calibration: {repetitions: 4294967297}\n"),
                    "gpu.yaml:4:28: calibration.repetitions: 4294967297 is outside 0 … 1,000,000,000");
  CHECK_THROWS_WITH(model_from(R"({"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 4294967298,
    "hidden_size": 128, "num_attention_heads": 4, "intermediate_size": 256, "vocab_size": 512})"),
                    Catch::Contains("num_hidden_layers: 4294967298 is outside 1 … 100,000"));
}

// --- Finding 12: the smaller ones

TEST_CASE("hardening: a second YAML document is refused at its line - a lone leading --- is not one") {
  check_error(with_model(data_file("bad/multi_document.yaml")), data_file("bad/multi_document.yaml") + ":11:1:",
              "a second YAML document starts here");
  CHECK_THROWS_WITH(model_from("name: x\nparams: 7e9\ndtype: fp16\n---\n"), Catch::StartsWith("model.yaml:4:1:"));
  CHECK(model_from("---\nname: x\nparams: 7e9\ndtype: fp16\n").declared_params == 7e9);
}

TEST_CASE("hardening: text the YAML parser cannot step past is refused at once - never read as endless documents") {
  // yaml-cpp's LoadAll returned empty documents forever for this file, growing memory until the
  // process died (found by fuzz_model); the file is read as one document and checked for a second.
  check_error(with_model(data_file("bad/leading_comma.yaml")), data_file("bad/leading_comma.yaml") + ":1:1:",
              "malformed YAML: unexpected text");
}

TEST_CASE("hardening: an empty value points at its key - not at the next line") {
  check_error(with_model(data_file("bad/empty_params.yaml")), data_file("bad/empty_params.yaml") + ":2:1:",
              "params: has no value");
  CHECK_THROWS_WITH(gpu_from("name: g\nmemory: {capacity: 80 GB, bandwidth: 2 TB/s}\ncompute:\n\n"),
                    "gpu.yaml:3:1: compute: has no value; it is a mapping of `key: value`");
}

TEST_CASE("hardening: a file that is no description is refused by name and position alone") {
  const auto shadow = with_model(data_file("bad/not_a_description.txt"));
  check_error(shadow, data_file("bad/not_a_description.txt") + ":1:1:",
              "not a model description: none of its keys is one of its fields");
  CHECK(shadow.err.find("NotARealHash") == std::string::npos);
  CHECK(shadow.err.find("root") == std::string::npos);
  const auto binary = with_model(data_file("bad/binary.bin"));
  check_error(binary, data_file("bad/binary.bin") + ":1:1:", "delete U+007F is not printable text");
  CHECK(binary.err.find("ELF") == std::string::npos);
  // yaml-cpp quotes the character after its message's colon: it is cut off.
  CHECK_THROWS_WITH(model_from("name: \"a\\qb\"\n"), "model.yaml:1:11: malformed YAML: unknown escape character");
  // In a description, a key that is not a word is not quoted either.
  CHECK_THROWS_WITH(model_from("name: x\nparams: 7e9\ndtype: fp16\n\"pa$$word\": hunter2\n"),
                    "model.yaml:4:1: unknown key in the document, not a field name");
}

TEST_CASE("hardening: deep nesting is refused at the documented 32 levels - whatever the parser's own guard") {
  check_error(with_model(data_file("bad/deep_flow.yaml")), data_file("bad/deep_flow.yaml"),
              "nested more than 32 levels deep");
  const std::string text = test::read_text(ROOFLINEPLAN_DOCS "/inputs.md");
  CHECK_THAT(text, Catch::Contains("nest deeper than 32 levels"));
}

TEST_CASE("hardening: a GPU given as the model - and a model as the GPU - is named for what it is") {
  check_error(with_model(data_file("bad/gpu_given_as_model.yaml")), data_file("bad/gpu_given_as_model.yaml") + ":2:1:",
              "this looks like a GPU description (memory, compute), not a model; pass it as --gpu");
  check_error(with_gpu(data_file("good/tiny.yaml")), data_file("good/tiny.yaml") + ":2:1:",
              "this looks like a model description (layers, hidden, params), not a GPU; pass it as --model");
  check_error(with_gpu(data_file("hf/gpt2.json")), data_file("hf/gpt2.json") + ":1:1:",
              "this looks like a Hugging Face config.json, a model, not a GPU; pass it as --model");
  check_error(with_gpu("llama-2-7b"), "--gpu: llama-2-7b: is a model preset", "pass it as --model");
  check_error(with_model("a100-80gb"), "--model: a100-80gb: is a GPU preset", "pass it as --gpu");
}

TEST_CASE("hardening: ROOFLINEPLAN_PRESETS is searched before the bundled presets - and a wrong one is said") {
  const TempDir dir;
  write(dir.path / "gpus" / "my-gpu.yaml", "name: My GPU\n" + kGpuBody);
  write(dir.path / "models" / "llama-2-7b.yaml", "name: My Llama\nparams: 7e9\ndtype: fp16\n");
  {
    const PresetsVariable presets(dir.path);
    CHECK(io::load_gpu("my-gpu").name == "My GPU");
    CHECK(io::load_gpu("a100-80gb").name == "NVIDIA A100 80GB SXM");  // bundled, still found
    CHECK(io::load_model("llama-2-7b").name == "My Llama");           // shadows the bundled one
    CHECK(io::load_model("mistral-7b").name == "Mistral-7B-v0.3");
  }
  fs::remove_all(dir.path / "models");
  {
    const PresetsVariable presets(dir.path);
    CHECK(io::load_model("llama-2-7b").name == "Llama-2-7B");
    check_error(with_model("no-such-model"), "--model: no-such-model: no such file",
                "$ROOFLINEPLAN_PRESETS has no models/ folder");
  }
  fs::remove_all(dir.path / "gpus");
  {
    const PresetsVariable presets(dir.path);
    check_error(with_model("llama-2-7b"),
                "$ROOFLINEPLAN_PRESETS=" + dir.path.string() + ": has neither models/ nor gpus/",
                "put model descriptions in");
  }
  {
    const PresetsVariable presets(dir.path / "missing");
    check_error(with_model("llama-2-7b"), "$ROOFLINEPLAN_PRESETS=", "no such folder");
  }
}

// --- Every regression input: refused with an InputError, never another exception

TEST_CASE("hardening: every file in tests/data/bad is refused as a model and as a GPU - with an InputError") {
  for (const auto& entry : fs::directory_iterator(data_file("bad"))) {
    const std::string path = entry.path().string();
    INFO(path);
    CHECK_THROWS_AS(io::load_model(path), io::InputError);
    // The one good GPU here is there to be refused as a model.
    if (entry.path().stem() != "gpu_given_as_model") CHECK_THROWS_AS(io::load_gpu(path), io::InputError);
  }
}

TEST_CASE("hardening: interconnect.host divides the domain or is whole domains, and is refused where neither") {
  const std::string link = "interconnect: {bandwidth: 900 GB/s, latency: 5 us, domain: 72, host: ";
  CHECK(gpu_from("name: g\n" + kGpuBody + link + "4}\n").interconnect->host == 4);
  CHECK_THROWS_WITH(gpu_from("name: g\n" + kGpuBody + link + "5}\n"),
                    Catch::Contains("interconnect.host: 5 GPUs a host neither divide the 72-GPU domain nor are whole"));
  // A PCIe box of NVLink-bridged pairs: 8 GPUs a host, 2 a domain.
  CHECK(gpu_from("name: g\n" + kGpuBody + "interconnect: {bandwidth: 56 GB/s, latency: 5 us, domain: 2, host: 8}\n")
            .interconnect->host == 8);
  CHECK_THROWS_WITH(gpu_from("name: g\n" + kGpuBody + link + "0}\n"), Catch::Contains("interconnect.host: must be positive, got 0"));
}
