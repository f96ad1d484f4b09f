// One configurable stand-in for a network in the tests: uniform unless told
// otherwise, with priors and a value chosen per position, and what a test
// wants to observe (calls, batch sizes, malformed requests) recorded; an
// optional gate holds evaluations back (every Evaluate call passes it first;
// it must outlive the evaluator).
#ifndef VOLKHV_TESTS_FAKE_EVALUATOR_H_
#define VOLKHV_TESTS_FAKE_EVALUATOR_H_

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "engine/game/game.h"
#include "nn/evaluator.h"

namespace volkhv::testing {

// Holds evaluations back while Hold(true) is in force, so that searches
// started then are certainly still running. Thread-safe.
class EvaluationGate {
 public:
  void Hold(bool hold) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      held_ = hold;
    }
    cv_.notify_all();
  }
  // Waits (up to a minute) until `n` evaluations are held.
  bool WaitForHeld(int n) {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        if (waiting_ >= n) return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return false;
  }
  // Returns once the gate is open.
  void Pass() {
    std::unique_lock<std::mutex> lock(mu_);
    ++waiting_;
    cv_.wait(lock, [this] { return !held_; });
    --waiting_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool held_ = false;
  int waiting_ = 0;
};

// Sets the priors of one position; `priors` arrives holding the uniform
// priors, one per legal move.
using PriorsFn = std::function<void(
    const GameState& state, const MoveList& moves, std::vector<float>* priors)>;
// The WDL of one position, for its side to move.
using ValueFn = std::function<std::array<float, 3>(const GameState& state)>;
// The plies to the end of the game from one position (a moves-left head).
using MovesLeftFn = std::function<float(const GameState& state)>;

// Uniform priors, W = D = L = 1/3 and no moves left (nn::UniformEvaluator)
// unless `priors`, `value` or set_moves_left say otherwise. Thread-safe, like
// every Evaluator.
class FakeEvaluator final : public nn::Evaluator {
 public:
  explicit FakeEvaluator(PriorsFn priors = nullptr, ValueFn value = nullptr,
                         EvaluationGate* gate = nullptr)
      : priors_(std::move(priors)), value_(std::move(value)), gate_(gate) {}

  void Evaluate(std::span<const nn::EvalRequest> requests,
                std::span<nn::Evaluation> results) override {
    calls_.fetch_add(1);
    {
      std::lock_guard<std::mutex> lock(mu_);
      batch_sizes_.push_back(static_cast<int>(requests.size()));
      for (const nn::EvalRequest& r : requests) {
        MoveList moves;
        r.state->LegalMoves(&moves);
        if (r.state->Result().IsOver() ||
            moves.size() != r.legal_moves->size()) {
          ++bad_requests_;
        }
      }
    }
    if (gate_ != nullptr) gate_->Pass();
    uniform_.Evaluate(requests, results);
    for (size_t i = 0; i < requests.size(); ++i) {
      if (priors_) {
        priors_(*requests[i].state, *requests[i].legal_moves,
                &results[i].priors);
      }
      if (value_) {
        const std::array<float, 3> wdl = value_(*requests[i].state);
        for (int k = 0; k < 3; ++k) results[i].wdl[k] = wdl[k];
      }
      if (moves_left_) results[i].moves_left = moves_left_(*requests[i].state);
    }
  }

  // Evaluations come with moves left from `moves_left` (by default they have
  // none, as from a net without the head). Call before any Evaluate.
  void set_moves_left(MovesLeftFn moves_left) {
    moves_left_ = std::move(moves_left);
  }

  // Evaluate calls so far.
  int calls() const { return calls_.load(); }
  // The number of positions of each call, in order.
  std::vector<int> batch_sizes() {
    std::lock_guard<std::mutex> lock(mu_);
    return batch_sizes_;
  }
  // Requests for a finished game or with a wrong legal-move list.
  int bad_requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return bad_requests_;
  }

 private:
  const PriorsFn priors_;
  const ValueFn value_;
  MovesLeftFn moves_left_;
  EvaluationGate* const gate_;
  nn::UniformEvaluator uniform_;
  std::atomic<int> calls_{0};
  std::mutex mu_;
  std::vector<int> batch_sizes_;
  int bad_requests_ = 0;
};

// Priors: `each` for every move named in `move_texts` when all of them are
// legal and other moves are too; the other moves share the rest equally.
inline PriorsFn FavourMoves(std::vector<std::string> move_texts, float each) {
  return [move_texts = std::move(move_texts), each](
             const GameState& state, const MoveList& moves,
             std::vector<float>* priors) {
    std::vector<bool> favoured(moves.size());
    int num_favoured = 0;
    for (int m = 0; m < moves.size(); ++m) {
      const std::string text = state.MoveText(moves[m]);
      for (const std::string& t : move_texts)
        favoured[m] = favoured[m] || text == t;
      num_favoured += favoured[m];
    }
    const int count = static_cast<int>(move_texts.size());
    if (num_favoured != count || moves.size() <= count) return;
    for (int m = 0; m < moves.size(); ++m) {
      (*priors)[m] =
          favoured[m] ? each : (1 - count * each) / (moves.size() - count);
    }
  };
}

// Priors: almost none (1e-4 before normalising) for the moves from `square`,
// as a network that has not learnt what the piece there can do.
inline PriorsFn ShyOfSquare(int square) {
  return [square](const GameState&, const MoveList& moves,
                  std::vector<float>* priors) {
    priors->assign(moves.size(), 1.0f);
    for (int k = 0; k < moves.size(); ++k) {
      if (moves[k].from == square) (*priors)[k] = 1e-4f;
    }
    float sum = 0;
    for (float p : *priors) sum += p;
    for (float& p : *priors) p /= sum;
  };
}

// Priors: `first` for the first legal move, the rest shared equally.
inline PriorsFn FirstMovePrior(float first) {
  return [first](const GameState&, const MoveList& moves,
                 std::vector<float>* priors) {
    const int n = moves.size();
    priors->assign(n, n > 1 ? (1 - first) / (n - 1) : 1.0f);
    if (n > 1) (*priors)[0] = first;
  };
}

// Value: `first_side` when the first side (white, the attackers) is to move,
// `second_side` otherwise; each is a WDL for the side to move.
inline ValueFn ValueBySide(std::array<float, 3> first_side,
                           std::array<float, 3> second_side) {
  return [first_side, second_side](const GameState& state) {
    return state.SideToMove() == 0 ? first_side : second_side;
  };
}

// Value: every position lost for `losing_side` (0 or 1) and won for the
// other.
inline ValueFn LostFor(int losing_side) {
  return [losing_side](const GameState& state) {
    const bool lost = (state.SideToMove() & 1) == losing_side;
    return std::array<float, 3>{lost ? 0.0f : 1.0f, 0, lost ? 1.0f : 0.0f};
  };
}

// Value: a fixed pseudo-random W - L in [-max_wl, max_wl] per position (from
// its hash), no draws, so that some moves look much better than others.
inline ValueFn ValueFromHash(float max_wl) {
  return [max_wl](const GameState& state) {
    const uint64_t h = state.Hash() * 0x9E3779B97F4A7C15ull;
    const float wl = max_wl * (static_cast<float>(h >> 40) / (1 << 24) * 2 - 1);
    return std::array<float, 3>{(1 + wl) / 2, 0, (1 - wl) / 2};
  };
}

}  // namespace volkhv::testing

#endif  // VOLKHV_TESTS_FAKE_EVALUATOR_H_
