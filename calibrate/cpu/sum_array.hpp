#pragma once
// The read-bandwidth kernel: a vectorised sum, built with -ffast-math so that the compiler may
// split it into independent partial sums (a plain sum is one dependent chain of adds).

namespace roofline::calibrate {

double sum_array(const double* a, long n);

}  // namespace roofline::calibrate
