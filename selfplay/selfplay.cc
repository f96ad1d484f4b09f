#include "selfplay/selfplay.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <system_error>
#include <thread>
#include <utility>

#include "engine/games/games.h"
#include "engine/records/vrec_io.h"
#include "engine/search/search.h"
#include "engine/util/random.h"
#include "engine/util/strings.h"
#include "engine/util/time.h"
#include "nn/weights_file.h"
#include "selfplay/selfplay_config.h"

namespace volkhv::selfplay {
namespace {

using Clock = std::chrono::steady_clock;

uint64_t Mix(uint64_t a, uint64_t b) {
  // SplitMix64 of a combination: distinct streams for distinct (a, b).
  return SplitMix64Mix(a + kSplitMix64Increment * (b + 1));
}

proto::GameRecord::Winner WinnerOf(int side) {
  return side == 0 ? proto::GameRecord::FIRST_PLAYER
                   : proto::GameRecord::SECOND_PLAYER;
}

// Who won a game the rules decided, with `side_to_move` to move in the
// final position.
proto::GameRecord::Winner RulesWinner(const GameResult& result,
                                      int side_to_move) {
  switch (result.outcome) {
    case Outcome::kWin:
      return WinnerOf(side_to_move);
    case Outcome::kLoss:
      return WinnerOf(1 - side_to_move);
    case Outcome::kDraw:
      return proto::GameRecord::DRAW;
    case Outcome::kOngoing:
      break;
  }
  return proto::GameRecord::UNDECIDED;
}

std::string SanitizedId(std::string_view text) {
  std::string out;
  for (char c : text) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
    out += ok ? c : '_';
  }
  return out;
}

}  // namespace

std::string DefaultWriterId() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0 || host[0] == '\0') {
    std::snprintf(host, sizeof(host), "host");
  }
  std::random_device device;
  const uint64_t nonce = (uint64_t{device()} << 32) ^ device();
  char nonce_text[17];
  std::snprintf(nonce_text, sizeof(nonce_text), "%08x",
                static_cast<unsigned>(nonce ^ (nonce >> 32)));
  return SanitizedId(Cat(host, "-", static_cast<long>(getpid()), "-",
                         CompactUtcTimestamp(), "-", nonce_text));
}

