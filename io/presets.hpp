#pragma once
// Bundled descriptions of public models and GPUs, found by name. They are looked for in
// $ROOFLINEPLAN_PRESETS, then beside the installed binary (../share/rooflineplan/presets), then
// in the source tree the binary was built from.
#include <filesystem>
#include <string>
#include <vector>

namespace roofline::io {

enum class PresetKind { model, gpu };

struct Preset {
  std::string id;  // the file's stem: `llama-2-7b`
  std::filesystem::path path;
};

// The first presets folder that exists, or an empty path.
[[nodiscard]] std::filesystem::path presets_dir();
[[nodiscard]] std::vector<Preset> list_presets(PresetKind kind);

// `arg` itself when it names a file (or looks like a path), else the preset of that name.
// Throws InputError naming the nearest preset when neither exists.
[[nodiscard]] std::string resolve_preset(PresetKind kind, const std::string& arg);

}  // namespace roofline::io
