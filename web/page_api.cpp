// The page's one entry into the engine: a command line in, what the command printed out. The
// page runs the very commands a terminal runs (cli::run: the same flags, loaders, engine, report
// sinks and chart code), so every number on it is one `rooflineplan` prints, and no formula is
// written twice. Files the page gives (a pasted model, a GPU YAML) and takes (an SVG chart) live
// in Emscripten's in-memory file system, which the page writes and reads through FS.
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "cli/app.hpp"
#include "hardware/dtype.hpp"
#include "io/presets.hpp"
#include "model/weight_format.hpp"

namespace {

// The last answer, held until the next call: the page reads it as a C string.
std::string g_answer;

}  // namespace

extern "C" {

// `args_json`: the arguments after the program's name, as a JSON array of strings. Returns a JSON
// object {"exit": code, "out": stdout, "err": stderr}, valid until the next call. A malformed
// request is exit 2 with the reason on err, as a bad flag is.
const char* rp_run(const char* args_json) {
  nlohmann::json answer;
  std::ostringstream out, err;
  int code = 2;
  try {
    const auto args = nlohmann::json::parse(args_json).get<std::vector<std::string>>();
    std::vector<const char*> argv{"rooflineplan"};
    for (const std::string& a : args) argv.push_back(a.c_str());
    code = roofline::cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
  } catch (const nlohmann::json::exception& e) {
    err << "error: the page's request is not a JSON array of strings: " << e.what() << '\n';
  }
  answer["exit"] = code;
  // Names from files may hold bytes that are not UTF-8; the report sinks already replace them,
  // and anything else is replaced here rather than thrown.
  answer["out"] = out.str();
  answer["err"] = err.str();
  g_answer = answer.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return g_answer.c_str();
}

// The page's selectors, from the engine's own tables: {"models": [...], "gpus": [...],
// "weight_formats": [...], "dtypes": [...]}, valid until the next call.
const char* rp_choices() {
  nlohmann::json answer;
  for (const auto& [key, kind] : {std::pair{"models", roofline::io::PresetKind::model},
                                  std::pair{"gpus", roofline::io::PresetKind::gpu}}) {
    answer[key] = nlohmann::json::array();
    for (const auto& p : roofline::io::list_presets(kind)) answer[key].push_back(p.id);
  }
  for (const auto& f : roofline::all_weight_formats()) answer["weight_formats"].push_back(std::string(f.name));
  for (roofline::DType t : roofline::kAllDTypes) answer["dtypes"].push_back(std::string(roofline::name(t)));
  g_answer = answer.dump();
  return g_answer.c_str();
}

}  // extern "C"
