// The thread pool behind parallel_for: persistent workers, a short spin, then a blocking wait.
#include "core/parallel.hpp"

#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#define ES_PAUSE() _mm_pause()
#else
#define ES_PAUSE() std::this_thread::yield()
#endif

namespace eigsolve {
namespace {

thread_local bool tl_in_team = false;

class Pool {
 public:
  ~Pool() {
    {
      std::lock_guard<std::mutex> lk(m_);
      stop_ = true;
      ++generation_;
    }
    cv_.notify_all();
    for (auto& t : workers_)
      t.join();
  }

  void run(int team, const std::function<void(int)>& f) {
    std::lock_guard<std::mutex> serial(run_mutex_);  // one team at a time
    grow(team - 1);
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(team));
    {
      std::lock_guard<std::mutex> lk(m_);
      job_ = &f;
      errors_ = &errors;
      team_ = team;
      remaining_.store(team - 1, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
    }
    cv_.notify_all();
    tl_in_team = true;
    try {
      f(0);
    } catch (...) {
      errors[0] = std::current_exception();
    }
    tl_in_team = false;
    // Wait for the workers: spin a little, then block.
    for (int spin = 0; remaining_.load(std::memory_order_acquire) != 0 && spin < kSpin; ++spin)
      ES_PAUSE();
    if (remaining_.load(std::memory_order_acquire) != 0) {
      std::unique_lock<std::mutex> lk(m_);
      done_cv_.wait(lk, [&] { return remaining_.load(std::memory_order_acquire) == 0; });
    }
    for (auto& e : errors)
      if (e) std::rethrow_exception(e);
  }

 private:
  static constexpr int kSpin = 2000;  // some tens of microseconds of pause instructions

  void grow(int nworkers) {
    while (static_cast<int>(workers_.size()) < nworkers) {
      const int id = static_cast<int>(workers_.size()) + 1;
      std::uint64_t seen = generation_.load(std::memory_order_acquire);
      workers_.emplace_back([this, id, seen] { loop(id, seen); });
    }
  }

  void loop(int id, std::uint64_t seen) {
    tl_in_team = true;
    for (;;) {
      // Spin for the next generation, then block.
      int spin = 0;
      while (generation_.load(std::memory_order_acquire) == seen && spin < kSpin) {
        ES_PAUSE();
        ++spin;
      }
      const std::function<void(int)>* job;
      int team;
      std::vector<std::exception_ptr>* errors;
      {
        std::unique_lock<std::mutex> lk(m_);
        cv_.wait(lk, [&] { return generation_.load(std::memory_order_acquire) != seen; });
        seen = generation_.load(std::memory_order_acquire);
        if (stop_) return;
        job = job_;
        team = team_;
        errors = errors_;
      }
      if (id >= team) continue;  // not in this team
      try {
        (*job)(id);
      } catch (...) {
        (*errors)[static_cast<std::size_t>(id)] = std::current_exception();
      }
      if (remaining_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lk(m_);
        done_cv_.notify_one();
      }
    }
  }

  std::mutex run_mutex_;
  std::mutex m_;
  std::condition_variable cv_, done_cv_;
  std::vector<std::thread> workers_;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<int> remaining_{0};
  const std::function<void(int)>* job_ = nullptr;
  std::vector<std::exception_ptr>* errors_ = nullptr;
  int team_ = 0;
  bool stop_ = false;
};

Pool& pool() {
  static Pool p;
  return p;
}

}  // namespace

void run_team(int team, const std::function<void(int)>& f) {
  if (team <= 1 || tl_in_team) {
    for (int k = 0; k < team || k == 0; ++k)
      f(k);
    return;
  }
  pool().run(team, f);
}

}  // namespace eigsolve
