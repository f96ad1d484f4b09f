// `volkhv net init|describe|bundle`: write a randomly initialised network
// file, print what a network file holds, release a net from a loop run or a
// trained net file.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "cli/game_setup.h"
#include "engine/game/encoder.h"
#include "engine/games/games.h"
#include "engine/util/strings.h"
#include "nn/torch_weights.h"
#include "nn/weights_file.h"
#include "training/net_release.h"

namespace volkhv::cli {
namespace {

constexpr char kUsage[] =
    "usage: volkhv net init --game G --config FILE --out FILE [--seed N]\n"
    "       volkhv net describe FILE [--all-tensors] [--config]\n"
    "       volkhv net bundle --run DIR --out FILE [--generation N] "
    "[--config-name NAME] [--commit SHA] [--cpu-hours H] [--note TEXT]\n"
    "       volkhv net bundle --net FILE --config FILE --games N --out FILE "
    "[--config-name NAME] [--commit SHA] [--cpu-hours H] [--note TEXT]\n";

std::string HumanBytes(double bytes) {
  if (bytes >= 1048576) return absl::StrFormat("%.1f MiB", bytes / 1048576);
  if (bytes >= 1024) return absl::StrFormat("%.1f KiB", bytes / 1024);
  return absl::StrFormat("%.0f bytes", bytes);
}

// "12.3 MFLOP" / "1.23 GFLOP".
std::string HumanFlops(double flops) {
  if (flops >= 1e9) return absl::StrFormat("%.2f GFLOP", flops / 1e9);
  return absl::StrFormat("%.1f MFLOP", flops / 1e6);
}

int NetInit(const std::vector<std::string>& args) {
  std::vector<OptionSpec> specs = GameOptionSpecs();
  specs.push_back({"config", "FILE", "",
                   "network config, text format (e.g. "
                   "configs/net-cpu.textproto)"});
  specs.push_back({"out", "FILE", "", "where to write the network file"});
  specs.push_back({"seed", "N", "", "random seed (default: the config's)"});
  specs.push_back({"help", "", "", "print this help"});
  absl::StatusOr<CommandLine> cl = CommandLine::Parse(args, specs, 0);
  if (!cl.ok()) return Fail("net init", cl.status(), kExitUsage);
  if (cl->Flag("help")) {
    std::cout << kUsage << OptionsHelp(specs);
    return kExitOk;
  }
  for (const char* required : {"config", "out"}) {
    if (cl->Get(required).empty()) {
      return Fail("net init",
                  absl::InvalidArgumentError(
                      Cat("option '--", required, "' is required")),
                  kExitUsage);
    }
  }
  absl::StatusOr<std::unique_ptr<Game>> game = GameFromCommandLine(*cl);
  if (!game.ok()) return Fail("net init", game.status(), kExitUsage);
  absl::StatusOr<proto::NetworkConfig> config =
      nn::ReadNetworkConfig(cl->Get("config"));
  if (!config.ok()) return Fail("net init", config.status(), kExitInvalidInput);
  uint64_t seed = config->seed();
  if (cl->Given("seed")) {
    absl::StatusOr<uint64_t> given = cl->GetUint64("seed");
    if (!given.ok()) return Fail("net init", given.status(), kExitUsage);
    seed = *given;
  }

  absl::StatusOr<proto::NetworkFile> header = nn::NewNetworkHeader(
      (*game)->Info(), GameOptionsText(*GameOptionsFromCommandLine(*cl)),
      *config, seed, "volkhv net init",
      Cat("random initialisation, config ", cl->Get("config")));
  if (!header.ok()) return Fail("net init", header.status(), kExitInvalidInput);
  const proto::Architecture* arch = &header->architecture();

  absl::StatusOr<nn::NetworkWeights> weights =
      nn::RandomNetworkWeights(*header, seed);
  if (!weights.ok()) {
    return Fail("net init", weights.status(), kExitInvalidInput);
  }
  const std::string& out = cl->Get("out");
  if (absl::Status s = nn::WriteNetworkWeights(*weights, out); !s.ok()) {
    return Fail("net init", s, kExitInvalidInput);
  }
  std::cout << absl::StrFormat(
      "wrote %s: %s, %s; %d parameters, %s per position, seed %d\n", out,
      header->game(), nn::ArchitectureSummary(*arch), nn::ParameterCount(*arch),
      HumanFlops(static_cast<double>(nn::FlopsPerPosition(*arch))), seed);
  return kExitOk;
}

// How this build's encoder of the net's game sees the net.
std::string Compatibility(const nn::NetworkWeights& weights) {
  absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(weights.header.game());
  if (!game.ok()) return Cat("INCOMPATIBLE: ", game.status().message());
  absl::StatusOr<std::unique_ptr<Encoder>> encoder =
      MakeEncoder((*game)->Info(), nn::EncoderOptionsOf(weights));
  if (!encoder.ok()) return Cat("INCOMPATIBLE: ", encoder.status().message());
  const absl::Status fits =
      nn::CheckNetworkFits(weights, weights.header.game(), **encoder);
  if (!fits.ok()) return Cat("INCOMPATIBLE: ", fits.message());
  return Cat("compatible (", weights.header.game(), " input format version ",
             (*encoder)->FormatVersion(), ")");
}

int NetDescribe(const std::vector<std::string>& args) {
  const std::vector<OptionSpec> specs = {
      {"all-tensors", "", "", "list every tensor (default: blocks.0 only)"},
      {"config", "", "", "print the loop config the net was trained with"},
      {"help", "", "", "print this help"},
  };
  absl::StatusOr<CommandLine> cl = CommandLine::Parse(args, specs, 1);
  if (!cl.ok()) return Fail("net describe", cl.status(), kExitUsage);
  if (cl->Flag("help")) {
    std::cout << kUsage << OptionsHelp(specs);
    return kExitOk;
  }
  if (cl->positional().size() != 1) {
    return Fail("net describe",
                absl::InvalidArgumentError("expected one network file"),
                kExitUsage);
  }
  const std::string& path = cl->positional()[0];
  absl::StatusOr<nn::NetworkWeights> weights = nn::ReadNetworkWeights(path);
  if (!weights.ok()) {
    return Fail("net describe", weights.status(), kExitInvalidInput);
  }
  const proto::NetworkFile& h = weights->header;
  const proto::Architecture& a = h.architecture();
  const proto::Provenance& p = h.provenance();
  int64_t values = 0;
  for (const nn::TensorData& t : weights->tensors) values += t.values.size();

  std::cout << absl::StrFormat("%-14s%s (format version %d)\n", "file:", path,
                               h.format_version());
  std::cout << absl::StrFormat(
      "%-14s%s%s\n", "game:", h.game(),
      h.variant().empty() ? std::string() : Cat(" (", h.variant(), ")"));
  std::cout << absl::StrFormat(
      "%-14sformat version %d, stack layers %d, %d planes of %dx%d\n",
      "input:", h.input_format_version(), h.encoder().stack_layers(),
      a.input_planes(), a.board_height(), a.board_width());
  std::cout << absl::StrFormat(
      "%-14s%d planes of %dx%d = %d logits; WDL value%s\n",
      "policy:", a.policy_channels(), a.board_height(), a.board_width(),
      a.policy_channels() * a.board_height() * a.board_width(),
      nn::HasMovesLeftHead(a) ? "; moves left (plies to the end)" : "");
  std::cout << absl::StrFormat("%-14s%s\n",
                               "architecture:", nn::ArchitectureSummary(a));
  std::cout << absl::StrFormat("%-14s%d\n",
                               "parameters:", nn::ParameterCount(a));
  std::cout << absl::StrFormat(
      "%-14s%s per position (%d; 2 per multiply-add of the convolutions "
      "and linear layers)\n",
      "FLOPs:", HumanFlops(static_cast<double>(nn::FlopsPerPosition(a))),
      nn::FlopsPerPosition(a));
  std::cout << absl::StrFormat(
      "%-14sgeneration %d, %d training steps, %d positions, created %s, "
      "seed %d, by %s\n",
      "provenance:", p.generation(), p.training_steps(), p.training_positions(),
      p.created().empty() ? "?" : p.created(), p.seed(),
      p.tool().empty() ? "?" : p.tool());
  std::cout << absl::StrFormat(
      "%-14s%s\n",
      "parent net:", p.parent_net().empty() ? "(none)" : p.parent_net());
  if (!p.note().empty()) {
    std::cout << absl::StrFormat("%-14s%s\n", "note:", p.note());
  }
  if (p.has_config()) {
    std::cout << absl::StrFormat(
        "%-14s%s; %d self-play games%s%s%s\n", "trained by:", p.config(),
        p.selfplay_games(),
        p.has_loop_hours()
            ? absl::StrFormat("; %.2f loop hours", p.loop_hours())
            : std::string(),
        p.has_cpu_hours() ? absl::StrFormat("; %.2f CPU hours", p.cpu_hours())
                          : std::string(),
        p.has_source_commit() ? Cat("; commit ", p.source_commit())
                              : std::string());
  }
  std::cout << absl::StrFormat("%-14s%s\n",
                               "this build:", Compatibility(*weights));
  std::cout << absl::StrFormat("%-14s%d, %d floats (%s)\n",
                               "tensors:", weights->tensors.size(), values,
                               HumanBytes(4.0 * values));
  bool skipped = false;
  for (const nn::TensorData& t : weights->tensors) {
    if (!cl->Flag("all-tensors") && t.name.starts_with("blocks.") &&
        !t.name.starts_with("blocks.0.")) {
      skipped = true;
      continue;
    }
    std::cout << absl::StrFormat("  %-28s %s\n", t.name,
                                 nn::ShapeString(t.shape));
  }
  if (skipped) {
    std::cout << absl::StrFormat(
        "  blocks.1 .. blocks.%d: as blocks.0 (--all-tensors lists them)\n",
        a.blocks() - 1);
  }
  if (cl->Flag("config")) {
    // A loop run's release has loop hours; a net of `volkhv train` none.
    std::cout << (p.has_loop_hours() || !p.has_config() ? "loop config:\n"
                                                        : "training config:\n")
              << (p.has_config_text() ? p.config_text() : "(none recorded)\n");
  }
  return kExitOk;
}

int NetBundle(const std::vector<std::string>& args) {
  const std::vector<OptionSpec> specs = {
      {"run", "DIR", "", "the `volkhv loop` run directory"},
      {"net", "FILE", "",
       "instead of --run: a net trained outside a loop (`volkhv train`)"},
      {"out", "FILE", "", "where to write the net (e.g. nets/GAME.net)"},
      {"generation", "N", "",
       "with --run: the generation (default: the last finished)"},
      {"config", "FILE", "", "with --net: the config it was trained with"},
      {"games", "N", "",
       "with --net: the self-play games its training data came from"},
      {"config-name", "NAME", "",
       "the config's name in the provenance (default: RUN/config.textproto "
       "or --config)"},
      {"commit", "SHA", "", "the source commit that trained the run"},
      {"cpu-hours", "H", "",
       "the CPU time the run took, in hours (a run started from a released "
       "net adds that net's)"},
      {"note", "TEXT", "", "a note for the provenance"},
      {"help", "", "", "print this help"},
  };
  absl::StatusOr<CommandLine> cl = CommandLine::Parse(args, specs, 0);
  if (!cl.ok()) return Fail("net bundle", cl.status(), kExitUsage);
  if (cl->Flag("help")) {
    std::cout << kUsage << OptionsHelp(specs);
    return kExitOk;
  }
  auto usage_error = [](const std::string& message) {
    return Fail("net bundle", absl::InvalidArgumentError(message), kExitUsage);
  };
  if (cl->Get("run").empty() == cl->Get("net").empty()) {
    return usage_error("give one of '--run DIR' and '--net FILE'");
  }
  if (cl->Get("out").empty()) return usage_error("option '--out' is required");
  const bool from_run = !cl->Get("run").empty();
  for (const char* option : {"config", "games"}) {
    if (from_run && cl->Given(option)) {
      return usage_error(Cat("option '--", option, "' goes with '--net'"));
    }
    if (!from_run && !cl->Given(option)) {
      return usage_error(
          Cat("option '--", option, "' is required with '--net'"));
    }
  }
  if (!from_run && cl->Given("generation")) {
    return usage_error("option '--generation' goes with '--run'");
  }
  training::ReleaseOptions options;
  options.run_dir = cl->Get("run");
  options.net_path = cl->Get("net");
  options.config_path = cl->Get("config");
  if (cl->Given("games")) {
    absl::StatusOr<int> games = cl->GetInt("games", 0, 2'000'000'000);
    if (!games.ok()) return Fail("net bundle", games.status(), kExitUsage);
    options.selfplay_games = *games;
  }
  if (cl->Given("generation")) {
    absl::StatusOr<int> g = cl->GetInt("generation", 1, 1'000'000'000);
    if (!g.ok()) return Fail("net bundle", g.status(), kExitUsage);
    options.generation = *g;
  }
  if (cl->Given("cpu-hours")) {
    absl::StatusOr<double> h = cl->GetDouble("cpu-hours", 0, 1e9);
    if (!h.ok()) return Fail("net bundle", h.status(), kExitUsage);
    options.cpu_hours = *h;
  }
  options.config_name = cl->Get("config-name");
  options.source_commit = cl->Get("commit");
  options.note = cl->Get("note");
  absl::StatusOr<nn::NetworkWeights> weights = training::ReleaseNet(options);
  if (!weights.ok()) {
    return Fail("net bundle", weights.status(), kExitInvalidInput);
  }
  if (absl::Status written = nn::WriteNetworkWeights(*weights, cl->Get("out"));
      !written.ok()) {
    return Fail("net bundle", written, kExitInvalidInput);
  }
  std::cout << "wrote " << cl->Get("out") << ": " << weights->header.game()
            << " generation " << weights->header.provenance().generation()
            << "\n";
  return kExitOk;
}

}  // namespace

int RunNet(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help") {
    std::cout << kUsage;
    return args.empty() ? kExitUsage : kExitOk;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "init") return NetInit(rest);
  if (args[0] == "describe") return NetDescribe(rest);
  if (args[0] == "bundle") return NetBundle(rest);
  return Fail("net",
              absl::InvalidArgumentError("unknown subcommand '" + args[0] +
                                         "' (known: init, describe, bundle)"),
              kExitUsage);
}

}  // namespace volkhv::cli
