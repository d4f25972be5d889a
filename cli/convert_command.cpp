#include "cli/convert_command.hpp"

#include "io/model_writer.hpp"
#include "io/spec_loader.hpp"

namespace roofline::cli {

using namespace io;

CLI::App* add_convert_command(CLI::App& app, std::string& model) {
  CLI::App* c = app.add_subcommand("convert", "print a model (a Hugging Face config.json, a preset) as rooflineplan YAML");
  c->add_option("model", model, "config.json, a model YAML file or a preset name")->required();
  return c;
}

void run_convert(const std::string& model, std::ostream& out) { out << model_yaml(load_model(model)); }

}  // namespace roofline::cli
