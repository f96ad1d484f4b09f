#include "training/loop.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "engine/games/games.h"
#include "engine/records/vrec_io.h"
#include "engine/util/files.h"
#include "engine/util/strings.h"
#include "engine/util/time.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "nn/evaluator_factory.h"
#include "nn/text_proto.h"
#include "nn/torch_weights.h"
#include "nn/weights_file.h"
#include "selfplay/match.h"
#include "selfplay/selfplay.h"
#include "selfplay/selfplay_config.h"
#include "training/external_selfplay.h"
#include "training/loop_report.h"
#include "training/run_lock.h"
#include "training/trainer.h"
#include "training/training_config.h"

namespace volkhv::training {
namespace {

namespace fs = std::filesystem;

std::string GenName(int generation) {
  return absl::StrFormat("gen-%04d", generation);
}

// The player of a net in the loop's evaluation matches: MCTS with the net
// alone, without the alpha-beta quiescence at the leaves that play uses by
// default (leaf_quiescence_weight), so that the matches measure the nets.
std::string NetPlayerSpec(const std::string& net, int visits,
                          const std::string& name) {
  return Cat("mcts:net=", net, ",visits=", visits,
             ",leaf_quiescence_weight=0,name=", name);
}

// The paths of a run directory (see loop.h).
struct RunPaths {
  std::string root;
  std::string Config() const { return root + "/config.textproto"; }
  std::string Net(int g) const {
    return Cat(root, "/nets/", GenName(g), ".net");
  }
  std::string Games() const { return root + "/games"; }
  std::string SelfplayStats(int g) const {
    return Cat(root, "/selfplay/", GenName(g), ".textproto");
  }
  std::string Checkpoint() const { return root + "/train/checkpoint"; }
  std::string TrainLog() const { return root + "/train/log.csv"; }
  std::string TrainSummary(int g) const {
    return Cat(root, "/train/", GenName(g), ".textproto");
  }
  std::string EvalGames(int g) const {
    return Cat(root, "/eval/", GenName(g), ".pgn");
  }
  std::string Generation(int g) const {
    return Cat(root, "/generations/", GenName(g), ".textproto");
  }
  std::string Spent(int g) const {
    return Cat(root, "/generations/", GenName(g), ".spent.textproto");
  }
  std::string FinalGames() const { return root + "/eval/final.pgn"; }
};

absl::Status WriteTextProto(const std::string& path,
                            const google::protobuf::Message& message) {
  std::string text;
  if (!google::protobuf::TextFormat::PrintToString(message, &text)) {
    return absl::InternalError(Cat(path, ": cannot print the message"));
  }
  return WriteFileAtomically(path, text);
}

template <typename Message>
absl::StatusOr<Message> ReadTextProto(const std::string& path) {
  absl::StatusOr<std::string> text = nn::ReadTextFile(path);
  if (!text.ok()) return text.status();
  Message message;
  if (absl::Status s = nn::MergeTextProto(*text, path, &message); !s.ok()) {
    return s;
  }
  return message;
}

std::string Variant(const proto::LoopConfig& config) {
  return GameOptionsText(LoopGameOptions(config));
}

absl::StatusOr<std::unique_ptr<Game>> LoopGame(
    const proto::LoopConfig& config) {
  return MakeGame(config.game(), LoopGameOptions(config));
}

absl::Status IntInRange(std::string_view name, int64_t value, int64_t min,
                        int64_t max) {
  if (value >= min && value <= max) return absl::OkStatus();
  return absl::InvalidArgumentError(
      Cat(name, ": must be in [", min, ", ", max, "], got ", value));
}

absl::Status ExternalSelfplayValid(const proto::ExternalSelfplayConfig& e) {
  if (!(e.timeout_seconds() >= 1 && e.timeout_seconds() <= 1e7)) {
    return absl::InvalidArgumentError(
        Cat("external_selfplay.timeout_seconds: must be in [1, 1e7], got ",
            absl::StrCat(e.timeout_seconds())));
  }
  if (!(e.poll_seconds() >= 0.01 && e.poll_seconds() <= 3600)) {
    return absl::InvalidArgumentError(
        Cat("external_selfplay.poll_seconds: must be in [0.01, 3600], got ",
            absl::StrCat(e.poll_seconds())));
  }
  return absl::OkStatus();
}

// "cpu", "cuda" or "cuda:N".
bool ValidDevice(std::string_view device) {
  if (device == "cpu" || device == "cuda") return true;
  if (!device.starts_with("cuda:") || device.size() == 5 || device.size() > 8) {
    return false;
  }
  for (const char c : device.substr(5)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since)
      .count();
}

bool Stopped(const LoopOptions& options) {
  return options.stop != nullptr && options.stop->load();
}

// The time a generation has taken: what earlier loop processes spent on it
// (RunPaths::Spent) plus this process's since the clock started.
class GenerationClock {
 public:
  explicit GenerationClock(const proto::GenerationSpent& before)
      : before_(before),
        start_(std::chrono::steady_clock::now()),
        cpu_start_(ProcessCpuSeconds()) {}

