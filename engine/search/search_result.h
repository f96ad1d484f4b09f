// What a search is asked (SearchLimits) and what it answers (SearchResult):
// plain data shared by the search and its front ends.
#ifndef VOLKHV_ENGINE_SEARCH_SEARCH_RESULT_H_
#define VOLKHV_ENGINE_SEARCH_SEARCH_RESULT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/game/move.h"
#include "engine/game/result.h"
#include "engine/search/node.h"

namespace volkhv::search {

// When Run returns. A zero limit is no limit. With none of visits, nodes,
// time and depth set, Run searches until *stop (as with infinite).
struct SearchLimits {
  uint64_t visits = 0;  // root visits, counting those kept by tree reuse
  uint64_t nodes = 0;   // playouts of this Run
  int64_t time_ms = 0;  // wall time of this Run
  // The mean depth of this Run's playouts (plies from the root to a
  // playout's end, rounded, at least 1: the `depth` of UCI info lines) to
  // reach (UCI's `go depth N`).
  int depth = 0;
  // Ignore visits, nodes and time; return only once *stop is set (with no
  // stop flag, as soon as nothing more can be learnt: root proven or memory
  // cap reached).
  bool infinite = false;
  // UCI's `go mate N` (2N - 1 plies): a Run that is not infinite and has a
  // stop flag but none of visits, nodes, time and depth ends once the root
  // is proven won in at most this many plies, instead of waiting for *stop
  // as such a Run otherwise does (0 = no such end).
  int mate_plies = 0;
  // How often the progress callback is called (wall time; 0 = after every
  // minibatch).
  int64_t progress_interval_ms = 1000;
};

// One rule of a move filter (Search::SetMoveFilter): which moves the search
// tries near the root, for UCI's `go searchmoves` and the analysis engine's
// allowMoves / avoidMoves.
struct MoveRule {
  int side = 0;         // the player whose moves it restricts (0 or 1)
  int until_depth = 1;  // at nodes fewer than this many plies below the root
  bool allow = true;    // true: only `moves`; false: every move but `moves`
  // In the game's notation, read by GameState::ParseMove in each position
  // the rule applies to; a text that is no legal move there matches none.
  std::vector<std::string> moves;

  bool operator==(const MoveRule&) const = default;
};

enum class StopReason {
  kVisits,    // root visits reached SearchLimits::visits
  kNodes,     // playouts reached SearchLimits::nodes
  kTime,      // SearchLimits::time_ms elapsed
  kDepth,     // the playouts' mean depth reached SearchLimits::depth
  kStopped,   // the stop flag was set
  kProven,    // the root's value is proven (game-theoretic)
  kMemory,    // the tree reached SearchParams::ram_limit_mb
  kGameOver,  // the root position is already decided; nothing to search
};
std::string_view StopReasonName(StopReason reason);

// One legal move of the root. Values are from the point of view of the side
// to move at the root.
struct MoveInfo {
  Move move;
  uint32_t visits = 0;
  // Win, draw, loss; all zero when unvisited, unless proven (then the
  // proven outcome).
  float wdl[3] = {0, 0, 0};
  float q = 0;      // wdl[0] - wdl[2]
  float prior = 0;  // as searched (softmax temperature, root noise)
  Proven proven = Proven::kNone;
  int proven_plies = 0;  // plies to the end of the game, counting this move
  // Mean plies to the end of the game after this move, counting it, as the
  // net's moves-left head and the search see it (exact when proven); -1
  // when the net has no such head or the move has no visit.
  float moves_left = -1;
  std::vector<Move> pv;  // starts with `move`; follows the most visited
};

struct SearchResult {
  // Every legal move of the root, best first (the order BestMove uses:
  // proven wins by fewest plies, then by visits, Q and prior; proven losses
  // last, the longest first). Empty when the root is decided.
  std::vector<MoveInfo> moves;
  Move best_move;  // moves[0].move, or the null move when moves is empty
  uint32_t root_visits = 0;
  float root_wdl[3] = {0, 0, 0};  // side to move's view
  float root_q = 0;
  Proven root_proven = Proven::kNone;
  int root_proven_plies = 0;
  // Mean plies to the end of the game from the root (as MoveInfo::
  // moves_left); -1 when the net has no moves-left head.
  float root_moves_left = -1;
  GameResult game_result;  // the root position's own result (kGameOver)

  uint64_t playouts = 0;     // visits added by this Run
  uint64_t evaluations = 0;  // positions sent to the evaluator by this Run
  uint64_t batches = 0;      // Evaluator::Evaluate calls of this Run
  double eval_seconds = 0;   // wall time inside Evaluator::Evaluate
  uint64_t tree_nodes = 0;   // nodes in the tree now
  uint64_t tree_bytes = 0;   // bytes of nodes and edges now
  double elapsed_seconds = 0;
  double playouts_per_second = 0;
  double average_depth = 0;  // mean plies from the root to a playout's end
  int max_depth = 0;
  StopReason stop_reason = StopReason::kStopped;
};

}  // namespace volkhv::search

#endif  // VOLKHV_ENGINE_SEARCH_SEARCH_RESULT_H_
