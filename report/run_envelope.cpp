#include "report/run_envelope.hpp"

namespace roofline::report {

namespace {
// Set and read on the thread that runs the command; sweep's workers render CSV and JSON lines,
// which carry no envelope.
const RunInputs* current = nullptr;
}  // namespace

ScopedRunInputs::ScopedRunInputs(RunInputs inputs) : inputs_(std::move(inputs)), previous_(current) {
  current = &inputs_;
}

ScopedRunInputs::~ScopedRunInputs() { current = previous_; }

nlohmann::ordered_json run_envelope() {
  nlohmann::ordered_json e;
  e["schema_version"] = kSchemaVersion;
  if (current == nullptr) {
    e["tool"] = nullptr;
    e["inputs"] = nullptr;
    return e;
  }
  e["tool"] = current->tool;
  e["inputs"]["command"] = current->command;
  e["inputs"]["arguments"] = current->arguments;
  return e;
}

nlohmann::ordered_json enveloped(const nlohmann::ordered_json& body) {
  nlohmann::ordered_json out = run_envelope();
  if (!body.is_object()) {
    out["data"] = body;
    return out;
  }
  for (const auto& [key, value] : body.items()) out[key] = value;
  return out;
}

}  // namespace roofline::report
