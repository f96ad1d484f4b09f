#include "training/dataset.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "engine/games/games.h"
#include "engine/records/vrec_io.h"
#include "engine/util/random.h"
#include "engine/util/strings.h"
#include "training/training_config.h"

namespace volkhv::training {
namespace {

// Invalid games are reported one by one up to this many, then counted.
constexpr int kMaxGameWarnings = 5;

// SplitMix64 with bounded draws (portable and exactly reproducible, unlike
// the standard distributions).
class SplitMix {
 public:
  explicit SplitMix(uint64_t state) : state_(state) {}
  uint64_t Next() { return SplitMix64Next(state_); }
  // Uniform in [0, n) (Lemire's multiply-shift; bias below 2^-40 for the
  // sizes used here).
  uint64_t Below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(Next()) * n) >>
                                 64);
  }

 private:
  uint64_t state_;
};

// FNV-1a, 64 bits.
class Fnv {
 public:
  void Add(std::string_view bytes) {
    for (unsigned char c : bytes) {
      hash_ ^= c;
      hash_ *= 0x100000001B3ull;
    }
    // A separator, so that ("ab", "c") and ("a", "bc") differ.
    hash_ ^= 0xFF;
    hash_ *= 0x100000001B3ull;
  }
  void Add(uint32_t value) {
    for (int i = 0; i < 4; ++i) {
      hash_ ^= (value >> (8 * i)) & 0xFF;
      hash_ *= 0x100000001B3ull;
    }
  }
  uint64_t hash() const { return hash_; }

 private:
  uint64_t hash_ = 0xCBF29CE484222325ull;
};

absl::StatusOr<std::unique_ptr<GameState>> StartState(
    const Game& game, const proto::GameRecord& record) {
  if (record.start_position().empty()) return game.NewInitialState();
  return game.NewStateFromText(record.start_position());
}

// Checks the values of a record (CheckRecordValues), then replays it
// through the rules, checking every move played and every move of a
// training ply's visit distribution. Errors name the ply.
absl::Status CheckGame(const Game& game, const proto::GameRecord& record,
                       const Encoder& encoder) {
  if (absl::Status s = CheckRecordValues(record); !s.ok()) return s;
  absl::StatusOr<std::unique_ptr<GameState>> state = StartState(game, record);
  if (!state.ok()) return state.status();
  MoveList legal;
  for (int p = 0; p < record.plies_size(); ++p) {
    const proto::PlyRecord& ply = record.plies(p);
    (*state)->LegalMoves(&legal);
    if (IsTrainingPly(ply)) {
      for (const proto::MoveVisits& v : ply.visits()) {
        const Move move = UnpackMove(v.move());
        if (!legal.contains(move)) {
          return absl::DataLossError(Cat("ply ", p + 1,
                                         ": a move of the visit distribution (",
                                         v.move(), ") is not legal"));
        }
        const int index = encoder.PolicyIndex(**state, move);
        if (index < 0 || index >= encoder.PolicySize()) {
          return absl::InternalError(Cat("ply ", p + 1, ": move ",
                                         (*state)->MoveText(move),
                                         " has no policy index"));
        }
      }
    }
    const Move move = UnpackMove(ply.move());
    if (!legal.contains(move)) {
      return absl::DataLossError(
          Cat("ply ", p + 1, " (", ply.move_text(), ") is not legal"));
    }
    (*state)->Play(move);
  }
  return absl::OkStatus();
}

int TrainingPlies(const proto::GameRecord& record) {
  int n = 0;
  for (const proto::PlyRecord& ply : record.plies()) n += IsTrainingPly(ply);
  return n;
}

}  // namespace

