#pragma once
// The points of a Cartesian product of axes, walked as nested loops would walk them: the first
// axis outermost, the last varying fastest.
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace roofline::cli {

// The number of points, or nullopt when it passes `limit` (multiplied in only while it stays
// within the limit, so that it never overflows).
[[nodiscard]] std::optional<std::size_t> product_size(std::span<const std::size_t> sizes, std::size_t limit);

class Product {
 public:
  // Throws std::length_error when the product does not fit a size_t: check product_size first.
  explicit Product(std::vector<std::size_t> sizes);
  [[nodiscard]] std::size_t size() const { return size_; }
  // One position per axis; valid while size() > 0.
  [[nodiscard]] std::span<const std::size_t> index() const { return index_; }
  // Moves to the next point; false after the last.
  bool next();
  // Moves to the point `position` steps from the first (below size()), as that many next() would.
  void seek(std::size_t position);

 private:
  std::vector<std::size_t> sizes_, index_;
  std::size_t size_;
};

}  // namespace roofline::cli
