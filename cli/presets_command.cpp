#include "cli/presets_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <string>
#include <vector>

#include "report/human_units.hpp"
#include "report/safe_text.hpp"
#include "model/parameters.hpp"
#include "io/presets.hpp"
#include "io/spec_loader.hpp"
#include "report/terminal_width.hpp"
#include "report/text_table.hpp"

namespace roofline::cli {

using namespace io;
using namespace report;

namespace {

// A user's preset is marked, so the list says which file each name loads.
std::string shown_id(const Preset& p) { return p.user ? p.id + " *" : p.id; }

// Where the entries come from: the bundled folder, and $ROOFLINEPLAN_PRESETS for those marked *,
// naming the ones that stand in for a bundled preset of the same name.
std::string sources_line(const std::vector<Preset>& models, const std::vector<Preset>& gpus) {
  const std::filesystem::path bundled = presets_dir();
  std::string line = bundled.empty() ? "no bundled presets found" : "presets from " + bundled.string();
  const auto user = user_presets_dir();
  if (!user) return line;
  std::vector<std::string> mine, shadowing;
  for (const auto* list : {&models, &gpus}) {
    for (const Preset& p : *list) {
      if (p.user) mine.push_back(p.id);
      if (p.shadows_bundled) shadowing.push_back(p.id);
    }
  }
  const std::string dir = terminal_text(user->string());  // the variable's own text, shown safely
  if (mine.empty()) return line + fmt::format("; $ROOFLINEPLAN_PRESETS={} has none", dir);
  line += fmt::format("; those marked * from $ROOFLINEPLAN_PRESETS={}", dir);
  if (!shadowing.empty()) {
    line += fmt::format(" ({} in place of the bundled {})", fmt::join(shadowing, ", "),
                        shadowing.size() == 1 ? "one" : "ones");
  }
  return line;
}

}  // namespace

void print_presets(std::ostream& out) {
  const std::vector<Preset> model_presets = list_presets(PresetKind::model);
  const std::vector<Preset> gpu_presets = list_presets(PresetKind::gpu);
  out << sources_line(model_presets, gpu_presets) << "\n\n";
  TextTable models{"Models", {"preset", "name", "params", "active", "KV/token", "source"}, {}};
  for (const Preset& p : model_presets) {
    const ModelSpec m = read_model(load_yaml_file(p.path.string()));
    const ParameterCount c = count_parameters(m);
    const Precision prec = resolve_precision(m);
    models.rows.push_back({shown_id(p), m.name, human_count(c.total()), human_count(c.active()),
                           human(kv_bytes_per_token(m, prec)), m.source});
  }
  out << render_plain(models, table_width(out)) << "\n";
  TextTable gpus{"GPUs", {"preset", "name", "memory", "bandwidth", "fp16", "power", "source"}, {}};
  for (const Preset& p : gpu_presets) {
    const GpuSpec g = read_gpu(load_yaml_file(p.path.string()));
    const auto fp16 = g.datasheet_peak(DType::fp16);
    gpus.rows.push_back({shown_id(p), g.name, human(g.memory_capacity), human(g.memory_bandwidth),
                         fp16 ? human(*fp16) : "-", g.power ? fmt::format("{:g} W", g.power->value()) : "-", g.source});
  }
  out << render_plain(gpus, table_width(out));
}

}  // namespace roofline::cli