absl::Status CheckRecordValues(const proto::GameRecord& record) {
  if (record.plies_size() > kMaxRecordPlies) {
    return absl::DataLossError(Cat("plies: ", record.plies_size(),
                                   " plies, more than ", kMaxRecordPlies));
  }
  for (int p = 0; p < record.plies_size(); ++p) {
    const proto::PlyRecord& ply = record.plies(p);
    auto bad = [&](std::string_view field, auto&&... what) {
      return absl::DataLossError(
          Cat("ply ", p + 1, ": ", field, ": ", what...));
    };
    if (ply.root_wdl_size() != 0) {
      if (ply.root_wdl_size() != 3) {
        return bad("root_wdl", ply.root_wdl_size(), " values, not 3");
      }
      double sum = 0;
      for (int i = 0; i < 3; ++i) {
        const float x = ply.root_wdl(i);
        if (!(x >= 0 && x <= 1)) {
          return bad(Cat("root_wdl[", i, "]"), absl::StrCat(x),
                     " is not a probability");
        }
        sum += x;
      }
      if (std::abs(sum - 1) > kWdlSumTolerance) {
        return bad("root_wdl", "sums to ", absl::StrCat(sum), ", not 1");
      }
    }
    if (ply.root_visits() < 0 ||
        static_cast<uint32_t>(ply.root_visits()) > kMaxRecordVisits) {
      return bad("root_visits", ply.root_visits(), " is out of range");
    }
    for (int v = 0; v < ply.visits_size(); ++v) {
      if (ply.visits(v).visits() > kMaxRecordVisits) {
        return bad(Cat("visits[", v, "]"), ply.visits(v).visits(),
                   " is out of range");
      }
    }
    if (ply.policy_target() == proto::IMPROVED_POLICY) {
      double sum = 0;
      for (int v = 0; v < ply.visits_size(); ++v) {
        const float x = ply.visits(v).probability();
        if (!(x >= 0 && x <= 1)) {
          return bad(Cat("visits[", v, "].probability"), absl::StrCat(x),
                     " is not a probability");
        }
        sum += x;
      }
      if (ply.visits_size() > 0 && std::abs(sum - 1) > kWdlSumTolerance) {
        return bad("visits.probability", "sums to ", absl::StrCat(sum),
                   ", not 1");
      }
    }
  }
  return absl::OkStatus();
}

void Batch::Resize(int capacity, const InputShape& shape) {
  input_size = shape.Size();
  planes.resize(static_cast<size_t>(capacity) * input_size);
  policy_index.resize(static_cast<size_t>(capacity) * kTargetStride);
  policy_prob.resize(static_cast<size_t>(capacity) * kTargetStride);
  target_count.resize(capacity);
  best_index.resize(capacity);
  wdl.resize(static_cast<size_t>(capacity) * 3);
  moves_left.resize(capacity);
}

bool IsTrainingPly(const proto::PlyRecord& ply) {
  if (!ply.full_search()) return false;
  const bool improved = ply.policy_target() == proto::IMPROVED_POLICY;
  for (const proto::MoveVisits& v : ply.visits()) {
    if ((improved ? v.probability() : v.visits()) > 0) return true;
  }
  return false;
}

uint64_t GameHash(const proto::GameRecord& game) {
  Fnv fnv;
  fnv.Add(game.game());
  fnv.Add(game.game_options());
  fnv.Add(game.start_position());
  fnv.Add(game.created());
  for (const proto::PlyRecord& ply : game.plies()) fnv.Add(ply.move());
  return SplitMix64Mix(fnv.hash());
}

bool IsValidationGame(const proto::GameRecord& game, double fraction) {
  // The top 53 bits as a uniform number in [0, 1).
  const double u = static_cast<double>(GameHash(game) >> 11) * 0x1.0p-53;
  return u < fraction;
}

