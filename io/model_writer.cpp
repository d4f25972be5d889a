#include "io/model_writer.hpp"

#include "io/schema.hpp"

namespace roofline::io {

std::string model_yaml(const ModelSpec& m) { return write_document(model_schema(), m); }

}  // namespace roofline::io