  proto::GenerationSpent Now() const {
    proto::GenerationSpent spent;
    spent.set_wall_seconds(before_.wall_seconds() + Seconds(start_));
    spent.set_cpu_seconds(before_.cpu_seconds() + ProcessCpuSeconds() -
                          cpu_start_);
    return spent;
  }

 private:
  const proto::GenerationSpent before_;
  const std::chrono::steady_clock::time_point start_;
  const double cpu_start_;
};

class Loop {
 public:
  Loop(const LoopOptions& options, proto::LoopConfig config,
       std::unique_ptr<Game> game)
      : options_(options),
        config_(std::move(config)),
        game_(std::move(game)),
        paths_{options.run_dir},
        evaluators_(nn::CachingEvaluatorFactory(
            options.evaluators ? options.evaluators
                               : nn::MakeEvaluatorFactory(config_.evaluator()),
            /*keep=*/3)) {}

  absl::Status Run();

 private:
  void Log(const std::string& line) const {
    if (options_.log) options_.log(line);
  }
  absl::Status EnsureNetZero();
  // Generation 0 from options_.start_net (LoopOptions says how).
  absl::Status StartFromNet();
  // Copies options_.start_games into the run's games (LoopOptions says how).
  absl::Status CopyStartGames();
  // The net whose games generation `g + 1` learns from.
  std::string SelfplayNet(int g,
                          const std::vector<proto::GenerationRecord>& done);
  absl::Status SelfPlay(int g, const std::string& net);
  // external_selfplay: the workers' games instead of SelfPlay's.
  absl::Status SelfPlayByWorkers(int g, const std::string& net);
  absl::StatusOr<proto::SelfplayRunStats> CountGames(int g);
  absl::Status Train(int g);
  // Generation g's net against `spec`; the PGN goes to `pgn_path` unless
  // it is empty.
  absl::StatusOr<proto::EvaluationStats> Evaluate(
      int g, const std::string& opponent, const std::string& spec, int games,
      const std::string& pgn_path, uint64_t seed);
  // Starts the clock of generation g's record, with what earlier processes
  // spent on it; SaveSpent keeps the clock's time for the next process.
  absl::StatusOr<GenerationClock> StartClock(int g) const;
  absl::Status SaveSpent(int g, const GenerationClock& clock) const;
  absl::Status Finish(int g, const std::string& selfplay_net,
                      std::vector<proto::GenerationRecord>* done,
                      const GenerationClock& clock);
  // EvaluationConfig.final_games: played once, when the run is complete.
  absl::Status FinalEvaluation(int last);

