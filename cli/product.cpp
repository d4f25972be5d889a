#include "cli/product.hpp"

#include <limits>
#include <stdexcept>

namespace roofline::cli {

std::optional<std::size_t> product_size(std::span<const std::size_t> sizes, std::size_t limit) {
  std::size_t n = 1;
  for (std::size_t s : sizes) {
    if (s == 0) return 0;
  }
  for (std::size_t s : sizes) {
    if (n > limit / s) return std::nullopt;
    n *= s;
  }
  return n;
}

Product::Product(std::vector<std::size_t> sizes) : sizes_(std::move(sizes)), index_(sizes_.size(), 0) {
  const auto n = product_size(sizes_, std::numeric_limits<std::size_t>::max());
  if (!n) throw std::length_error("a product of axes past the size of an index");
  size_ = *n;
}

bool Product::next() {
  for (std::size_t axis = sizes_.size(); axis-- > 0;) {
    if (++index_[axis] < sizes_[axis]) return true;
    index_[axis] = 0;
  }
  return false;
}

void Product::seek(std::size_t position) {
  if (position >= size_) throw std::out_of_range("Product::seek: past the last point");
  for (std::size_t axis = sizes_.size(); axis-- > 0;) {
    index_[axis] = position % sizes_[axis];
    position /= sizes_[axis];
  }
}

}  // namespace roofline::cli
