// Self-play game generation: many games at once, one thread each, all
// sharing one evaluator (a BatchingEvaluator merges their leaves into
// network batches), written as game record files (engine/records/vrec_io.h).
//
// Per move (proto/selfplay_config.proto): playout-cap randomisation (a full
// search with Dirichlet noise and forced playouts, recorded as a training
// target, or a cheap one), policy target pruning of the recorded visits, a
// temperature schedule for the move choice, resignation with a share of
// games played out to measure false resignations, and a maximum length
// (adjudicated draw). Results are the rules' verdict
// (GameState::Result()), or RESIGNATION / MAX_LENGTH.
//
// Files are written atomically and named
//   <prefix>-<writer id>-<sequence>.vrec,
// the writer id being <host>-<pid>-<UTC time>-<random>, so independent
// worker processes on any number of machines can write into one shared
// directory; readers only ever see complete files.
#ifndef VOLKHV_SELFPLAY_SELFPLAY_H_
#define VOLKHV_SELFPLAY_SELFPLAY_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/game/game.h"
#include "engine/game/heuristic.h"
#include "engine/game/prover.h"
#include "nn/evaluator.h"
#include "proto/game_record.pb.h"
#include "proto/selfplay_config.pb.h"

namespace volkhv::selfplay {

// Where and how games are written.
struct SelfplayOutput {
  std::string directory;  // created if missing
  std::string file_prefix = "selfplay";
  int net_generation = -1;  // recorded in every game (-1: no net)
  // The game's options as records store them ("prince_max_steps=3"; "" for
  // the standard rules).
  std::string game_options;
  std::string engine = "volkhv selfplay";  // GameRecord.engine
  // Unique among the writers of the directory; "" = <host>-<pid>-<UTC
  // time>-<random hex>. Only letters, digits, '.', '_' and '-' are kept.
  std::string writer_id;
};

// Running totals. Counters shared by the game threads.
struct SelfplayCounters {
  std::atomic<uint64_t> searches{0};
  std::atomic<uint64_t> evaluations{0};  // positions the searches evaluated
  std::atomic<uint64_t> playouts{0};
};

// What one call of PlaySelfplayGame found besides the record.
struct GameSummary {
  // The side (0 first, 1 second) that resigned or, with resignation
  // disabled, would have; -1: none.
  int resigning_side = -1;
};

// Plays one game from `start` with `evaluator` (and `prover`, the game's
// tactics for the search, and `heuristic`, its static evaluation for
// leaf_quiescence_weight; either may be null) and returns its record
// (game, options, start position, every ply, result, termination,
// generation, resignation fields, creation time). `seed` fixes every random
// choice (with a deterministic evaluator the game is reproducible).
// `counters` (may be null) is updated after every search. Cancelled when
// *stop is set before the game ends (the game is abandoned).
// InvalidArgument for an invalid config. Thread-safe (the evaluator is).
absl::StatusOr<proto::GameRecord> PlaySelfplayGame(
    const proto::SelfplayConfig& config, const GameState& start,
    nn::Evaluator* evaluator, const Prover* prover, const Heuristic* heuristic,
    const SelfplayOutput& output, uint64_t seed, const std::atomic<bool>* stop,
    SelfplayCounters* counters, GameSummary* summary);

// A snapshot of a run.
struct SelfplayStats {
  int games_total = 0;  // the run's target
  int games_finished = 0;
  int games_in_progress = 0;
  int64_t plies = 0;              // of the finished games
  int64_t full_search_plies = 0;  // training positions
  int first_wins = 0;
  int second_wins = 0;
  int draws = 0;
  std::map<Termination, int> terminations;  // finished games by ending
  // Games played out with resignation disabled; how many of them reached
  // the resignation condition; how many of those the would-be resigner did
  // not lose (false resignations).
  int playthrough_games = 0;
  int would_resign_games = 0;
  int false_resigns = 0;
  uint64_t searches = 0;
  uint64_t evaluations = 0;  // positions requested by the searches
  uint64_t playouts = 0;
  double wall_seconds = 0;
  // From the evaluator's Stats() (this run's share of its counters, e.g. a
  // BatchingEvaluator's); absent for evaluators that keep none (`random`).
  bool has_network_stats = false;
  int64_t batches = 0;
  int64_t network_positions = 0;  // sent to the network (cache misses)
  int64_t cache_hits = 0;
  double network_seconds = 0;  // inside the backend (wall time)
  // Files written so far (full paths, in writing order).
  std::vector<std::string> files;
  bool stopped = false;  // the stop flag ended the run early

  double GamesPerHour() const;
  double EvaluationsPerSecond() const;
  double AveragePlies() const;
  double AverageBatch() const;
  // Share of the wall time spent in the network (0 without network stats).
  double NetworkShare() const;
  // Seconds left at the current rate (-1 when unknown).
  double EtaSeconds() const;
};

// Called on RunSelfplay's thread about once a second, and once at the end.
using SelfplayProgress = std::function<void(const SelfplayStats&)>;

// Plays config.games() games from the game's initial position,
// config.parallel_games() at a time (searching with the game's prover,
// engine/games/games.h), writing finished games into
// output.directory config.games_per_file() per file. When *stop is set
// (`stop` may be null), games in progress are abandoned and the finished
// ones not yet written go into a last, smaller file. Errors: an invalid
// config, an unusable directory, a failed write (the run stops). The
// evaluator must be thread-safe and outlive the call.
absl::StatusOr<SelfplayStats> RunSelfplay(const proto::SelfplayConfig& config,
                                          const Game& game,
                                          nn::Evaluator* evaluator,
                                          const SelfplayOutput& output,
                                          const SelfplayProgress& progress,
                                          const std::atomic<bool>* stop);

// The default writer id: <host>-<pid>-<UTC time>-<random hex>.
std::string DefaultWriterId();

}  // namespace volkhv::selfplay

#endif  // VOLKHV_SELFPLAY_SELFPLAY_H_