absl::StatusOr<std::unique_ptr<Dataset>> Dataset::Load(
    const DatasetOptions& options, const WarnFunction& warn) {
  std::unique_ptr<Dataset> d(new Dataset);
  DatasetStats& stats = d->stats_;

  absl::StatusOr<std::unique_ptr<Game>> net_game = MakeGame(options.game);
  if (!net_game.ok()) return net_game.status();
  absl::StatusOr<std::unique_ptr<Encoder>> encoder =
      MakeEncoder((*net_game)->Info(), options.encoder_options);
  if (!encoder.ok()) return encoder.status();
  d->encoder_ = *std::move(encoder);
  absl::StatusOr<std::unique_ptr<Symmetries>> symmetries =
      Symmetries::ForGame((*net_game)->Info(), *d->encoder_);
  if (!symmetries.ok()) return symmetries.status();
  d->symmetries_ = *std::move(symmetries);

  // Read the files, in name order.
  std::vector<std::string> paths;
  if (options.record_files.empty()) {
    absl::StatusOr<std::vector<std::string>> listed =
        ListRecordFiles(options.records_dir);
    if (!listed.ok()) return listed.status();
    paths = *std::move(listed);
  } else {
    for (const std::string& name : options.record_files) {
      paths.push_back(Cat(options.records_dir, "/", name));
    }
  }
  std::vector<proto::GameRecord> all;
  std::vector<std::pair<int, int>> origin_of;  // [all]: file, game in file
  for (const std::string& path : paths) {
    absl::StatusOr<std::vector<proto::GameRecord>> games =
        ReadGameRecords(path);
    if (!games.ok() && !options.record_files.empty() &&
        absl::IsNotFound(games.status())) {
      // Removed since the checkpoint (a damaged file, say): the call goes
      // on without it, no longer an exact resume.
      warn(Cat("warning: ", games.status().message(),
               " (a record file of the checkpoint's call, now gone; "
               "continuing without it)"));
      ++stats.files_skipped;
      continue;
    }
    if (!games.ok()) {
      if (!options.record_files.empty()) {
        return absl::Status(games.status().code(),
                            Cat(games.status().message(),
                                " (a record file of the checkpoint's call)"));
      }
      ++stats.files_skipped;
      warn(Cat("warning: skipping ", games.status().message()));
      continue;
    }
    ++stats.files_read;
    d->files_.push_back(path.substr(path.find_last_of('/') + 1));
    int in_file = 0;
    for (proto::GameRecord& g : *games) {
      all.push_back(std::move(g));
      origin_of.emplace_back(static_cast<int>(d->files_.size()) - 1, in_file++);
    }
  }
  stats.games_read = static_cast<int64_t>(all.size());

  // Eligible games and N.
  std::vector<int> plies_of(all.size(), 0);
  for (size_t i = 0; i < all.size(); ++i) {
    const proto::GameRecord& g = all[i];
    if (g.game() != options.game) {
      ++stats.games_other;
      continue;
    }
    if (g.winner() == proto::GameRecord::UNDECIDED) {
      ++stats.games_undecided;
      continue;
    }
    plies_of[i] = TrainingPlies(g);
    stats.total_positions += plies_of[i];
  }
  if (stats.games_other > 0) {
    warn(Cat("warning: skipping ", stats.games_other,
             " games of other games than ", options.game));
  }
  if (stats.games_undecided > 0) {
    warn(Cat("warning: skipping ", stats.games_undecided,
             " games without a result"));
  }
  const int64_t window =
      ReplayWindowSize(options.config, stats.total_positions);

  // The newest `window` positions of valid games, newest game first.
  std::map<std::string, const Game*> variants;
  struct Selected {
    size_t game;
    int first_target;  // the index among the game's training plies
  };
  std::vector<Selected> selected;
  int64_t taken = 0;
  for (size_t i = all.size(); i-- > 0 && taken < window;) {
    if (plies_of[i] == 0) continue;
    const proto::GameRecord& g = all[i];
    const std::string key = Cat(g.game(), "|", g.game_options());
    auto it = variants.find(key);
    if (it == variants.end()) {
      absl::StatusOr<GameOptions> game_options =
          ParseRecordGameOptions(g.game_options());
      absl::StatusOr<std::unique_ptr<Game>> game =
          game_options.ok()
              ? MakeGame(g.game(), *game_options)
              : absl::StatusOr<std::unique_ptr<Game>>(game_options.status());
      const Game* variant = nullptr;
      if (game.ok()) {
        d->game_variants_.push_back(*std::move(game));
        variant = d->game_variants_.back().get();
      } else if (stats.games_invalid < kMaxGameWarnings) {
        warn(Cat("warning: skipping games with game options '",
                 g.game_options(), "': ", game.status().message()));
      }
      it = variants.emplace(key, variant).first;
    }
    absl::Status valid = it->second != nullptr
                             ? CheckGame(*it->second, g, *d->encoder_)
                             : absl::InvalidArgumentError("bad game options");
    if (!valid.ok()) {
      if (stats.games_invalid < kMaxGameWarnings && it->second != nullptr) {
        warn(Cat("warning: skipping an invalid game: ", options.records_dir,
                 "/", d->files_[origin_of[i].first], " game ",
                 origin_of[i].second + 1, " (", g.game(), ", created ",
                 g.created(), "): ", valid.message()));
      }
      ++stats.games_invalid;
      continue;
    }
    const int take =
        static_cast<int>(std::min<int64_t>(plies_of[i], window - taken));
    selected.push_back({i, plies_of[i] - take});
    taken += take;
    d->game_of_.push_back(it->second);
  }
  if (stats.games_invalid > kMaxGameWarnings) {
    warn(
        Cat("warning: skipped ", stats.games_invalid, " invalid games in all"));
  }

  // Oldest first from here on.
  std::reverse(selected.begin(), selected.end());
  std::reverse(d->game_of_.begin(), d->game_of_.end());
  const double fraction = options.config.validation_fraction();
  for (const Selected& s : selected) {
    const uint32_t index = static_cast<uint32_t>(d->games_.size());
    d->games_.push_back(std::move(all[s.game]));
    d->origin_.push_back(origin_of[s.game]);
    const proto::GameRecord& g = d->games_.back();
    std::vector<PositionRef>& out =
        IsValidationGame(g, fraction) ? d->validation_ : d->train_;
    int target = 0;
    for (int p = 0; p < g.plies_size(); ++p) {
      if (!IsTrainingPly(g.plies(p))) continue;
      if (target++ >= s.first_target) {
        out.push_back({index, static_cast<uint32_t>(p)});
      }
    }
  }
  if (d->train_.empty() && !d->validation_.empty()) {
    // A small window can fall wholly into the validation split (four games
    // at a fraction of 0.25 do one time in 256); the split is a function of
    // the games, so every restart would find the same empty training set.
    warn(Cat("warning: all ", d->games_.size(),
             " games of the window fell into the validation split; training "
             "on them and validating on none"));
    d->train_ = std::move(d->validation_);
    d->validation_.clear();
  }
  stats.window_positions = taken;
  stats.window_games = static_cast<int64_t>(d->games_.size());
  stats.train_positions = static_cast<int64_t>(d->train_.size());
  stats.validation_positions = static_cast<int64_t>(d->validation_.size());
  return d;
}

