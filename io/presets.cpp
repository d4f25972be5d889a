#include "io/presets.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <utility>

#include "io/input_error.hpp"
#include "model/model_spec.hpp"
#include "io/nearest_word.hpp"
#include "io/yaml_document.hpp"

namespace fs = std::filesystem;

namespace roofline::io {

namespace {

constexpr const char* kPresetsVariable = "ROOFLINEPLAN_PRESETS";

std::string_view subdir(PresetKind kind) { return kind == PresetKind::model ? "models" : "gpus"; }

// The bundled folders: beside the installed binary, then the source tree it was built from.
std::vector<fs::path> bundled_dirs() {
  std::vector<fs::path> dirs;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) dirs.push_back(exe.parent_path().parent_path() / "share" / "rooflineplan" / "presets");
  dirs.emplace_back(ROOFLINEPLAN_SOURCE_PRESETS);
  return dirs;
}

// $ROOFLINEPLAN_PRESETS, searched before the bundled presets. A folder with neither models/ nor
// gpus/ is a mistake to say, not to ignore: nothing in it could ever be found.
std::optional<fs::path> user_dir() {
  const char* env = std::getenv(kPresetsVariable);
  if (!env || !*env) return std::nullopt;
  const fs::path dir(env);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw InputError(fmt::format("${}={}: no such folder", kPresetsVariable, env));
  if (!fs::is_directory(dir / "models", ec) && !fs::is_directory(dir / "gpus", ec)) {
    throw InputError(fmt::format("${}={}: has neither models/ nor gpus/; put model descriptions in {} and GPU "
                                 "descriptions in {}",
                                 kPresetsVariable, env, (dir / "models").string(), (dir / "gpus").string()));
  }
  return dir;
}

// The presets of one folder, by id: its .yaml and .yml files, as --model and --gpu take either
// as a path. One id from two files (`a.yaml` and `a.yml`) is refused naming both: taking either
// would drop the other without a word.
std::vector<Preset> presets_in(const fs::path& dir, bool user) {
  std::vector<Preset> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const fs::path& path = entry.path();
    if (path.extension() != ".yaml" && path.extension() != ".yml") continue;
    const std::string id = path.stem().string();
    const auto twin = std::find_if(out.begin(), out.end(), [&](const Preset& p) { return p.id == id; });
    if (twin != out.end()) {
      std::string a = twin->path.string(), b = path.string();
      if (b < a) std::swap(a, b);
      throw InputError(fmt::format("{} and {}: both are preset {}; keep one", a, b, id));
    }
    out.push_back({id, path, user});
  }
  return out;
}

bool looks_like_path(const std::string& arg) {
  return arg.find('/') != std::string::npos || arg.ends_with(".yaml") || arg.ends_with(".yml") ||
         arg.ends_with(".json");
}

bool has_id(const std::vector<Preset>& presets, const std::string& id) {
  return std::any_of(presets.begin(), presets.end(), [&](const Preset& p) { return p.id == id; });
}

bool same_letters(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// A Hugging Face id (`Qwen/Qwen3-8B`, any case) names the model preset converted from its config.
// Only an `org/name` that is not a file is looked up.
std::optional<fs::path> preset_of_hf_id(const std::vector<Preset>& presets, const std::string& arg) {
  const auto slash = arg.find('/');
  if (slash == std::string::npos || slash == 0 || arg.find('/', slash + 1) != std::string::npos ||
      arg.starts_with('.') || arg.ends_with(".yaml") || arg.ends_with(".yml") || arg.ends_with(".json")) {
    return std::nullopt;
  }
  for (const Preset& p : presets) {
    if (const auto id = hf_id(p); id && same_letters(*id, arg)) return p.path;
  }
  return std::nullopt;
}

}  // namespace

std::optional<fs::path> user_presets_dir() { return user_dir(); }

fs::path presets_dir() {
  for (const fs::path& d : bundled_dirs()) {
    std::error_code ec;
    if (fs::is_directory(d / "models", ec)) return d;
  }
  return {};
}

std::vector<Preset> list_presets(PresetKind kind) {
  std::vector<Preset> out;
  if (const auto dir = user_dir()) out = presets_in(*dir / subdir(kind), true);
  // A bundled preset of the same id is shadowed by the user's.
  if (const fs::path dir = presets_dir(); !dir.empty()) {
    for (Preset& p : presets_in(dir / subdir(kind), false)) {
      const auto mine = std::find_if(out.begin(), out.end(), [&](const Preset& u) { return u.id == p.id; });
      if (mine == out.end()) {
        out.push_back(std::move(p));
      } else {
        mine->shadows_bundled = true;
      }
    }
  }
  std::sort(out.begin(), out.end(), [](const Preset& a, const Preset& b) { return a.id < b.id; });
  return out;
}

std::optional<std::string> hf_id(const Preset& preset) {
  const YamlDocument doc = load_yaml_file(preset.path.string());
  const YAML::Node source = doc.root["source"];
  if (!source || !source.IsScalar()) return std::nullopt;
  return hf_id_of_source(source.Scalar());
}

std::string resolve_preset(PresetKind kind, const std::string& arg) {
  std::error_code ec;
  if (!fs::exists(arg, ec) && kind == PresetKind::model) {
    if (const auto hf = preset_of_hf_id(list_presets(kind), arg)) return hf->string();
  }
  if (fs::exists(arg, ec) || looks_like_path(arg)) return arg;
  const std::vector<Preset> presets = list_presets(kind);
  for (const Preset& p : presets) {
    if (p.id == arg) return p.path.string();
  }
  const PresetKind other = kind == PresetKind::model ? PresetKind::gpu : PresetKind::model;
  if (has_id(list_presets(other), arg)) {
    throw InputError(fmt::format("{}: is a {} preset; pass it as {}", arg, other == PresetKind::model ? "model" : "GPU",
                                 other == PresetKind::model ? "--model" : "--gpu"));
  }
  std::vector<std::string> ids;
  for (const Preset& p : presets) ids.push_back(p.id);
  const auto user = user_dir();
  const std::string lacking = user && !fs::is_directory(*user / subdir(kind), ec)
                                  ? fmt::format("; ${} has no {}/ folder", kPresetsVariable, subdir(kind))
                                  : "";
  throw InputError(fmt::format("{}: no such file, and no {} preset of that name{} (`rooflineplan presets` lists "
                               "them){}",
                               arg, kind == PresetKind::model ? "model" : "GPU", did_you_mean(arg, ids), lacking));
}

std::string resolve_beside(PresetKind kind, const std::string& cell, const fs::path& folder) {
  if (!looks_like_path(cell)) return resolve_preset(kind, cell);
  const fs::path path(cell);
  return path.is_absolute() ? cell : (folder / path).string();
}

}  // namespace roofline::io
