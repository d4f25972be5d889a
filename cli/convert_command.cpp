#include "cli/convert_command.hpp"

#include "io/model_writer.hpp"
#include "io/spec_loader.hpp"

namespace roofline::cli {

using namespace io;

void add_convert_options(Options& o, std::string& model) {
  o.add("model", model, "config.json, a model YAML file or a preset name").required();
}

void run_convert(const std::string& model, std::ostream& out) { out << model_yaml(load_model(model)); }

}  // namespace roofline::cli
