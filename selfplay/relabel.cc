#include "selfplay/relabel.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <filesystem>
#include <limits>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_format.h"
#include "engine/game/heuristic.h"
#include "engine/games/games.h"
#include "engine/records/vrec_io.h"
#include "engine/util/strings.h"

namespace volkhv::selfplay {

namespace fs = std::filesystem;

std::string RelabelOptions::Summary() const {
  return absl::StrFormat("alphabeta depth %d, scale %g, mix %g", depth, scale,
                         mix);
}

std::string RelabelOptions::PolicySummary() const {
  return absl::StrFormat("alphabeta depth %d, policy mix %g", depth,
                         policy_mix);
}

absl::Status RelabelOptions::Validate() const {
  if (depth < 1 || depth > 16) {
    return absl::InvalidArgumentError(
        Cat("depth: must be in [1, 16], got ", depth));
  }
  if (!(scale >= 1 && scale <= 1e5)) {
    return absl::InvalidArgumentError(
        Cat("scale: must be in [1, 100000], got ", scale));
  }
  if (!(mix >= 0 && mix <= 1)) {
    return absl::InvalidArgumentError(Cat("mix: must be in [0, 1], got ", mix));
  }
  if (!(policy_mix >= 0 && policy_mix < 1)) {
    return absl::InvalidArgumentError(
        Cat("policy_mix: must be in [0, 1), got ", policy_mix));
  }
  if (mix == 0 && policy_mix == 0) {
    return absl::InvalidArgumentError(
        "mix: with policy_mix 0 it must be above 0, or nothing changes");
  }
  if (search.hash_mb < 1 || search.hash_mb > 4096) {
    return absl::InvalidArgumentError(
        Cat("hash: must be in [1, 4096] MB, got ", search.hash_mb));
  }
  if (search.quiescence_plies < 0 || search.quiescence_plies > 64) {
    return absl::InvalidArgumentError(
        Cat("qdepth: must be in [0, 64], got ", search.quiescence_plies));
  }
  return absl::OkStatus();
}

std::array<float, 3> WdlFromScore(const search::AlphaBetaResult& result,
                                  double scale, float recorded_draw) {
  const int mate = result.MatePlies();
  const double q = mate > 0   ? 1.0
                   : mate < 0 ? -1.0
                              : std::tanh(result.score / scale);
  const double draw =
      std::clamp(static_cast<double>(recorded_draw), 0.0, 1.0 - std::abs(q));
  return {static_cast<float>((1 - draw + q) / 2), static_cast<float>(draw),
          static_cast<float>((1 - draw - q) / 2)};
}

void MixPolicyTarget(Move best, double policy_mix, proto::PlyRecord* ply) {
  if (ply->visits_size() == 0 || best.IsNull() || policy_mix <= 0) return;
  proto::MoveVisits* best_entry = nullptr;
  for (proto::MoveVisits& entry : *ply->mutable_visits()) {
    if (entry.move() == best.Packed()) best_entry = &entry;
  }
  if (best_entry == nullptr) {
    best_entry = ply->add_visits();
    best_entry->set_move(best.Packed());
    best_entry->set_visits(0);
    if (ply->policy_target() == proto::IMPROVED_POLICY) {
      best_entry->set_probability(0);
    }
  }
  if (ply->policy_target() == proto::IMPROVED_POLICY) {
    for (proto::MoveVisits& entry : *ply->mutable_visits()) {
      entry.set_probability(
          static_cast<float>((1 - policy_mix) * entry.probability() +
                             (&entry == best_entry ? policy_mix : 0.0)));
    }
    return;
  }
  uint64_t total = 0;
  for (const proto::MoveVisits& entry : ply->visits()) total += entry.visits();
  if (total == 0) return;
  // (v + x) / (total + x) = policy_mix * 1 + (1 - policy_mix) * v / total.
  const double added = std::round(total * policy_mix / (1 - policy_mix));
  best_entry->set_visits(static_cast<uint32_t>(std::min<double>(
      best_entry->visits() + added, std::numeric_limits<uint32_t>::max())));
}

struct Relabeller::PerGame {
  std::unique_ptr<Heuristic> heuristic;
  std::unique_ptr<search::AlphaBetaSearch> search;
};

Relabeller::Relabeller(const RelabelOptions& options) : options_(options) {}
Relabeller::~Relabeller() = default;

absl::StatusOr<Relabeller::PerGame*> Relabeller::SearchFor(
    const GameState& state) {
  const std::string& name = state.Info().name;
  auto it = games_.find(name);
  if (it != games_.end()) return it->second.get();
  absl::StatusOr<std::unique_ptr<Heuristic>> heuristic =
      MakeHeuristic(state.Info());
  if (!heuristic.ok() || *heuristic == nullptr) {
    return absl::InvalidArgumentError(
        Cat("game ", name, " has no static evaluation for alpha-beta"));
  }
  auto per_game = std::make_unique<PerGame>();
  per_game->heuristic = *std::move(heuristic);
  per_game->search = std::make_unique<search::AlphaBetaSearch>(
      per_game->heuristic.get(), options_.search);
  return games_.emplace(name, std::move(per_game)).first->second.get();
}

absl::Status Relabeller::Relabel(proto::GameRecord* game,
                                 RelabelCounts* counts) {
  absl::StatusOr<std::unique_ptr<GameState>> start = RecordStartState(*game);
  if (!start.ok()) return start.status();
  absl::StatusOr<PerGame*> per_game = SearchFor(**start);
  if (!per_game.ok()) return per_game.status();
  search::AlphaBetaSearch& search = *(*per_game)->search;
  search.Clear();

  RelabelCounts added;
  std::vector<std::array<float, 3>> wdl(game->plies_size());
  std::vector<Move> best(game->plies_size());
  const search::AlphaBetaLimits limits{.depth = options_.depth};
  const absl::Status replay =
      ReplayRecord(*game, [&](const GameState& state, int ply) {
        if (ply >= game->plies_size() || !game->plies(ply).full_search()) {
          return;
        }
        const proto::PlyRecord& record = game->plies(ply);
        const search::AlphaBetaResult result = search.Search(state, limits);
        best[ply] = result.best_move;
        const std::array<float, 3> searched = WdlFromScore(
            result, options_.scale,
            record.root_wdl_size() == 3 ? record.root_wdl(1) : 0.0f);
        for (int i = 0; i < 3; ++i) {
          const double before =
              record.root_wdl_size() == 3 ? record.root_wdl(i) : searched[i];
          wdl[ply][i] = static_cast<float>((1 - options_.mix) * before +
                                           options_.mix * searched[i]);
        }
        ++added.positions;
        added.proven += result.MatePlies() != 0;
        added.nodes += result.nodes;
      });
  if (!replay.ok()) return replay;
  for (int ply = 0; ply < game->plies_size(); ++ply) {
    proto::PlyRecord* record = game->mutable_plies(ply);
    if (!record->full_search()) continue;
    if (options_.mix > 0) {
      record->clear_root_wdl();
      for (float p : wdl[ply]) record->add_root_wdl(p);
    }
    MixPolicyTarget(best[ply], options_.policy_mix, record);
  }
  if (options_.mix > 0) game->set_value_relabel(options_.Summary());
  if (options_.policy_mix > 0) {
    game->set_policy_relabel(options_.PolicySummary());
  }
  ++added.games;
  counts->games += added.games;
  counts->positions += added.positions;
  counts->proven += added.proven;
  counts->nodes += added.nodes;
  return absl::OkStatus();
}

absl::StatusOr<RelabelCounts> RelabelRecords(
    const RelabelOptions& options, const std::string& in,
    const std::string& out, int threads,
    const std::function<void(const std::string& file,
                             const RelabelCounts& counts)>& progress) {
  if (absl::Status s = options.Validate(); !s.ok()) return s;
  if (threads < 1 || threads > 256) {
    return absl::InvalidArgumentError(
        Cat("threads: must be in [1, 256], got ", threads));
  }
  std::error_code error;
  std::vector<std::string> files;
  if (fs::is_directory(in, error)) {
    absl::StatusOr<std::vector<std::string>> listed = ListRecordFiles(in);
    if (!listed.ok()) return listed.status();
    files = *std::move(listed);
  } else if (fs::is_regular_file(in, error)) {
    files.push_back(in);
  } else {
    return absl::NotFoundError(
        Cat(in, ": not a record file or a directory of them"));
  }
  fs::create_directories(out, error);
  if (error) {
    return absl::InvalidArgumentError(
        Cat(out, ": cannot create the directory: ", error.message()));
  }
  const fs::path in_dir = fs::is_directory(in, error)
                              ? fs::path(in)
                              : fs::absolute(in, error).parent_path();
  if (fs::equivalent(in_dir, out, error)) {
    return absl::InvalidArgumentError(
        Cat(out, ": the output directory must differ from the input's"));
  }

  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mu;  // guards total, first_error and progress calls
  RelabelCounts total;
  absl::Status first_error;
  auto work = [&] {
    Relabeller relabeller(options);
    for (size_t i = next++; i < files.size() && !failed; i = next++) {
      const std::string name = fs::path(files[i]).filename().string();
      const std::string target = (fs::path(out) / name).string();
      std::error_code exists_error;
      if (fs::exists(target, exists_error)) continue;
      absl::StatusOr<std::vector<proto::GameRecord>> games =
          ReadGameRecords(files[i]);
      RelabelCounts counts;
      absl::Status status = games.status();
      for (size_t g = 0; status.ok() && g < games->size(); ++g) {
        status = relabeller.Relabel(&(*games)[g], &counts);
        if (!status.ok()) {
          status = absl::InvalidArgumentError(
              Cat(files[i], ": game ", g + 1, ": ", status.message()));
        }
      }
      if (status.ok()) status = WriteGameRecords(target, *games);
      std::lock_guard<std::mutex> lock(mu);
      if (!status.ok()) {
        if (first_error.ok()) first_error = status;
        failed = true;
        return;
      }
      total.games += counts.games;
      total.positions += counts.positions;
      total.proven += counts.proven;
      total.nodes += counts.nodes;
      if (progress) progress(name, counts);
    }
  };
  std::vector<std::thread> workers;
  const int used = std::min<int>(threads, std::max<size_t>(files.size(), 1));
  for (int t = 1; t < used; ++t) workers.emplace_back(work);
  work();
  for (std::thread& worker : workers) worker.join();
  if (!first_error.ok()) return first_error;
  return total;
}

}  // namespace volkhv::selfplay