std::vector<Sample> Dataset::SampleBatch(uint64_t seed, int64_t step,
                                         int batch_size, bool augment) const {
  std::vector<Sample> samples(batch_size);
  if (train_.empty()) return {};
  SplitMix rng(
      SplitMix64Mix(SplitMix64Mix(seed) ^ static_cast<uint64_t>(step)));
  const int symmetries = augment ? symmetries_->count() : 1;
  for (Sample& s : samples) {
    s.ref = train_[rng.Below(train_.size())];
    s.symmetry = static_cast<int>(rng.Below(symmetries));
  }
  return samples;
}

std::string Dataset::Origin(PositionRef ref) const {
  const auto [file, game] = origin_[ref.game];
  return Cat(files_[file], " game ", game + 1, " ply ", ref.ply + 1);
}

std::vector<Sample> Dataset::ValidationSample(uint64_t seed,
                                              int max_positions) const {
  std::vector<size_t> chosen(validation_.size());
  for (size_t i = 0; i < chosen.size(); ++i) chosen[i] = i;
  if (chosen.size() > static_cast<size_t>(max_positions)) {
    // A partial Fisher-Yates shuffle picks max_positions of them.
    SplitMix rng(SplitMix64Mix(SplitMix64Mix(seed) ^ 0x76616C6964617465ull));
    for (int i = 0; i < max_positions; ++i) {
      std::swap(chosen[i], chosen[i + rng.Below(chosen.size() - i)]);
    }
    chosen.resize(max_positions);
    std::sort(chosen.begin(), chosen.end());
  }
  std::vector<Sample> samples;
  samples.reserve(chosen.size());
  for (size_t i : chosen) samples.push_back({validation_[i], 0});
  return samples;
}

