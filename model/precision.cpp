#include "model/precision.hpp"

namespace roofline {

Precision resolve_precision(DType model_dtype, const PrecisionOverrides& o) {
  Precision p;
  p.weights = o.weights.value_or(model_dtype);
  p.activations = o.activations.value_or(is_wide_float(model_dtype) ? model_dtype : DType::fp16);
  p.kv = o.kv.value_or(p.activations);
  p.compute = o.compute.value_or(p.activations);
  p.group_size = o.group_size.value_or(p.group_size);
  return p;
}

}  // namespace roofline
