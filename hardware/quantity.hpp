#pragma once
// Strong types for the physical quantities of a roofline. A sum of seconds and bytes does not
// compile; the only cross-unit operators are the ones the roofline itself uses
// (bytes / bandwidth = seconds, FLOPs / peak = seconds, FLOPs / bytes = intensity).
#include <compare>

namespace roofline {

template <class Tag>
class Quantity {
 public:
  constexpr Quantity() = default;
  constexpr explicit Quantity(double value) : value_(value) {}
  [[nodiscard]] constexpr double value() const { return value_; }

  constexpr Quantity& operator+=(Quantity other) {
    value_ += other.value_;
    return *this;
  }
  constexpr Quantity& operator-=(Quantity other) {
    value_ -= other.value_;
    return *this;
  }
  friend constexpr Quantity operator+(Quantity a, Quantity b) { return Quantity(a.value_ + b.value_); }
  friend constexpr Quantity operator-(Quantity a, Quantity b) { return Quantity(a.value_ - b.value_); }
  friend constexpr Quantity operator*(Quantity a, double k) { return Quantity(a.value_ * k); }
  friend constexpr Quantity operator*(double k, Quantity a) { return Quantity(a.value_ * k); }
  friend constexpr Quantity operator/(Quantity a, double k) { return Quantity(a.value_ / k); }
  // A ratio of like quantities is a plain number (a share, a speed-up).
  friend constexpr double operator/(Quantity a, Quantity b) { return a.value_ / b.value_; }
  friend constexpr auto operator<=>(Quantity, Quantity) = default;

 private:
  double value_ = 0.0;
};

using Bytes = Quantity<struct BytesTag>;
using Flops = Quantity<struct FlopsTag>;
using Seconds = Quantity<struct SecondsTag>;
using BytesPerSecond = Quantity<struct BytesPerSecondTag>;
using FlopsPerSecond = Quantity<struct FlopsPerSecondTag>;
using FlopsPerByte = Quantity<struct FlopsPerByteTag>;  // arithmetic intensity
using Watts = Quantity<struct WattsTag>;

constexpr Seconds operator/(Bytes b, BytesPerSecond bw) { return Seconds(b.value() / bw.value()); }
constexpr Seconds operator/(Flops f, FlopsPerSecond p) { return Seconds(f.value() / p.value()); }
// Attained performance: where an operation sits on the roofline chart's vertical axis.
constexpr FlopsPerSecond operator/(Flops f, Seconds t) { return FlopsPerSecond(f.value() / t.value()); }
constexpr FlopsPerByte operator/(Flops f, Bytes b) { return FlopsPerByte(f.value() / b.value()); }
// The ridge point of a roofline: the intensity at which compute and memory time are equal.
constexpr FlopsPerByte operator/(FlopsPerSecond p, BytesPerSecond bw) {
  return FlopsPerByte(p.value() / bw.value());
}
constexpr Bytes operator*(BytesPerSecond bw, Seconds t) { return Bytes(bw.value() * t.value()); }
constexpr Flops operator*(FlopsPerSecond p, Seconds t) { return Flops(p.value() * t.value()); }

}  // namespace roofline