absl::StatusOr<std::unique_ptr<GameState>> Dataset::StateAt(
    PositionRef ref) const {
  const proto::GameRecord& record = games_[ref.game];
  absl::StatusOr<std::unique_ptr<GameState>> state =
      StartState(*game_of_[ref.game], record);
  if (!state.ok()) return state.status();
  // Every move was checked at load.
  for (uint32_t p = 0; p < ref.ply; ++p) {
    (*state)->Play(UnpackMove(record.plies(p).move()));
  }
  return state;
}

void Dataset::FutureValue(const proto::GameRecord& record, uint32_t ply,
                          int horizon, const GameState& state,
                          const float result[3], float out[3]) {
  std::copy(result, result + 3, out);
  uint32_t later = ply + horizon;
  while (later < static_cast<uint32_t>(record.plies_size()) &&
         record.plies(later).root_wdl_size() != 3) {
    ++later;
  }
  if (later >= static_cast<uint32_t>(record.plies_size())) return;
  // Whose value the later root WDL is: replay to it.
  std::unique_ptr<GameState> future = state.Clone();
  for (uint32_t p = ply; p < later; ++p) {
    future->Play(UnpackMove(record.plies(p).move()));
  }
  const bool same_side = future->SideToMove() == state.SideToMove();
  const proto::PlyRecord& at = record.plies(later);
  out[0] = at.root_wdl(same_side ? 0 : 2);
  out[1] = at.root_wdl(1);
  out[2] = at.root_wdl(same_side ? 2 : 0);
}

