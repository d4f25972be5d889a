#pragma once
// Work cut into numbered chunks, produced on every core and consumed on the calling thread in
// the order one core would have produced them: a sweep's rows come out as a serial sweep writes
// them, whatever thread computed them.
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace roofline::cli {

// Threads a sweep may use: every core the machine reports; one where there are no threads to
// start (the page's WebAssembly build has none).
[[nodiscard]] inline unsigned worker_threads() {
#ifdef __EMSCRIPTEN__
  return 1;
#else
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
#endif
}

// Runs produce(k) for k = 0 … chunks - 1 on `threads` threads, and consume(k, result) on the
// calling thread for k in order. At most `window` chunks are produced ahead of the one consumed,
// so memory stays bounded whatever the number of chunks. An exception from produce(k) is
// rethrown here at k's turn (the chunks before it are consumed); one from consume stops the
// workers and propagates. With one thread everything runs here, in order.
template <class Result>
void ordered_parallel(std::size_t chunks, unsigned threads, std::size_t window,
                      const std::function<Result(std::size_t)>& produce,
                      const std::function<void(std::size_t, Result&&)>& consume) {
  if (threads <= 1 || chunks <= 1) {
    for (std::size_t k = 0; k < chunks; ++k) consume(k, produce(k));
    return;
  }
  struct Done {
    Result result{};
    std::exception_ptr error;
  };
  std::mutex m;
  std::condition_variable ready, room;
  std::map<std::size_t, Done> done;  // produced, not yet consumed
  std::size_t next_chunk = 0, consumed = 0;
  bool stop = false;
  auto work = [&] {
    for (;;) {
      std::size_t k;
      {
        std::unique_lock lock(m);
        room.wait(lock, [&] { return stop || next_chunk >= chunks || next_chunk < consumed + window; });
        if (stop || next_chunk >= chunks) return;
        k = next_chunk++;
      }
      Done d;
      try {
        d.result = produce(k);
      } catch (...) {
        d.error = std::current_exception();
      }
      {
        const std::lock_guard lock(m);
        done.emplace(k, std::move(d));
      }
      ready.notify_all();
    }
  };
  std::vector<std::thread> pool;
  auto halt = [&] {
    {
      const std::lock_guard lock(m);
      stop = true;
    }
    room.notify_all();
    for (std::thread& t : pool) t.join();
  };
  try {
    for (unsigned i = 0; i < threads; ++i) pool.emplace_back(work);
    for (std::size_t k = 0; k < chunks; ++k) {
      Done d;
      {
        std::unique_lock lock(m);
        ready.wait(lock, [&] { return done.contains(k); });
        d = std::move(done.at(k));
        done.erase(k);
        consumed = k + 1;
      }
      room.notify_all();
      if (d.error) std::rethrow_exception(d.error);
      consume(k, std::move(d.result));
    }
  } catch (...) {
    halt();
    throw;
  }
  halt();
}

}  // namespace roofline::cli
