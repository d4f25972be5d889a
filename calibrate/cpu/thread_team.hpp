#pragma once
// A fixed team of threads that runs one job split by thread index, with a barrier the job can
// use between phases (one matrix product after another, as kernels run on a device).
#include <barrier>
#include <functional>
#include <thread>
#include <vector>

namespace roofline::calibrate {

class ThreadTeam {
 public:
  explicit ThreadTeam(int threads) : threads_(threads) {}
  [[nodiscard]] int size() const { return threads_; }

  // Runs job(index, barrier) on every thread (index 0 on the caller) and waits for all.
  void run(const std::function<void(int, std::barrier<>&)>& job) {
    std::barrier<> sync(threads_);
    std::vector<std::jthread> others;
    for (int i = 1; i < threads_; ++i) others.emplace_back([&, i] { job(i, sync); });
    job(0, sync);
  }

  // The [begin, end) share of `n` items that thread `index` owns.
  [[nodiscard]] std::pair<long, long> share(long n, int index) const {
    return {n * index / threads_, n * (index + 1) / threads_};
  }

 private:
  int threads_;
};

}  // namespace roofline::calibrate
