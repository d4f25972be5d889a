#include "io/presets.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "io/input_error.hpp"
#include "io/nearest_word.hpp"

namespace fs = std::filesystem;

namespace roofline::io {

namespace {

std::vector<fs::path> candidate_dirs() {
  std::vector<fs::path> dirs;
  if (const char* env = std::getenv("ROOFLINEPLAN_PRESETS"); env && *env) dirs.emplace_back(env);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) dirs.push_back(exe.parent_path().parent_path() / "share" / "rooflineplan" / "presets");
  dirs.emplace_back(ROOFLINEPLAN_SOURCE_PRESETS);
  return dirs;
}

std::string_view subdir(PresetKind kind) { return kind == PresetKind::model ? "models" : "gpus"; }

bool looks_like_path(const std::string& arg) {
  return arg.find('/') != std::string::npos || arg.ends_with(".yaml") || arg.ends_with(".yml") ||
         arg.ends_with(".json");
}

}  // namespace

fs::path presets_dir() {
  for (const fs::path& d : candidate_dirs()) {
    std::error_code ec;
    if (fs::is_directory(d / "models", ec)) return d;
  }
  return {};
}

std::vector<Preset> list_presets(PresetKind kind) {
  std::vector<Preset> out;
  const fs::path dir = presets_dir();
  if (dir.empty()) return out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir / subdir(kind), ec)) {
    if (entry.path().extension() == ".yaml") out.push_back({entry.path().stem().string(), entry.path()});
  }
  std::sort(out.begin(), out.end(), [](const Preset& a, const Preset& b) { return a.id < b.id; });
  return out;
}

std::string resolve_preset(PresetKind kind, const std::string& arg) {
  std::error_code ec;
  if (fs::exists(arg, ec) || looks_like_path(arg)) return arg;
  const std::vector<Preset> presets = list_presets(kind);
  for (const Preset& p : presets) {
    if (p.id == arg) return p.path.string();
  }
  std::vector<std::string> ids;
  for (const Preset& p : presets) ids.push_back(p.id);
  throw InputError(fmt::format("{}: no such file, and no {} preset of that name{} (`rooflineplan presets` lists them)",
                               arg, kind == PresetKind::model ? "model" : "GPU", did_you_mean(arg, ids)));
}

}  // namespace roofline::io
