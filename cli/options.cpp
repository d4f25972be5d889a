#include <CLI/CLI.hpp>

#include "cli/command.hpp"
#include "io/input_error.hpp"

namespace roofline::cli {

Options& Options::add(const std::string& names, std::string& into, const std::string& help) {
  last_ = app_.add_option(names, into, help);
  return *this;
}

Options& Options::add(const std::string& names, long& into, const std::string& help) {
  last_ = app_.add_option(names, into, help);
  return *this;
}

Options& Options::add(const std::string& names, int& into, const std::string& help) {
  last_ = app_.add_option(names, into, help);
  return *this;
}

Options& Options::add(const std::string& names, double& into, const std::string& help) {
  last_ = app_.add_option(names, into, help);
  return *this;
}

Options& Options::add(const std::string& names, std::vector<std::string>& into, const std::string& help) {
  last_ = app_.add_option(names, into, help)->delimiter(',');
  return *this;
}

Options& Options::add(const std::string& names, std::vector<double>& into, const std::string& help) {
  last_ = app_.add_option(names, into, help)->delimiter(',');
  return *this;
}

Options& Options::flag(const std::string& names, bool& into, const std::string& help) {
  last_ = app_.add_flag(names, into, help);
  return *this;
}

Options& Options::one_of(std::vector<std::string> values) {
  last_->check(CLI::IsMember(std::move(values)));
  return *this;
}

Options& Options::show_default() {
  last_->capture_default_str();
  return *this;
}

Options& Options::required() {
  last_->required();
  return *this;
}

void parse_flag_line(const std::string& line, const std::function<void(Options&)>& declare) {
  CLI::App app;
  app.set_help_flag();  // --help in a file is an unknown flag, not a request
  Options options(app);
  declare(options);
  try {
    app.parse(line, false);
  } catch (const CLI::ParseError& e) {
    throw io::InputError(e.what());
  }
}

}  // namespace roofline::cli