absl::Status Dataset::BuildOne(const Sample& sample, int row,
                               const ValueTarget& value, Batch* batch,
                               std::vector<float>* scratch) const {
  absl::StatusOr<std::unique_ptr<GameState>> state = StateAt(sample.ref);
  if (!state.ok()) return state.status();
  const GameState& s = **state;

  float* planes =
      batch->planes.data() + static_cast<size_t>(row) * batch->input_size;
  if (sample.symmetry == 0) {
    encoder_->Encode(s, planes);
  } else {
    scratch->resize(batch->input_size);
    encoder_->Encode(s, scratch->data());
    symmetries_->TransformPlanes(sample.symmetry, scratch->data(), planes);
  }

  // The policy target (visit counts or the improved policy) by policy
  // index, shared indices added up.
  const proto::GameRecord& record = games_[sample.ref.game];
  const proto::PlyRecord& ply = record.plies(sample.ref.ply);
  const bool improved = ply.policy_target() == proto::IMPROVED_POLICY;
  std::vector<std::pair<int64_t, double>> targets;
  targets.reserve(ply.visits_size());
  double total = 0;
  for (const proto::MoveVisits& v : ply.visits()) {
    const double weight = improved ? v.probability() : v.visits();
    if (weight <= 0) continue;
    const int index = symmetries_->MapPolicyIndex(
        sample.symmetry, encoder_->PolicyIndex(s, UnpackMove(v.move())));
    if (index < 0) {
      return absl::InternalError("a symmetry maps a move off the board");
    }
    targets.emplace_back(index, weight);
    total += weight;
  }
  std::sort(targets.begin(), targets.end());
  int64_t* index_out =
      batch->policy_index.data() + static_cast<size_t>(row) * kTargetStride;
  float* prob_out =
      batch->policy_prob.data() + static_cast<size_t>(row) * kTargetStride;
  int count = 0;
  double best = -1;
  for (size_t i = 0; i < targets.size();) {
    const int64_t index = targets[i].first;
    double visits = 0;
    for (; i < targets.size() && targets[i].first == index; ++i) {
      visits += targets[i].second;
    }
    index_out[count] = index;
    prob_out[count] = static_cast<float>(visits / total);
    ++count;
    if (visits > best) {
      best = visits;
      batch->best_index[row] = index;
    }
  }
  batch->target_count[row] = count;

  batch->moves_left[row] = static_cast<float>(record.plies_size() -
                                              static_cast<int>(sample.ref.ply));

  // The result from the side to move's view.
  float* wdl = batch->wdl.data() + static_cast<size_t>(row) * 3;
  wdl[0] = wdl[1] = wdl[2] = 0;
  const proto::GameRecord::Winner winner = record.winner();
  if (winner == proto::GameRecord::DRAW) {
    wdl[1] = 1;
  } else {
    const int winning_side = winner == proto::GameRecord::FIRST_PLAYER ? 0 : 1;
    const int plies_to_end =
        record.plies_size() - static_cast<int>(sample.ref.ply);
    const float decided =
        value.result_discount >= 1
            ? 1.0f
            : static_cast<float>(std::pow(value.result_discount, plies_to_end));
    wdl[s.SideToMove() == winning_side ? 0 : 2] = decided;
    wdl[1] = 1 - decided;
  }
  const float result[3] = {wdl[0], wdl[1], wdl[2]};
  if (value.search_value_weight > 0 && ply.root_wdl_size() == 3) {
    const double w = value.search_value_weight;
    for (int i = 0; i < 3; ++i) {
      wdl[i] = static_cast<float>((1 - w) * wdl[i] + w * ply.root_wdl(i));
    }
  }
  if (value.td_value_weight > 0) {
    float future[3];
    FutureValue(record, sample.ref.ply, value.td_horizon, s, result, future);
    const double t = value.td_value_weight;
    for (int i = 0; i < 3; ++i) {
      wdl[i] = static_cast<float>(wdl[i] - t * result[i] + t * future[i]);
    }
  }
  return absl::OkStatus();
}

absl::Status Dataset::BuildBatch(const std::vector<Sample>& samples,
                                 const ValueTarget& value, Batch* batch) const {
  const int n = static_cast<int>(samples.size());
  if (static_cast<int>(batch->target_count.size()) < n ||
      batch->input_size != encoder_->Shape().Size()) {
    batch->Resize(n, encoder_->Shape());
  }
  batch->size = n;
  std::vector<float> scratch;
  for (int row = 0; row < n; ++row) {
    if (absl::Status s = BuildOne(samples[row], row, value, batch, &scratch);
        !s.ok()) {
      return s;
    }
  }
  int width = 1;
  for (int row = 0; row < n; ++row) {
    width = std::max(width, batch->target_count[row]);
  }
  for (int row = 0; row < n; ++row) {
    const size_t base = static_cast<size_t>(row) * kTargetStride;
    for (int i = batch->target_count[row]; i < width; ++i) {
      batch->policy_index[base + i] = 0;
      batch->policy_prob[base + i] = 0;
    }
  }
  batch->target_width = width;
  return absl::OkStatus();
}

}  // namespace volkhv::training