  const LoopOptions& options_;
  const proto::LoopConfig config_;
  const std::unique_ptr<Game> game_;
  const RunPaths paths_;
  // options_.evaluators (or the config's), each net loaded once.
  const nn::EvaluatorFactory evaluators_;
};

// Whether two nets have the same tensors (names, shapes and values).
bool SameWeights(const nn::NetworkWeights& a, const nn::NetworkWeights& b) {
  if (a.tensors.size() != b.tensors.size()) return false;
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    const nn::TensorData& x = a.tensors[i];
    const nn::TensorData& y = b.tensors[i];
    if (x.name != y.name || x.shape != y.shape || x.values != y.values) {
      return false;
    }
  }
  return true;
}

absl::Status Loop::EnsureNetZero() {
  if (!options_.start_net.empty()) return StartFromNet();
  if (fs::exists(paths_.Net(0))) return absl::OkStatus();
  const uint64_t seed = config_.network().seed();
  absl::StatusOr<proto::NetworkFile> header = nn::NewNetworkHeader(
      game_->Info(), Variant(config_), config_.network(), seed, "volkhv loop",
      "generation 0: random initialisation");
  if (!header.ok()) return header.status();
  absl::StatusOr<nn::NetworkWeights> weights =
      nn::RandomNetworkWeights(*header, seed);
  if (!weights.ok()) return weights.status();
  Log(Cat("generation 0: a random ",
          nn::ArchitectureSummary(header->architecture()), " net"));
  return nn::WriteNetworkWeights(*weights, paths_.Net(0));
}

absl::Status Loop::StartFromNet() {
  absl::StatusOr<nn::NetworkWeights> start =
      nn::ReadNetworkWeights(options_.start_net);
  if (!start.ok()) return start.status();
  absl::StatusOr<std::unique_ptr<Encoder>> encoder =
      MakeEncoder(game_->Info(), nn::EncoderOptionsOf(*start));
  if (!encoder.ok()) return encoder.status();
  if (absl::Status fits =
          nn::CheckNetworkFits(*start, game_->Info().name, **encoder);
      !fits.ok()) {
    return absl::InvalidArgumentError(
        Cat(options_.start_net, ": ", fits.message()));
  }
  if (fs::exists(paths_.Net(0))) {
    absl::StatusOr<nn::NetworkWeights> zero =
        nn::ReadNetworkWeights(paths_.Net(0));
    if (!zero.ok()) return zero.status();
    if (!SameWeights(*start, *zero)) {
      return absl::FailedPreconditionError(
          Cat(options_.run_dir, " was started from another net than ",
              options_.start_net, " (", paths_.Net(0),
              "); continue it without --net-in, or use a new --dir"));
    }
    return absl::OkStatus();
  }
  // Before generation 0's net: its file marks a started run, so a process
  // stopped while copying copies again.
  if (absl::Status copied = CopyStartGames(); !copied.ok()) return copied;
  const proto::Provenance& from = start->header.provenance();
  Log(Cat("generation 0: ", options_.start_net, ", a ",
          nn::ArchitectureSummary(start->architecture()), " net (generation ",
          from.generation(), " of its own run)"));
  start->header.mutable_provenance()->set_note(
      Cat("generation 0: started from ", options_.start_net, " (generation ",
          from.generation(), "; ", from.note(), ")"));
  start->header.mutable_provenance()->set_generation(0);
  return nn::WriteNetworkWeights(*start, paths_.Net(0));
}

absl::Status Loop::CopyStartGames() {
  if (options_.start_games.empty()) return absl::OkStatus();
  absl::StatusOr<std::vector<std::string>> files =
      ListRecordFiles(options_.start_games);
  if (!files.ok()) return files.status();
  if (files->empty()) {
    return absl::InvalidArgumentError(
        Cat(options_.start_games, ": no game records (*", kRecordExtension,
            ") to start the replay window with"));
  }
  int64_t games = 0;
  for (const std::string& path : *files) {
    absl::StatusOr<std::vector<proto::GameRecord>> records =
        ReadGameRecords(path);
    if (!records.ok()) return records.status();
    for (const proto::GameRecord& record : *records) {
      if (record.game() == config_.game()) ++games;
    }
  }
  if (games == 0) {
    return absl::InvalidArgumentError(
        Cat(options_.start_games, ": no games of ", config_.game(), " in ",
            files->size(), " record files"));
  }
  std::error_code error;
  fs::create_directories(paths_.Games(), error);
  for (const std::string& path : *files) {
    const std::string to =
        Cat(paths_.Games(), "/earlier-", fs::path(path).filename().string());
    fs::copy_file(path, to, fs::copy_options::overwrite_existing, error);
    if (error) {
      return absl::InternalError(
          Cat("cannot copy ", path, " to ", to, ": ", error.message()));
    }
  }
  Log(Cat("generation 0: the replay window starts with ", games, " games of ",
          options_.start_games, " (", files->size(),
          " files, copied as games/earlier-*)"));
  return absl::OkStatus();
}

std::string Loop::SelfplayNet(
    int g, const std::vector<proto::GenerationRecord>& done) {
  if (!config_.gating().enabled()) return paths_.Net(g);
  // The newest accepted net up to g (generation 0 is always accepted).
  for (int k = g; k >= 1; --k) {
    if (k - 1 < static_cast<int>(done.size()) && done[k - 1].accepted()) {
      return paths_.Net(k);
    }
  }
  return paths_.Net(0);
}

absl::StatusOr<proto::SelfplayRunStats> Loop::CountGames(int g) {
  absl::StatusOr<std::vector<std::string>> files =
      ListRecordFiles(paths_.Games());
  if (!files.ok()) return files.status();
  proto::SelfplayRunStats stats;
  const std::string prefix = GenName(g) + "-";
  for (const std::string& path : *files) {
    if (!fs::path(path).filename().string().starts_with(prefix)) continue;
    absl::StatusOr<std::vector<proto::GameRecord>> games =
        ReadGameRecords(path);
    if (!games.ok()) {
      Log(Cat("warning: skipping ", games.status().message()));
      continue;
    }
    for (const proto::GameRecord& game : *games) {
      stats.set_games(stats.games() + 1);
      stats.set_plies(stats.plies() + game.plies_size());
      for (const proto::PlyRecord& ply : game.plies()) {
        stats.set_full_search_plies(stats.full_search_plies() +
                                    ply.full_search());
      }
      switch (game.winner()) {
        case proto::GameRecord::FIRST_PLAYER:
          stats.set_first_wins(stats.first_wins() + 1);
          break;
        case proto::GameRecord::SECOND_PLAYER:
          stats.set_second_wins(stats.second_wins() + 1);
          break;
        default:
          stats.set_draws(stats.draws() + 1);
      }
    }
  }
  return stats;
}

absl::Status Loop::SelfPlay(int g, const std::string& net) {
  absl::StatusOr<proto::SelfplayRunStats> have = CountGames(g);
  if (!have.ok()) return have.status();
  const int remaining = config_.selfplay().games() - have->games();
  if (remaining <= 0) return absl::OkStatus();
  Log(Cat(GenName(g), ": self-play, ", remaining, " games with ",
          fs::path(net).filename().string()));
  absl::StatusOr<std::shared_ptr<nn::Evaluator>> evaluator =
      evaluators_(net, *game_);
  if (!evaluator.ok()) return evaluator.status();
  proto::SelfplayConfig selfplay = config_.selfplay();
  selfplay.set_games(remaining);
  // A different stream of games for every generation and every restart.
  selfplay.set_seed(selfplay.seed() + 1000003ull * g + 7919ull * have->games());
  selfplay::SelfplayOutput output;
  output.directory = paths_.Games();
  output.file_prefix = GenName(g);
  output.net_generation = g;
  output.game_options = Variant(config_);
  output.engine = "volkhv loop";
  auto last_log = std::chrono::steady_clock::now();
  absl::StatusOr<selfplay::SelfplayStats> run = selfplay::RunSelfplay(
      selfplay, *game_, evaluator->get(), output,
      [&](const selfplay::SelfplayStats& s) {
        if (Seconds(last_log) < 15) return;
        last_log = std::chrono::steady_clock::now();
        Log(absl::StrFormat(
            "%s: self-play %d/%d games, %.0f games/h, %.0f plies/game, "
            "%.0f evals/s, batch %.1f, network %.0f%%",
            GenName(g), s.games_finished, s.games_total, s.GamesPerHour(),
            s.AveragePlies(), s.EvaluationsPerSecond(), s.AverageBatch(),
            100 * s.NetworkShare()));
      },
      options_.stop);
  if (!run.ok()) return run.status();
  // Timing of this run, added to the generation's earlier runs.
  proto::SelfplayRunStats timing;
  if (fs::exists(paths_.SelfplayStats(g))) {
    absl::StatusOr<proto::SelfplayRunStats> old =
        ReadTextProto<proto::SelfplayRunStats>(paths_.SelfplayStats(g));
    if (old.ok()) timing = *old;
  }
  timing.set_wall_seconds(timing.wall_seconds() + run->wall_seconds);
  timing.set_network_seconds(timing.network_seconds() + run->network_seconds);
  timing.set_evaluations(timing.evaluations() + run->evaluations);
  timing.set_batches(timing.batches() + run->batches);
  timing.set_network_positions(timing.network_positions() +
                               run->network_positions);
  timing.set_playthrough_games(timing.playthrough_games() +
                               run->playthrough_games);
  timing.set_would_resign_games(timing.would_resign_games() +
                                run->would_resign_games);
  timing.set_false_resigns(timing.false_resigns() + run->false_resigns);
  return WriteTextProto(paths_.SelfplayStats(g), timing);
}

absl::Status Loop::SelfPlayByWorkers(int g, const std::string& net) {
  WorkerGamesRequest request;
  request.run_dir = options_.run_dir;
  request.generation = g;
  request.net_file = fs::path(net).filename().string();
  request.games = config_.selfplay().games();
  request.config = config_.external_selfplay();
  request.log = options_.log;
  request.stop = options_.stop;
  absl::StatusOr<double> waited = CollectWorkerGames(request);
  if (!waited.ok()) return waited.status();
  // The time spent waiting, added to the generation's earlier waits.
  proto::SelfplayRunStats timing;
  if (fs::exists(paths_.SelfplayStats(g))) {
    absl::StatusOr<proto::SelfplayRunStats> old =
        ReadTextProto<proto::SelfplayRunStats>(paths_.SelfplayStats(g));
    if (old.ok()) timing = *old;
  }
  timing.set_wall_seconds(timing.wall_seconds() + *waited);
  return WriteTextProto(paths_.SelfplayStats(g), timing);
}

absl::Status Loop::Train(int g) {
  const std::string net_out = paths_.Net(g + 1);
  if (fs::exists(net_out)) return absl::OkStatus();
  Log(Cat(GenName(g + 1), ": training on the games of the window"));
  TrainerOptions t;
  t.config = config_.training();
  t.records_dir = paths_.Games();
  t.net_in = paths_.Net(g);
  t.checkpoint = paths_.Checkpoint();
  t.log_csv = paths_.TrainLog();
  t.generation = g + 1;
  t.threads = config_.evaluator().threads();
  t.device = config_.evaluator().device();
  t.warn = [this](const std::string& line) { Log(line); };
  t.progress = [this, g](const TrainProgress& p) {
    Log(absl::StrFormat(
        "%s: step %d (%d/%d), lr %.4g, policy %.3f value %.3f, %.0f "
        "samples/s, waiting for data %.0f%%",
        GenName(g + 1), p.step, p.call_done, p.call_total, p.learning_rate,
        p.train.policy, p.train.value, p.samples_per_second,
        100 * p.load_wait_share));
  };
  absl::StatusOr<std::unique_ptr<Trainer>> trainer = Trainer::Create(t);
  if (!trainer.ok()) return trainer.status();
  // Export under a temporary name, record the summary, then publish the
  // net: a net in nets/ always has its summary.
  const std::string candidate = net_out + ".candidate";
  absl::StatusOr<TrainSummary> summary = (*trainer)->Run(candidate);
  if (!summary.ok()) return summary.status();
  proto::TrainingRunStats stats;
  stats.set_step(summary->step);
  stats.set_positions_trained(summary->positions_trained);
  stats.set_window_positions(summary->data.window_positions);
  stats.set_policy_loss(summary->last_train.policy);
  stats.set_value_loss(summary->last_train.value);
  stats.set_has_validation(summary->has_validation);
  const Losses& accuracy =
      summary->has_validation ? summary->validation : summary->last_train;
  if (summary->has_validation) {
    stats.set_validation_policy_loss(summary->validation.policy);
    stats.set_validation_value_loss(summary->validation.value);
  }
  stats.set_policy_accuracy(accuracy.policy_accuracy);
  stats.set_value_accuracy(accuracy.value_accuracy);
  stats.set_samples_per_second(summary->samples_per_second);
  stats.set_load_wait_share(summary->load_wait_share);
  stats.set_train_seconds(summary->train_seconds);
  if (absl::Status s = WriteTextProto(paths_.TrainSummary(g + 1), stats);
      !s.ok()) {
    return s;
  }
  std::error_code error;
  fs::rename(candidate, net_out, error);
  if (error) {
    return absl::InternalError(
        Cat(net_out, ": cannot publish the new net: ", error.message()));
  }
  return absl::OkStatus();
}

absl::StatusOr<proto::EvaluationStats> Loop::Evaluate(
    int g, const std::string& opponent, const std::string& opponent_spec,
    int games, const std::string& pgn_path, uint64_t seed) {
  const proto::EvaluationConfig& e = config_.evaluation();
  const std::string name = GenName(g);
  absl::StatusOr<std::shared_ptr<selfplay::PlayerFactory>> player =
      selfplay::MakePlayerFactory(
          NetPlayerSpec(paths_.Net(g), e.visits(), name), *game_, evaluators_);
  if (!player.ok()) return player.status();
  absl::StatusOr<std::shared_ptr<selfplay::PlayerFactory>> other =
      selfplay::MakePlayerFactory(opponent_spec, *game_, evaluators_);
  if (!other.ok()) return other.status();
  selfplay::MatchOptions match;
  match.games = games;
  match.random_plies = e.random_plies();
  match.concurrency = e.concurrency();
  match.seed = seed;
  match.adjudication.max_plies = e.max_plies();
  match.event = Cat("volkhv loop: ", name, " vs ", opponent);
  match.variant = Variant(config_).empty() ? "standard" : Variant(config_);
  match.pgn_path = pgn_path;
  absl::StatusOr<selfplay::MatchReport> report =
      selfplay::RunMatch(*game_, {*player, *other}, match);
  if (!report.ok()) return report.status();
  const selfplay::PairingStats& p = report->pairings.front();
  const selfplay::EloEstimate elo = p.Elo(report->pentanomial);
  proto::EvaluationStats stats;
  stats.set_opponent(opponent);
  stats.set_games(p.counts.games());
  stats.set_wins(p.counts.wins);
  stats.set_draws(p.counts.draws);
  stats.set_losses(p.counts.losses);
  stats.set_score(p.counts.Score());
  stats.set_elo(elo.elo);
  stats.set_elo_error(elo.elo_error);
  Log(absl::StrFormat("%s vs %s: +%d =%d -%d, score %.3f, Elo %+.0f +/- %.0f",
                      name, opponent, p.counts.wins, p.counts.draws,
                      p.counts.losses, p.counts.Score(), elo.elo,
                      elo.elo_error));
  return stats;
}

absl::StatusOr<GenerationClock> Loop::StartClock(int g) const {
  proto::GenerationSpent before;
  if (fs::exists(paths_.Spent(g))) {
    absl::StatusOr<proto::GenerationSpent> read =
        ReadTextProto<proto::GenerationSpent>(paths_.Spent(g));
    if (!read.ok()) return read.status();
    before = *read;
  }
  return GenerationClock(before);
}

absl::Status Loop::SaveSpent(int g, const GenerationClock& clock) const {
  return WriteTextProto(paths_.Spent(g), clock.Now());
}

absl::Status Loop::Finish(int g, const std::string& selfplay_net,
                          std::vector<proto::GenerationRecord>* done,
                          const GenerationClock& clock) {
  proto::GenerationRecord record;
  record.set_generation(g + 1);
  record.set_net(fs::path(paths_.Net(g + 1)).filename().string());
  record.set_selfplay_net(fs::path(selfplay_net).filename().string());
  absl::StatusOr<proto::SelfplayRunStats> counted = CountGames(g);
  if (!counted.ok()) return counted.status();
  proto::SelfplayRunStats selfplay = *counted;
  if (fs::exists(paths_.SelfplayStats(g))) {
    absl::StatusOr<proto::SelfplayRunStats> timing =
        ReadTextProto<proto::SelfplayRunStats>(paths_.SelfplayStats(g));
    if (!timing.ok()) return timing.status();
    selfplay.MergeFrom(*timing);
    // The counts come from the files, not from the (possibly partial) runs.
    selfplay.set_games(counted->games());
  }
  *record.mutable_selfplay() = selfplay;
  absl::StatusOr<proto::TrainingRunStats> training =
      ReadTextProto<proto::TrainingRunStats>(paths_.TrainSummary(g + 1));
  if (!training.ok()) return training.status();
  *record.mutable_training() = *training;

  const std::string previous = fs::path(selfplay_net).stem().string();
  absl::StatusOr<proto::EvaluationStats> vs_previous = Evaluate(
      g + 1, previous,
      NetPlayerSpec(selfplay_net, config_.evaluation().visits(), previous),
      config_.evaluation().games(), paths_.EvalGames(g + 1),
      /*seed=*/2 + static_cast<uint64_t>(g));
  if (!vs_previous.ok()) return vs_previous.status();
  *record.mutable_vs_previous() = *vs_previous;
  if (config_.evaluation().games_vs_random() > 0) {
    absl::StatusOr<proto::EvaluationStats> vs_random =
        Evaluate(g + 1, "random", "random",
                 config_.evaluation().games_vs_random(), /*pgn_path=*/"",
                 /*seed=*/2 + static_cast<uint64_t>(g));
    if (!vs_random.ok()) return vs_random.status();
    *record.mutable_vs_random() = *vs_random;
  }
  record.set_accepted(!config_.gating().enabled() ||
                      vs_previous->score() >= config_.gating().accept_score());
  // Elo relative to generation 0, through the chain of nets that played.
  double base = 0, base_error2 = 0;
  for (const proto::GenerationRecord& r : *done) {
    if (r.net() == record.selfplay_net()) {
      base = r.elo_total();
      base_error2 = r.elo_total_error() * r.elo_total_error();
    }
  }
  record.set_elo_total(base + vs_previous->elo());
  record.set_elo_total_error(std::sqrt(
      base_error2 + vs_previous->elo_error() * vs_previous->elo_error()));
  const proto::GenerationSpent spent = clock.Now();
  record.set_wall_seconds(spent.wall_seconds());
  record.set_cpu_seconds(spent.cpu_seconds());
  record.set_finished(UtcTimestamp());
  if (absl::Status s = WriteTextProto(paths_.Generation(g + 1), record);
      !s.ok()) {
    return s;
  }
  std::error_code ignored;  // a stale file is harmless: the record counts
  fs::remove(paths_.Spent(g + 1), ignored);
  done->push_back(record);
  if (absl::Status s =
          WriteMetricsCsv(*done, options_.run_dir + "/metrics.csv");
      !s.ok()) {
    return s;
  }
  return WriteReportHtml(*done, config_, options_.run_dir + "/report.html");
}

absl::Status Loop::Run() {
  for (const char* sub :
       {"nets", "games", "selfplay", "train", "eval", "generations"}) {
    std::error_code error;
    fs::create_directories(Cat(options_.run_dir, "/", sub), error);
    if (error) {
      return absl::PermissionDeniedError(Cat(
          options_.run_dir, "/", sub, ": cannot create: ", error.message()));
    }
  }
  if (absl::Status s = EnsureNetZero(); !s.ok()) return s;
  absl::StatusOr<std::vector<proto::GenerationRecord>> done =
      ReadGenerations(options_.run_dir);
  if (!done.ok()) return done.status();
  // A loop that died between a generation's record and the metrics wrote
  // neither the last row nor the report: both are made again from the
  // records.
  if (!done->empty()) {
    if (absl::Status s =
            WriteMetricsCsv(*done, options_.run_dir + "/metrics.csv");
        !s.ok()) {
      return s;
    }
    absl::StatusOr<std::optional<proto::FinalEvaluation>> final =
        ReadFinalEvaluation(options_.run_dir);
    if (!final.ok()) return final.status();
    if (absl::Status s =
            WriteReportHtml(*done, config_, options_.run_dir + "/report.html",
                            final->has_value() ? &**final : nullptr);
        !s.ok()) {
      return s;
    }
  }
  for (int g = static_cast<int>(done->size()); g < config_.generations(); ++g) {
    if (const std::string reason = BudgetStop(options_.budget, *done);
        !reason.empty()) {
      Log(Cat("stopping: ", reason));
      break;
    }
    absl::StatusOr<GenerationClock> clock = StartClock(g + 1);
    if (!clock.ok()) return clock.status();
    const std::string selfplay_net = SelfplayNet(g, *done);
    if (absl::Status s = config_.external_selfplay().enabled()
                             ? SelfPlayByWorkers(g, selfplay_net)
                             : SelfPlay(g, selfplay_net);
        !s.ok()) {
      return s;
    }
    if (absl::Status s = SaveSpent(g + 1, *clock); !s.ok()) return s;
    if (Stopped(options_)) break;
    if (absl::Status s = Train(g); !s.ok()) return s;
    if (absl::Status s = SaveSpent(g + 1, *clock); !s.ok()) return s;
    if (Stopped(options_)) break;
    if (absl::Status s = Finish(g, selfplay_net, &*done, *clock); !s.ok()) {
      return s;
    }
    const proto::GenerationRecord& r = done->back();
    Log(absl::StrFormat(
        "%s done in %.0f s: %d games, policy loss %.3f, value loss %.3f, "
        "Elo vs generation 0 %+.0f +/- %.0f%s",
        GenName(g + 1), r.wall_seconds(), r.selfplay().games(),
        r.training().policy_loss(), r.training().value_loss(), r.elo_total(),
        r.elo_total_error(), r.accepted() ? "" : " (rejected by gating)"));
  }
  if (static_cast<int>(done->size()) < config_.generations()) {
    return absl::OkStatus();
  }
  if (config_.external_selfplay().enabled()) {
    if (absl::Status s =
            PublishRunFinished(options_.run_dir, config_.generations());
        !s.ok()) {
      return s;
    }
  }
  return FinalEvaluation(config_.generations());
}

absl::Status Loop::FinalEvaluation(int last) {
  const proto::EvaluationConfig& e = config_.evaluation();
  if ((e.final_games() == 0 && e.final_games_vs_random() == 0) ||
      fs::exists(FinalEvaluationPath(options_.run_dir))) {
    return absl::OkStatus();
  }
  // Seeds of their own: not the openings the generations were measured on.
  const uint64_t seed = 1000003;
  proto::FinalEvaluation final;
  final.set_generation(last);
  if (e.final_games() > 0) {
    Log(Cat("final evaluation: ", GenName(last), " vs ", GenName(0), ", ",
            e.final_games(), " games"));
    absl::StatusOr<proto::EvaluationStats> vs_first = Evaluate(
        last, GenName(0), NetPlayerSpec(paths_.Net(0), e.visits(), GenName(0)),
        e.final_games(), paths_.FinalGames(), seed);
    if (!vs_first.ok()) return vs_first.status();
    *final.mutable_vs_first() = *vs_first;
  }
  if (Stopped(options_)) return absl::OkStatus();
  if (e.final_games_vs_random() > 0) {
    absl::StatusOr<proto::EvaluationStats> vs_random =
        Evaluate(last, "random", "random", e.final_games_vs_random(),
                 /*pgn_path=*/"", seed + 1);
    if (!vs_random.ok()) return vs_random.status();
    *final.mutable_vs_random() = *vs_random;
  }
  if (Stopped(options_)) return absl::OkStatus();
  if (absl::Status s =
          WriteTextProto(FinalEvaluationPath(options_.run_dir), final);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<std::vector<proto::GenerationRecord>> done =
      ReadGenerations(options_.run_dir);
  if (!done.ok()) return done.status();
  return WriteReportHtml(*done, config_, options_.run_dir + "/report.html",
                         &final);
}

}  // namespace

GameOptions LoopGameOptions(const proto::LoopConfig& config) {
  GameOptions options;
  if (config.prince_max_steps() > 0) {
    options["prince_max_steps"] = config.prince_max_steps();
  }
  for (const auto& [name, value] : config.game_options()) {
    options[name] = value;
  }
  return options;
}

absl::Status ValidateLoopConfig(const proto::LoopConfig& config) {
  if (config.prince_max_steps() < 0 || config.prince_max_steps() > 100) {
    return absl::InvalidArgumentError(
        Cat("prince_max_steps: must be in [0, 100] (0 = unlimited), got ",
            config.prince_max_steps()));
  }
  absl::StatusOr<std::unique_ptr<Game>> game = LoopGame(config);
  if (!game.ok()) return game.status();
  if (config.generations() < 1 || config.generations() > 100000) {
    return absl::InvalidArgumentError(
        Cat("generations: must be in [1, 100000], got ", config.generations()));
  }
  if (absl::Status s = nn::ValidateArchitecture(config.network().architecture(),
                                                /*require_geometry=*/false);
      !s.ok()) {
    return absl::InvalidArgumentError(Cat("network.", s.message()));
  }
  if (absl::Status s = selfplay::ValidateSelfplayConfig(config.selfplay());
      !s.ok()) {
    return absl::InvalidArgumentError(Cat("selfplay.", s.message()));
  }
  if (absl::Status s = ValidateTrainingConfig(config.training()); !s.ok()) {
    return absl::InvalidArgumentError(Cat("training.", s.message()));
  }
  // The net of generation 0, built as the loop will build it (the encoder's
  // stack_layers, the geometry of the game, the size of the file).
  if (absl::StatusOr<proto::NetworkFile> header = nn::NewNetworkHeader(
          (*game)->Info(), Variant(config), config.network(),
          config.network().seed(), "volkhv loop", "");
      !header.ok()) {
    return absl::InvalidArgumentError(
        Cat("network: ", header.status().message()));
  }
  // The limits of the command line (volkhv match, the evaluator options).
  const proto::EvaluationConfig& e = config.evaluation();
  const proto::EvaluatorConfig& v = config.evaluator();
  absl::Status s;
  s.Update(IntInRange("evaluation.games", e.games(), 2, 1000000));
  s.Update(IntInRange("evaluation.visits", e.visits(), 1, 10000000));
  s.Update(IntInRange("evaluation.random_plies", e.random_plies(), 0, 1000));
  s.Update(IntInRange("evaluation.max_plies", e.max_plies(), 0, 1000000));
  s.Update(IntInRange("evaluation.concurrency", e.concurrency(), 1, 1024));
  s.Update(IntInRange("evaluation.games_vs_random", e.games_vs_random(), 0,
                      1000000));
  s.Update(IntInRange("evaluation.final_games", e.final_games(), 0, 1000000));
  s.Update(IntInRange("evaluation.final_games_vs_random",
                      e.final_games_vs_random(), 0, 1000000));
  if (config.external_selfplay().enabled()) {
    s.Update(ExternalSelfplayValid(config.external_selfplay()));
  }
  if (!s.ok()) return s;
  // The evaluator's checks are those of every evaluator
  // (nn/evaluator_factory.h); the device's name is checked here too, before
  // anything runs.
  if (absl::Status valid =
          nn::ValidateEvaluatorConfig(v, nn::ConfigFileNames("evaluator."));
      !valid.ok()) {
    return valid;
  }
  if (!ValidDevice(v.device())) {
    return absl::InvalidArgumentError(
        Cat("evaluator.device: expected cpu, cuda or cuda:N, got '",
            OneLine(v.device()), "'"));
  }
  const double accept = config.gating().accept_score();
  if (!(accept >= 0 && accept <= 1)) {
    return absl::InvalidArgumentError(Cat(
        "gating.accept_score: must be in [0, 1], got ", absl::StrCat(accept)));
  }
  return absl::OkStatus();
}

absl::StatusOr<proto::LoopConfig> ParseLoopConfig(std::string_view text,
                                                  std::string_view source) {
  proto::LoopConfig config;
  if (absl::Status s = nn::MergeTextProto(text, source, &config); !s.ok()) {
    return s;
  }
  if (absl::Status s = ValidateLoopConfig(config); !s.ok()) {
    return absl::InvalidArgumentError(Cat(source, ": ", s.message()));
  }
  return config;
}

absl::StatusOr<proto::LoopConfig> ReadLoopConfig(const std::string& path) {
  absl::StatusOr<std::string> text = nn::ReadTextFile(path);
  if (!text.ok()) return text.status();
  return ParseLoopConfig(*text, path);
}

absl::StatusOr<std::vector<proto::GenerationRecord>> ReadGenerations(
    const std::string& run_dir) {
  std::vector<proto::GenerationRecord> records;
  const RunPaths paths{run_dir};
  for (int g = 1; fs::exists(paths.Generation(g)); ++g) {
    absl::StatusOr<proto::GenerationRecord> r =
        ReadTextProto<proto::GenerationRecord>(paths.Generation(g));
    if (!r.ok()) return r.status();
    records.push_back(*std::move(r));
  }
  return records;
}

std::string FinalEvaluationPath(const std::string& run_dir) {
  return run_dir + "/final.textproto";
}

absl::StatusOr<std::optional<proto::FinalEvaluation>> ReadFinalEvaluation(
    const std::string& run_dir) {
  const std::string path = FinalEvaluationPath(run_dir);
  if (!fs::exists(path)) return std::nullopt;
  absl::StatusOr<proto::FinalEvaluation> final =
      ReadTextProto<proto::FinalEvaluation>(path);
  if (!final.ok()) return final.status();
  return *std::move(final);
}

absl::Status RunLoop(const LoopOptions& options) {
  const RunPaths paths{options.run_dir};
  std::optional<proto::LoopConfig> stored;
  if (fs::exists(paths.Config())) {
    absl::StatusOr<proto::LoopConfig> read = ReadLoopConfig(paths.Config());
    if (!read.ok()) return read.status();
    stored = *std::move(read);
  }
  proto::LoopConfig config;
  if (options.config.has_value()) {
    config = *options.config;
    if (stored.has_value() &&
        !google::protobuf::util::MessageDifferencer::Equals(config, *stored)) {
      return absl::FailedPreconditionError(Cat(
          options.run_dir, " was started with another config (", paths.Config(),
          "); continue it without --config, or use a new --dir"));
    }
  } else if (stored.has_value()) {
    config = *stored;
  } else {
    return absl::InvalidArgumentError(
        Cat(options.run_dir, " has no config.textproto: give --config"));
  }
  if (absl::Status s = ValidateLoopConfig(config); !s.ok()) return s;
  std::error_code error;
  fs::create_directories(options.run_dir, error);
  if (error) {
    return absl::PermissionDeniedError(
        Cat(options.run_dir, ": cannot create: ", error.message()));
  }
  absl::StatusOr<RunLock> lock = RunLock::Acquire(options.run_dir);
  if (!lock.ok()) return lock.status();
  if (!stored.has_value()) {
    if (absl::Status s = WriteTextProto(paths.Config(), config); !s.ok()) {
      return s;
    }
  }
  absl::StatusOr<std::unique_ptr<Game>> game = LoopGame(config);
  if (!game.ok()) return game.status();
  Loop loop(options, std::move(config), *std::move(game));
  return loop.Run();
}

}  // namespace volkhv::training
