// `volkhv net init|describe`: write a randomly initialised network file, and
// print what a network file holds.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "cli/game_setup.h"
#include "engine/game/strings.h"
#include "engine/games/games.h"
#include "nn/encoder.h"
#include "nn/torch_weights.h"
#include "nn/weights_file.h"

namespace volkhv::cli {
namespace {

constexpr char kUsage[] =
    "usage: volkhv net init --game G --config FILE --out FILE [--seed N]\n"
    "       volkhv net describe FILE [--all-tensors]\n";

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
      (*game)->Info(),
      cl->Given("prince-max-steps")
          ? Cat("prince_max_steps=", cl->Get("prince-max-steps"))
          : "",
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
  absl::StatusOr<std::unique_ptr<nn::Encoder>> encoder =
      nn::MakeEncoder((*game)->Info(), nn::EncoderOptionsOf(weights));
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
      "%-14s%d planes of %dx%d = %d logits; WDL value\n",
      "policy:", a.policy_channels(), a.board_height(), a.board_width(),
      a.policy_channels() * a.board_height() * a.board_width());
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
  return Fail("net",
              absl::InvalidArgumentError("unknown subcommand '" + args[0] +
                                         "' (known: init, describe)"),
              kExitUsage);
}

}  // namespace volkhv::cli
