// A backend computes the network on a batch of encoded positions. It is the
// one place where a neural-network library (LibTorch, Eigen) is used.
#ifndef VOLKHV_NN_BACKEND_H_
#define VOLKHV_NN_BACKEND_H_

#include <string>

#include "engine/game/encoder.h"

namespace volkhv::nn {

struct BackendInfo {
  std::string name;     // "torch-cpu", "torch-cuda", "eigen", "uniform"
  InputShape input;     // what Compute reads per position
  int policy_size = 0;  // logits Compute writes per position
  // The batch size the backend runs best at: larger batches gain it little
  // throughput per position. The batching evaluator runs a batch as soon
  // as it holds this many positions (capped by its max_batch) instead of
  // waiting for more.
  int preferred_batch = 1;
  int max_batch = 1024;  // never more positions per Compute
  // Whether the net has a moves-left head (Compute writes `moves_left`).
  bool moves_left = false;
};

// Contract: Compute is called by one thread at a time (the batching
// evaluator's worker); implementations need not be thread-safe. Info() is
// thread-safe.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual const BackendInfo& Info() const = 0;
  // Runs `batch` positions (1 <= batch <= max_batch). `input` holds
  // batch * input.Size() floats; writes batch * policy_size raw policy logits
  // and batch * 3 WDL probabilities (win, draw, loss for the side to move;
  // each row sums to 1). With Info().moves_left and `moves_left` not null,
  // also batch expected plies to the game's end (>= 0); `moves_left` is
  // not touched otherwise.
  virtual void Compute(int batch, const float* input, float* policy_logits,
                       float* wdl, float* moves_left) = 0;
};

}  // namespace volkhv::nn

#endif  // VOLKHV_NN_BACKEND_H_
