#pragma once
// Descriptions of public models and GPUs, found by name: first in $ROOFLINEPLAN_PRESETS (its
// models/ and gpus/, either may be absent), then in the bundled presets, beside the installed
// binary (../share/rooflineplan/presets) or else in the source tree the binary was built from.
// A user's preset shadows a bundled one of the same name.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace roofline::io {

enum class PresetKind { model, gpu };

struct Preset {
  std::string id;  // the file's stem: `llama-2-7b`
  std::filesystem::path path;
  bool user = false;             // from $ROOFLINEPLAN_PRESETS, not bundled
  bool shadows_bundled = false;  // a user's preset in place of the bundled one of its id
};

// The bundled presets folder (the first with models/), or an empty path.
[[nodiscard]] std::filesystem::path presets_dir();
// $ROOFLINEPLAN_PRESETS, or nothing when it is unset or empty; throws as list_presets does.
[[nodiscard]] std::optional<std::filesystem::path> user_presets_dir();
// The user's presets, then the bundled ones they do not shadow, by id: each folder's .yaml and
// .yml files. Throws InputError when $ROOFLINEPLAN_PRESETS is set to a folder that does not
// exist or has neither models/ nor gpus/, or when one folder holds `a.yaml` and `a.yml`.
[[nodiscard]] std::vector<Preset> list_presets(PresetKind kind);

// The Hugging Face id a model preset was converted from, as its `source` names it (`HF
// Qwen/Qwen3-8B config.json, …` is `Qwen/Qwen3-8B`), or nothing for a preset from elsewhere.
[[nodiscard]] std::optional<std::string> hf_id(const Preset& preset);

// `arg` itself when it names a file (or looks like a path) and is not a preset's Hugging Face id
// (`Qwen/Qwen3-8B`, any case: hf_id), else the preset of that name or id.
// Throws InputError naming the nearest preset when neither exists, or saying that the name is
// a preset of the other kind (a GPU given as --model).
[[nodiscard]] std::string resolve_preset(PresetKind kind, const std::string& arg);

// For a file that names models and GPUs (a measurements CSV in `folder`): a cell that looks like
// a path (a `/`, a .yaml, .yml or .json name) is a file relative to `folder` unless absolute;
// any other cell is a preset's name, resolved as resolve_preset does.
[[nodiscard]] std::string resolve_beside(PresetKind kind, const std::string& cell, const std::filesystem::path& folder);

}  // namespace roofline::io