absl::StatusOr<proto::GameRecord> PlaySelfplayGame(
    const proto::SelfplayConfig& config, const GameState& start,
    nn::Evaluator* evaluator, const Prover* prover, const Heuristic* heuristic,
    const SelfplayOutput& output, uint64_t seed, const std::atomic<bool>* stop,
    SelfplayCounters* counters, GameSummary* summary) {
  absl::StatusOr<search::SearchParams> full_params =
      SelfplaySearchParams(config, /*full_search=*/true);
  if (!full_params.ok()) return full_params.status();
  absl::StatusOr<search::SearchParams> cheap_params =
      SelfplaySearchParams(config, /*full_search=*/false);
  if (!cheap_params.ok()) return cheap_params.status();
  // Gumbel searches force no playouts (SelfplaySearchParams).
  const bool prune =
      config.policy_target_pruning() && full_params->forced_playouts_k > 0;
  const bool resign_enabled = config.resign_consecutive_plies() > 0;

  Rng rng(Mix(seed, 1));
  search::Search search(*full_params, evaluator, prover, Mix(seed, 2));
  search.SetHeuristic(heuristic);
  std::unique_ptr<GameState> state = start.Clone();
  if (absl::Status s = search.SetPosition(*state); !s.ok()) return s;

  proto::GameRecord record;
  record.set_game(start.Info().name);
  if (!output.game_options.empty()) {
    record.set_game_options(output.game_options);
  }
  record.set_start_position(start.PositionText());
  record.set_net_generation(output.net_generation);
  record.set_engine(output.engine);
  record.set_created(UtcTimestamp());
  const bool resign_disabled =
      resign_enabled && rng.Uniform() < config.resign_playthrough_fraction();
  record.set_resign_disabled(resign_disabled);
  record.set_would_resign_ply(-1);

  GameSummary local_summary;
  int hopeless_streak[2] = {0, 0};
  for (;;) {
    const int ply = record.plies_size();
    const int side = state->SideToMove() & 1;
    const GameResult result = state->Result();
    if (result.IsOver()) {
      record.set_winner(RulesWinner(result, side));
      record.set_termination(TerminationCode(result.termination));
      break;
    }
    if (ply >= config.max_plies()) {
      record.set_winner(proto::GameRecord::DRAW);
      record.set_termination(TerminationCode(Termination::kMaxLength));
      break;
    }
    if (stop != nullptr && stop->load(std::memory_order_relaxed)) {
      return absl::CancelledError("self-play stopped");
    }
    const bool full = config.full_search_prob() >= 1 ||
                      rng.Uniform() < config.full_search_prob();
    search.SetParams(full ? *full_params : *cheap_params);
    if (!config.reuse_tree()) search.ClearTree();
    search::SearchLimits limits;
    limits.visits =
        static_cast<uint64_t>(full ? config.visits() : config.cheap_visits());
    limits.progress_interval_ms = 0;
    const search::SearchResult r = search.Run(limits, {}, stop);
    if (r.stop_reason == search::StopReason::kStopped) {
      return absl::CancelledError("self-play stopped");
    }
    if (r.moves.empty() || r.best_move.IsNull()) {
      return absl::InternalError(Cat("the search found no move at ply ",
                                     ply + 1, " of an ongoing ",
                                     start.Info().name, " game"));
    }
    if (counters != nullptr) {
      counters->searches.fetch_add(1, std::memory_order_relaxed);
      counters->evaluations.fetch_add(r.evaluations, std::memory_order_relaxed);
      counters->playouts.fetch_add(r.playouts, std::memory_order_relaxed);
    }

    // Resignation looks at the value of the move the search rates best
    // (the root's average also holds the noise's and forced playouts'
    // exploration of bad moves).
    if (resign_enabled) {
      const search::MoveInfo& best = r.moves.front();
      const double value = best.visits > 0 ? best.q : r.root_q;
      hopeless_streak[side] =
          value <= config.resign_threshold() ? hopeless_streak[side] + 1 : 0;
      if (hopeless_streak[side] >= config.resign_consecutive_plies() &&
          local_summary.resigning_side < 0) {
        local_summary.resigning_side = side;
        if (!resign_disabled) {
          record.set_winner(WinnerOf(1 - side));
          record.set_termination(TerminationCode(Termination::kResignation));
          break;
        }
        record.set_would_resign_ply(ply);
      }
    }

    proto::PlyRecord* p = record.add_plies();
    std::vector<std::pair<Move, uint32_t>> visits;
    if (full) {
      visits = prune ? search.PrunedRootVisits() : search.RootVisits();
      const std::vector<std::pair<Move, float>> improved =
          search.ImprovedRootPolicy();
      if (!improved.empty()) p->set_policy_target(proto::IMPROVED_POLICY);
      for (size_t i = 0; i < visits.size(); ++i) {
        const auto& [move, count] = visits[i];
        // Both lists are in legal-move order.
        const float probability = improved.empty() ? 0 : improved[i].second;
        if (count == 0 && probability <= 0) continue;
        proto::MoveVisits* mv = p->add_visits();
        mv->set_move(PackMove(move));
        mv->set_visits(count);
        if (!improved.empty()) mv->set_probability(probability);
      }
    }
    for (float x : r.root_wdl) p->add_root_wdl(x);
    p->set_best_move(PackMove(r.best_move));
    p->set_full_search(full);
    p->set_root_visits(static_cast<int32_t>(r.root_visits));

    const double temperature = ply < config.temperature_plies()
                                   ? config.temperature()
                                   : config.final_temperature();
    const Move move = full && prune ? search.SampleMoveFrom(visits, temperature)
                                    : search.SampleMove(temperature);
    p->set_move(PackMove(move));
    p->set_move_text(state->MoveText(move));
    state->Play(move);
    if (absl::Status s = search.Advance(move); !s.ok()) return s;
  }
  if (summary != nullptr) *summary = local_summary;
  return record;
}

