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
#include <system_error>
#include <thread>
#include <vector>

namespace roofline::cli {

// Threads a sweep uses: $ROOFLINEPLAN_THREADS where set (1 to 256; anything else is refused),
// else the cores this process may run on (its affinity, which a container's CPU set limits), at
// most 32; one where there are no threads to start (the page's WebAssembly build has none).
[[nodiscard]] unsigned worker_threads();

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
  std::exception_ptr fatal;  // a worker could not hand a chunk over (out of memory)
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
      try {
        const std::lock_guard lock(m);
        done.emplace(k, std::move(d));
      } catch (...) {
        const std::lock_guard lock(m);
        fatal = std::current_exception();
        stop = true;
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
  // A thread the system will not start (a process limit) leaves the work to those that did; with
  // none, this thread does it all, in order.
  for (unsigned i = 0; i < threads; ++i) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {
      break;
    }
  }
  if (pool.empty()) {
    for (std::size_t k = 0; k < chunks; ++k) consume(k, produce(k));
    return;
  }
  try {
    for (std::size_t k = 0; k < chunks; ++k) {
      Done d;
      {
        std::unique_lock lock(m);
        ready.wait(lock, [&] { return done.contains(k) || fatal; });
        if (!done.contains(k)) std::rethrow_exception(fatal);
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
