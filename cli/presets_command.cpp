#include "cli/presets_command.hpp"

#include <fmt/format.h>

#include "report/human_units.hpp"
#include "model/parameters.hpp"
#include "io/presets.hpp"
#include "io/spec_loader.hpp"
#include "report/terminal_width.hpp"
#include "report/text_table.hpp"

namespace roofline::cli {

using namespace io;
using namespace report;

void print_presets(std::ostream& out) {
  out << fmt::format("presets from {}\n\n", presets_dir().string());
  TextTable models{"Models", {"preset", "name", "params", "active", "KV/token", "source"}, {}};
  for (const Preset& p : list_presets(PresetKind::model)) {
    const ModelSpec m = read_model(load_yaml_file(p.path.string()));
    const ParameterCount c = count_parameters(m);
    const Precision prec = resolve_precision(m);
    models.rows.push_back({p.id, m.name, human_count(c.total()), human_count(c.active()),
                           human(kv_bytes_per_token(m, prec)), m.source});
  }
  out << render_plain(models, table_width(out)) << "\n";
  TextTable gpus{"GPUs", {"preset", "name", "memory", "bandwidth", "fp16", "power", "source"}, {}};
  for (const Preset& p : list_presets(PresetKind::gpu)) {
    const GpuSpec g = read_gpu(load_yaml_file(p.path.string()));
    const auto fp16 = g.datasheet_peak(DType::fp16);
    gpus.rows.push_back({p.id, g.name, human(g.memory_capacity), human(g.memory_bandwidth),
                         fp16 ? human(*fp16) : "-", g.power ? fmt::format("{:g} W", g.power->value()) : "-", g.source});
  }
  out << render_plain(gpus, table_width(out));
}

}  // namespace roofline::cli
