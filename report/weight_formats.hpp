#pragma once
// Which format each class of a report's weights is stored in, as the outputs name it. A class
// the model lacks (a dense model's experts) has no format to name.
#include <optional>
#include <string>
#include <string_view>

#include "model/report.hpp"

namespace roofline::report {

// The class's format, when the model stores weights of that class.
[[nodiscard]] std::optional<WeightFormat> class_format(const Report& r, TensorClass c);

// The format the block linears (attention, dense FFN, experts) are stored in, when they share
// one (`--weights` sets them together); "mixed" when they do not (gpt-oss: bf16 attention,
// MXFP4 experts).
[[nodiscard]] std::string_view block_format_name(const Report& r);

// Every class's format: "fp16" when all share one, else grouped by format in class order,
// "bf16: attention, lm_head, embedding; mxfp4: experts".
[[nodiscard]] std::string weight_formats_text(const Report& r);

}  // namespace roofline::report