double SelfplayStats::GamesPerHour() const {
  return wall_seconds > 0 ? games_finished * 3600.0 / wall_seconds : 0;
}

double SelfplayStats::EvaluationsPerSecond() const {
  return wall_seconds > 0 ? evaluations / wall_seconds : 0;
}

double SelfplayStats::AveragePlies() const {
  return games_finished > 0 ? static_cast<double>(plies) / games_finished : 0;
}

double SelfplayStats::AverageBatch() const {
  return batches > 0 ? static_cast<double>(network_positions) / batches : 0;
}

double SelfplayStats::NetworkShare() const {
  return has_network_stats && wall_seconds > 0 ? network_seconds / wall_seconds
                                               : 0;
}

double SelfplayStats::EtaSeconds() const {
  if (games_finished <= 0 || wall_seconds <= 0) return -1;
  return (games_total - games_finished) * wall_seconds / games_finished;
}

absl::StatusOr<SelfplayStats> RunSelfplay(const proto::SelfplayConfig& config,
                                          const Game& game,
                                          nn::Evaluator* evaluator,
                                          const SelfplayOutput& output,
                                          const SelfplayProgress& progress,
                                          const std::atomic<bool>* stop) {
  if (absl::Status s = ValidateSelfplayConfig(config); !s.ok()) return s;
  if (output.directory.empty()) {
    return absl::InvalidArgumentError("self-play: no output directory");
  }
  std::error_code error;
  std::filesystem::create_directories(output.directory, error);
  if (error || !std::filesystem::is_directory(output.directory)) {
    return absl::InvalidArgumentError(
        Cat(output.directory, ": cannot create the directory: ",
            error ? error.message() : "not a directory"));
  }
  const std::string writer_id = output.writer_id.empty()
                                    ? DefaultWriterId()
                                    : SanitizedId(output.writer_id);
  uint64_t base_seed = config.seed();
  if (base_seed == 0) {
    std::random_device device;
    base_seed = (uint64_t{device()} << 32) ^ device();
  }
  // The evaluator's counters at the start: this run reports its share.
  const std::optional<nn::EvaluatorStats> network_start = evaluator->Stats();
  const Clock::time_point start_time = Clock::now();
  const int total = config.games();
  const Prover* prover = GameProver(game);
  const Heuristic* heuristic = GameHeuristic(game);

  // Everything below `mu` is shared by the game threads.
  std::mutex mu;
  std::condition_variable changed;
  SelfplayStats stats;
  stats.games_total = total;
  std::vector<proto::GameRecord> pending;  // finished, not yet written
  int next_game = 0;
  int next_file = 0;
  int running = 0;
  absl::Status first_error;
  std::atomic<bool> halt{false};
  SelfplayCounters counters;

  const std::string prefix = SanitizedId(output.file_prefix);
  // Writes `games` as file number `seq`. Called without `mu` held.
  auto write_file = [&](std::vector<proto::GameRecord> games, int seq) {
    char seq_text[16];
    std::snprintf(seq_text, sizeof(seq_text), "%06d", seq);
    const std::string path =
        (std::filesystem::path(output.directory) /
         Cat(prefix, "-", writer_id, "-", seq_text, kRecordExtension))
            .string();
    const absl::Status status = WriteGameRecords(path, games);
    std::lock_guard<std::mutex> lock(mu);
    if (status.ok()) {
      stats.files.push_back(path);
    } else if (first_error.ok()) {
      first_error = status;
      halt = true;
    }
  };

  auto game_thread = [&] {
    for (;;) {
      int index;
      {
        std::lock_guard<std::mutex> lock(mu);
        if (halt || next_game >= total) break;
        index = next_game++;
        ++stats.games_in_progress;
      }
      std::unique_ptr<GameState> start = game.NewInitialState();
      GameSummary summary;
      absl::StatusOr<proto::GameRecord> record =
          PlaySelfplayGame(config, *start, evaluator, prover, heuristic, output,
                           Mix(base_seed, static_cast<uint64_t>(index)), &halt,
                           &counters, &summary);
      std::vector<proto::GameRecord> batch;
      int seq = -1;
      {
        std::lock_guard<std::mutex> lock(mu);
        --stats.games_in_progress;
        if (!record.ok()) {
          if (!absl::IsCancelled(record.status()) && first_error.ok()) {
            first_error = record.status();
            halt = true;
          }
          changed.notify_all();
          break;
        }
        ++stats.games_finished;
        stats.plies += record->plies_size();
        for (const proto::PlyRecord& p : record->plies()) {
          stats.full_search_plies += p.full_search();
        }
        switch (record->winner()) {
          case proto::GameRecord::FIRST_PLAYER:
            ++stats.first_wins;
            break;
          case proto::GameRecord::SECOND_PLAYER:
            ++stats.second_wins;
            break;
          default:
            ++stats.draws;
            break;
        }
        ++stats.terminations[static_cast<Termination>(record->termination())];
        if (record->resign_disabled()) {
          ++stats.playthrough_games;
          if (summary.resigning_side >= 0) {
            ++stats.would_resign_games;
            if (record->winner() != WinnerOf(1 - summary.resigning_side)) {
              ++stats.false_resigns;
            }
          }
        }
        pending.push_back(*std::move(record));
        if (static_cast<int>(pending.size()) >= config.games_per_file()) {
          batch.swap(pending);
          seq = next_file++;
        }
        changed.notify_all();
      }
      if (seq >= 0) write_file(std::move(batch), seq);
    }
    std::lock_guard<std::mutex> lock(mu);
    --running;
    changed.notify_all();
  };

  auto snapshot = [&] {
    SelfplayStats s;
    {
      std::lock_guard<std::mutex> lock(mu);
      s = stats;
    }
    s.searches = counters.searches.load();
    s.evaluations = counters.evaluations.load();
    s.playouts = counters.playouts.load();
    s.wall_seconds =
        std::chrono::duration<double>(Clock::now() - start_time).count();
    if (network_start.has_value()) {
      const std::optional<nn::EvaluatorStats> now = evaluator->Stats();
      s.has_network_stats = now.has_value();
      if (now.has_value()) {
        s.batches = now->batches - network_start->batches;
        s.network_positions = now->positions - network_start->positions;
        s.cache_hits = now->cache_hits - network_start->cache_hits;
        s.network_seconds =
            now->backend_seconds - network_start->backend_seconds;
      }
    }
    return s;
  };

  const int num_threads = std::min(config.parallel_games(), total);
  std::vector<std::thread> threads;
  running = num_threads;
  threads.reserve(num_threads);
  std::string start_error;
  for (int i = 0; i < num_threads; ++i) {
    try {
      threads.emplace_back(game_thread);
    } catch (const std::system_error& e) {
      // Fewer game threads play every game all the same.
      start_error = e.what();
      std::lock_guard<std::mutex> lock(mu);
      running -= num_threads - i;
      break;
    }
  }
  if (threads.empty() && num_threads > 0) {
    return absl::ResourceExhaustedError(
        Cat("cannot start a self-play thread: ", start_error));
  }

  Clock::time_point last_progress = Clock::now();
  {
    std::unique_lock<std::mutex> lock(mu);
    while (running > 0) {
      changed.wait_for(lock, std::chrono::milliseconds(100));
      if (stop != nullptr && stop->load(std::memory_order_relaxed) && !halt) {
        stats.stopped = true;
        halt = true;
      }
      if (progress && Clock::now() - last_progress >= std::chrono::seconds(1)) {
        last_progress = Clock::now();
        lock.unlock();
        progress(snapshot());
        lock.lock();
      }
    }
  }
  for (std::thread& t : threads) t.join();
  if (!pending.empty()) write_file(std::move(pending), next_file++);
  if (!first_error.ok()) return first_error;
  SelfplayStats final_stats = snapshot();
  if (progress) progress(final_stats);
  return final_stats;
}

}  // namespace volkhv::selfplay
