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
#include "io/input_error.hpp"
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
// "model_hf_ids": {preset: Hugging Face id}, "weight_formats": [...], "dtypes": [...]}, valid
// until the next call.
const char* rp_choices() {
  nlohmann::json answer;
  for (const auto& [key, kind] : {std::pair{"models", roofline::io::PresetKind::model},
                                  std::pair{"gpus", roofline::io::PresetKind::gpu}}) {
    answer[key] = nlohmann::json::array();
    for (const auto& p : roofline::io::list_presets(kind)) answer[key].push_back(p.id);
  }
  answer["model_hf_ids"] = nlohmann::json::object();
  for (const auto& p : roofline::io::list_presets(roofline::io::PresetKind::model)) {
    if (const auto id = roofline::io::hf_id(p)) answer["model_hf_ids"][p.id] = *id;
  }
  for (const auto& f : roofline::all_weight_formats()) answer["weight_formats"].push_back(std::string(f.name));
  for (roofline::DType t : roofline::kAllDTypes) answer["dtypes"].push_back(std::string(roofline::name(t)));
  g_answer = answer.dump();
  return g_answer.c_str();
}

// The model preset that `arg` names, by its own name or its Hugging Face id, as --model reads it
// (io::resolve_preset): {"id": preset} or {"error": why}, valid until the next call. The page
// shows a preset in its list, never an id the list lacks.
const char* rp_model_preset(const char* arg) {
  nlohmann::json answer;
  try {
    const std::string path = roofline::io::resolve_preset(roofline::io::PresetKind::model, arg);
    for (const auto& p : roofline::io::list_presets(roofline::io::PresetKind::model)) {
      if (p.path.string() == path) answer["id"] = p.id;
    }
    // resolve_preset leaves an `org/name` that is no preset's id as a path, for the loader to
    // refuse; the page has no files of the user's to find there.
    if (!answer.contains("id")) {
      answer["error"] = std::string(arg) + ": no model preset of that name or Hugging Face id (the model list shows the "
                        "presets, the id field offers their ids); a config.json of your own goes under 'your "
                        "own model or GPU'";
    }
  } catch (const roofline::io::InputError& e) {
    answer["error"] = e.what();
  }
  g_answer = answer.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return g_answer.c_str();
}

}  // extern "C"
