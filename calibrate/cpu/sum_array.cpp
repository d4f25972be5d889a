#include "calibrate/cpu/sum_array.hpp"

namespace roofline::calibrate {

double sum_array(const double* a, long n) {
  double s = 0;
  for (long k = 0; k < n; ++k) s += a[k];
  return s;
}

}  // namespace roofline::calibrate
