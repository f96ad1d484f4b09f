#include "training/net_release.h"

#include <filesystem>

#include "absl/strings/str_format.h"
#include "engine/util/strings.h"
#include "nn/text_proto.h"
#include "training/loop.h"

namespace volkhv::training {

namespace {

// The options' commit, CPU hours (added to `hours_before`, those of the net
// a run started from) and note, and the config's name and text.
void CompleteProvenance(const ReleaseOptions& options,
                        const std::string& config_path,
                        const std::string& config_text, double hours_before,
                        proto::Provenance* p) {
  p->set_config(options.config_name.empty() ? config_path
                                            : options.config_name);
  p->set_config_text(config_text);
  // Not measured or not given: unset, not the hours or commit a started
  // run's generation 0 or the trainer's parent net handed down.
  p->clear_cpu_hours();
  if (options.cpu_hours >= 0) {
    p->set_cpu_hours(options.cpu_hours + hours_before);
  }
  p->clear_source_commit();
  if (!options.source_commit.empty()) {
    p->set_source_commit(options.source_commit);
  }
  if (!options.note.empty()) p->set_note(options.note);
}

absl::StatusOr<nn::NetworkWeights> ReleaseNetFile(
    const ReleaseOptions& options) {
  if (options.config_path.empty() || options.selfplay_games < 0) {
    return absl::InvalidArgumentError(
        Cat(options.net_path,
            ": a net outside a run needs its config file and its games"));
  }
  absl::StatusOr<std::string> config_text =
      nn::ReadTextFile(options.config_path);
  if (!config_text.ok()) return config_text.status();
  if (config_text->empty()) {
    return absl::InvalidArgumentError(Cat(options.config_path, ": empty"));
  }
  absl::StatusOr<nn::NetworkWeights> weights =
      nn::ReadNetworkWeights(options.net_path);
  if (!weights.ok()) return weights.status();
  proto::Provenance* p = weights->header.mutable_provenance();
  p->set_selfplay_games(options.selfplay_games);
  p->clear_loop_hours();
  CompleteProvenance(options, options.config_path, *config_text, 0, p);
  return weights;
}

absl::StatusOr<nn::NetworkWeights> ReleaseRunGeneration(
    const ReleaseOptions& options) {
  const std::string config_path = Cat(options.run_dir, "/config.textproto");
  absl::StatusOr<std::string> config_text = nn::ReadTextFile(config_path);
  if (!config_text.ok()) return config_text.status();
  if (absl::StatusOr<proto::LoopConfig> config =
          ParseLoopConfig(*config_text, config_path);
      !config.ok()) {
    return config.status();
  }
  absl::StatusOr<std::vector<proto::GenerationRecord>> generations =
      ReadGenerations(options.run_dir);
  if (!generations.ok()) return generations.status();
  const int finished = static_cast<int>(generations->size());
  if (finished == 0) {
    return absl::FailedPreconditionError(
        Cat(options.run_dir, ": no generation is finished yet"));
  }
  const int generation = options.generation < 0 ? finished : options.generation;
  if (generation < 1 || generation > finished) {
    return absl::InvalidArgumentError(
        Cat(options.run_dir, ": generation ", generation,
            " is not finished (finished: 1 to ", finished, ")"));
  }
  const std::string net_path =
      Cat(options.run_dir, "/nets/", absl::StrFormat("gen-%04d", generation),
          ".net");
  absl::StatusOr<nn::NetworkWeights> weights = nn::ReadNetworkWeights(net_path);
  if (!weights.ok()) return weights.status();
  if (weights->header.provenance().generation() != generation) {
    return absl::DataLossError(Cat(net_path, ": provenance says generation ",
                                   weights->header.provenance().generation(),
                                   ", not ", generation));
  }

  // A run started from a released net (`volkhv loop --net-in`) goes on
  // from its games and hours; a random generation 0 has none.
  proto::Provenance before;
  const std::string zero_path = Cat(options.run_dir, "/nets/gen-0000.net");
  if (std::filesystem::exists(zero_path)) {
    absl::StatusOr<nn::NetworkWeights> zero = nn::ReadNetworkWeights(zero_path);
    if (!zero.ok()) return zero.status();
    before = zero->header.provenance();
  }
  int64_t games = before.selfplay_games();
  double loop_seconds = before.loop_hours() * 3600;
  for (int g = 0; g < generation; ++g) {
    games += (*generations)[g].selfplay().games();
    loop_seconds += (*generations)[g].wall_seconds();
  }
  proto::Provenance* p = weights->header.mutable_provenance();
  p->set_selfplay_games(games);
  p->set_loop_hours(loop_seconds / 3600);
  CompleteProvenance(options, config_path, *config_text, before.cpu_hours(), p);
  return weights;
}

}  // namespace

absl::StatusOr<nn::NetworkWeights> ReleaseNet(const ReleaseOptions& options) {
  if (options.run_dir.empty() == options.net_path.empty()) {
    return absl::InvalidArgumentError(
        "give either a run directory or a net file");
  }
  return options.net_path.empty() ? ReleaseRunGeneration(options)
                                  : ReleaseNetFile(options);
}

}  // namespace volkhv::training
