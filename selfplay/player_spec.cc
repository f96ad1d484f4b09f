#include "selfplay/player_spec.h"

#include <cerrno>
#include <cmath>
#include <map>
#include <utility>
#include <vector>

#include "engine/games/games.h"
#include "engine/search/search_params.h"
#include "engine/util/parse_number.h"
#include "engine/util/strings.h"

namespace volkhv::selfplay {
namespace {

using Options = std::vector<std::pair<std::string, std::string>>;

absl::StatusOr<int64_t> ParseInt(std::string_view kind, const std::string& key,
                                 const std::string& value, int64_t min,
                                 int64_t max) {
  return volkhv::ParseInt<int64_t>(value, Cat("player ", kind, ": ", key), min,
                                   max);
}

absl::StatusOr<double> ParseDouble(std::string_view kind,
                                   const std::string& key,
                                   const std::string& value, double min,
                                   double max) {
  return volkhv::ParseDouble(value, Cat("player ", kind, ": ", key), min, max);
}

class RandomFactory final : public PlayerFactory {
 public:
  explicit RandomFactory(std::string name) : name_(std::move(name)) {}
  const std::string& Name() const override { return name_; }
  std::unique_ptr<search::Player> Make(uint64_t seed) const override {
    return std::make_unique<search::RandomPlayer>(seed);
  }

 private:
  std::string name_;
};

class AlphaBetaFactory final : public PlayerFactory {
 public:
  AlphaBetaFactory(std::string name, std::shared_ptr<const Heuristic> heuristic,
                   const search::AlphaBetaLimits& limits,
                   const search::AlphaBetaOptions& options)
      : name_(std::move(name)),
        heuristic_(std::move(heuristic)),
        limits_(limits),
        options_(options) {}
  const std::string& Name() const override { return name_; }
  std::unique_ptr<search::Player> Make(uint64_t seed) const override {
    return std::make_unique<search::AlphaBetaPlayer>(heuristic_, limits_,
                                                     options_, name_);
  }

 private:
  std::string name_;
  std::shared_ptr<const Heuristic> heuristic_;
  search::AlphaBetaLimits limits_;
  search::AlphaBetaOptions options_;
};

class UciFactory final : public PlayerFactory {
 public:
  UciFactory(UciSpec spec, const Game* game, UciContext context)
      : spec_(std::make_shared<const UciSpec>(std::move(spec))),
        game_(game),
        context_(std::move(context)) {}
  const std::string& Name() const override { return spec_->name; }
  std::unique_ptr<search::Player> Make(uint64_t seed) const override {
    return std::make_unique<UciPlayer>(spec_, game_, context_);
  }

 private:
  std::shared_ptr<const UciSpec> spec_;
  const Game* game_;  // outlives the factory
  UciContext context_;
};

class PolicyFactory final : public PlayerFactory {
 public:
  PolicyFactory(std::string name, std::shared_ptr<nn::Evaluator> evaluator,
                double temperature)
      : name_(std::move(name)),
        evaluator_(std::move(evaluator)),
        temperature_(temperature) {}
  const std::string& Name() const override { return name_; }
  std::unique_ptr<search::Player> Make(uint64_t seed) const override {
    return std::make_unique<search::PolicyPlayer>(evaluator_, temperature_,
                                                  seed, name_);
  }

 private:
  std::string name_;
  std::shared_ptr<nn::Evaluator> evaluator_;
  double temperature_;
};

class MctsFactory final : public PlayerFactory {
 public:
  MctsFactory(std::string name, std::shared_ptr<nn::Evaluator> evaluator,
              const Prover* prover, const Heuristic* heuristic,
              const search::SearchParams& params,
              const search::SearchLimits& limits)
      : name_(std::move(name)),
        evaluator_(std::move(evaluator)),
        prover_(prover),
        heuristic_(heuristic),
        params_(params),
        limits_(limits) {}
  const std::string& Name() const override { return name_; }
  std::unique_ptr<search::Player> Make(uint64_t seed) const override {
    return std::make_unique<search::MctsPlayer>(evaluator_, prover_, heuristic_,
                                                params_, limits_, seed, name_);
  }

 private:
  std::string name_;
  std::shared_ptr<nn::Evaluator> evaluator_;
  // The game's, valid for the program's life; may be null.
  const Prover* prover_;
  const Heuristic* heuristic_;
  search::SearchParams params_;
  search::SearchLimits limits_;
};

// net=random is the uniform evaluator; any other value (a file, or "auto",
// the default: the game's bundled net) goes through `evaluators`.
absl::StatusOr<std::shared_ptr<nn::Evaluator>> LoadNet(
    std::string_view kind, const Options& options, const Game& game,
    const nn::EvaluatorFactory& evaluators) {
  std::string net = "auto";
  for (const auto& [key, value] : options) {
    if (key == "net") net = value;
  }
  if (net == "random") return std::make_shared<nn::UniformEvaluator>();
  if (!evaluators) {
    return absl::InvalidArgumentError(
        Cat("player ", kind, ": cannot load networks here (net=", net,
            "); use net=random"));
  }
  return evaluators(net, game);
}

}  // namespace

std::string PlayerSpecHelp() {
  return "  random                      uniformly random legal moves\n"
         "  alphabeta:depth=D           alpha-beta baseline to depth D "
         "plies\n"
         "  alphabeta:movetime=MS       ... or for MS milliseconds per move\n"
         "      (also nodes=N, hash=MB (16), qdepth=N quiescence plies (8))\n"
         "  policy:net=FILE|auto|random the net's policy without search\n"
         "      (temp=T: sample prior^(1/T); default 0 = most likely move)\n"
         "  mcts:net=FILE|auto|random,visits=N   MCTS with the net, N root "
         "visits\n"
         "      (without net=: the command's --net, by default auto, the "
         "game's bundled net)\n"
         "      (also nodes=N playouts, movetime=MS, root=puct|gumbel "
         "(Gumbel AlphaZero's\n"
         "       root search, deterministic), and any search parameter, "
         "e.g. cpuct_init=2.0)\n"
         "  uci:cmd=PATH,arg=A,arg=B,option.NAME=VALUE   an outside engine "
         "speaking\n"
         "      volkhv engine's protocol (also nodes=N, movetime=MS, depth=D "
         "sent with go;\n"
         "      timeout=MS (10000) for its start and, without a clock, past "
         "movetime)\n"
         "  any kind: name=LABEL for tables and game files, tc=CLOCK its own "
         "time control\n";
}

namespace {

// A spec split into its kind, its KEY=VALUE options and its name.
struct SplitSpec {
  std::string kind;
  Options options;
  std::string name;
  std::optional<ClockSpec> clock;  // tc=, taken out of options
};

absl::StatusOr<SplitSpec> SplitPlayerSpec(std::string_view spec) {
  spec = Trim(spec);
  const size_t colon = spec.find(':');
  SplitSpec split;
  split.kind = std::string(Trim(spec.substr(0, colon)));
  const std::string& kind = split.kind;
  if (colon != std::string_view::npos) {
    for (std::string_view item : Split(spec.substr(colon + 1), ",", true)) {
      item = Trim(item);
      const size_t eq = item.find('=');
      if (eq == std::string_view::npos) {
        return absl::InvalidArgumentError(
            Cat("player ", kind, ": expected key=value, got '", item, "'"));
      }
      split.options.emplace_back(std::string(Trim(item.substr(0, eq))),
                                 std::string(Trim(item.substr(eq + 1))));
    }
  }
  split.name = std::string(spec);
  for (const auto& [key, value] : split.options) {
    if (key == "name") {
      if (value.empty()) {
        return absl::InvalidArgumentError(
            Cat("player ", kind, ": name must not be empty"));
      }
      split.name = value;
    }
  }
  Options rest;
  for (const auto& [key, value] : split.options) {
    if (key != "tc") {
      rest.emplace_back(key, value);
      continue;
    }
    absl::StatusOr<ClockSpec> clock = ParseClockSpec(value);
    if (!clock.ok()) {
      return absl::InvalidArgumentError(
          Cat("player ", kind, ": tc: ", clock.status().message()));
    }
    split.clock = *clock;
  }
  split.options = std::move(rest);
  return split;
}

absl::Status UnknownKey(std::string_view kind, const std::string& key,
                        std::string_view known) {
  return absl::InvalidArgumentError(
      Cat("player ", kind, ": unknown key '", key, "' (known: ", known, ")"));
}

// The alphabeta kind's options.
absl::StatusOr<AlphaBetaSpec> AlphaBetaOf(const SplitSpec& split,
                                          bool clocked) {
  const std::string_view kind = split.kind;
  AlphaBetaSpec ab;
  ab.name = split.name;
  search::AlphaBetaLimits& limits = ab.limits;
  for (const auto& [key, value] : split.options) {
    if (key == "name") continue;
    if (key == "depth") {
      absl::StatusOr<int64_t> x = ParseInt(kind, key, value, 1, 60);
      if (!x.ok()) return x.status();
      limits.depth = static_cast<int>(*x);
    } else if (key == "movetime") {
      absl::StatusOr<int64_t> x = ParseInt(kind, key, value, 1, 1 << 30);
      if (!x.ok()) return x.status();
      limits.time_ms = *x;
    } else if (key == "nodes") {
      absl::StatusOr<int64_t> x =
          ParseInt(kind, key, value, 1, int64_t{1} << 50);
      if (!x.ok()) return x.status();
      limits.nodes = static_cast<uint64_t>(*x);
    } else if (key == "hash") {
      absl::StatusOr<int64_t> x = ParseInt(kind, key, value, 1, 65536);
      if (!x.ok()) return x.status();
      ab.options.hash_mb = static_cast<int>(*x);
    } else if (key == "qdepth") {
      absl::StatusOr<int64_t> x = ParseInt(kind, key, value, 0, 64);
      if (!x.ok()) return x.status();
      ab.options.quiescence_plies = static_cast<int>(*x);
    } else {
      return UnknownKey(kind, key,
                        "depth, movetime, nodes, hash, qdepth, name");
    }
  }
  if (limits.depth == 0 && limits.time_ms == 0 && limits.nodes == 0 &&
      !clocked) {
    return absl::InvalidArgumentError(
        "player alphabeta: give depth=D, movetime=MS, nodes=N or a clock "
        "(tc=, --tc)");
  }
  return ab;
}

}  // namespace

absl::StatusOr<AlphaBetaSpec> ParseAlphaBetaSpec(std::string_view spec) {
  absl::StatusOr<SplitSpec> split = SplitPlayerSpec(spec);
  if (!split.ok()) return split.status();
  if (split->kind != "alphabeta") {
    return absl::InvalidArgumentError(
        Cat("player ", split->kind, ": expected alphabeta:KEY=VALUE,..."));
  }
  if (split->clock) {
    return absl::InvalidArgumentError(
        "player alphabeta: tc= is for matches; the engine takes its clock "
        "from go");
  }
  return AlphaBetaOf(*split, /*clocked=*/false);
}

namespace {

absl::StatusOr<std::shared_ptr<PlayerFactory>> MakeUnclockedFactory(
    const SplitSpec& split_spec, const Game& game,
    const nn::EvaluatorFactory& evaluators, const PlayerContext& context,
    bool clocked) {
  const SplitSpec* split = &split_spec;
  const std::string& kind = split->kind;
  const Options& options = split->options;
  const std::string& name = split->name;
  auto unknown = [&kind](const std::string& key, std::string_view known) {
    return UnknownKey(kind, key, known);
  };

  if (kind == "random") {
    for (const auto& [key, value] : options) {
      if (key != "name") return unknown(key, "name");
    }
    return std::make_shared<RandomFactory>(name);
  }

  if (kind == "alphabeta") {
    absl::StatusOr<AlphaBetaSpec> ab = AlphaBetaOf(*split, clocked);
    if (!ab.ok()) return ab.status();
    absl::StatusOr<std::unique_ptr<Heuristic>> heuristic =
        MakeHeuristic(game.Info());
    if (!heuristic.ok()) return heuristic.status();
    return std::make_shared<AlphaBetaFactory>(
        name, std::shared_ptr<const Heuristic>(std::move(*heuristic)),
        ab->limits, ab->options);
  }

  if (kind == "policy") {
    double temperature = 0;
    for (const auto& [key, value] : options) {
      if (key == "name" || key == "net") continue;
      if (key == "temp") {
        absl::StatusOr<double> x = ParseDouble(kind, key, value, 0, 100);
        if (!x.ok()) return x.status();
        temperature = *x;
      } else {
        return unknown(key, "net, temp, name");
      }
    }
    absl::StatusOr<std::shared_ptr<nn::Evaluator>> evaluator =
        LoadNet(kind, options, game, evaluators);
    if (!evaluator.ok()) return evaluator.status();
    return std::make_shared<PolicyFactory>(name, *std::move(evaluator),
                                           temperature);
  }

  if (kind == "mcts") {
    search::SearchParams params;
    search::SearchLimits limits;
    for (const auto& [key, value] : options) {
      if (key == "name" || key == "net") continue;
      if (key == "visits") {
        absl::StatusOr<int64_t> x = ParseInt(kind, key, value, 1, 1 << 30);
        if (!x.ok()) return x.status();
        limits.visits = static_cast<uint64_t>(*x);
      } else if (key == "nodes") {
        absl::StatusOr<int64_t> x = ParseInt(kind, key, value, 1, 1 << 30);
        if (!x.ok()) return x.status();
        limits.nodes = static_cast<uint64_t>(*x);
      } else if (key == "movetime") {
        absl::StatusOr<int64_t> x = ParseInt(kind, key, value, 1, 1 << 30);
        if (!x.ok()) return x.status();
        limits.time_ms = *x;
      } else if (key == "root") {
        if (value != "puct" && value != "gumbel") {
          return absl::InvalidArgumentError(
              Cat("player mcts: root: '", value, "' is not puct or gumbel"));
        }
        params.gumbel = value == "gumbel";
      } else if (absl::Status s = search::SetSearchParam(&params, key, value);
                 !s.ok()) {
        return absl::InvalidArgumentError(
            Cat("player mcts: ", s.message(),
                " (known besides search parameters: net, visits, nodes, "
                "movetime, root, name)"));
      }
    }
    if (limits.visits == 0 && limits.nodes == 0 && limits.time_ms == 0 &&
        !clocked) {
      return absl::InvalidArgumentError(
          "player mcts: give visits=N, nodes=N, movetime=MS or a clock (tc=, "
          "--tc)");
    }
    absl::StatusOr<std::shared_ptr<nn::Evaluator>> evaluator =
        LoadNet(kind, options, game, evaluators);
    if (!evaluator.ok()) return evaluator.status();
    return std::make_shared<MctsFactory>(name, *std::move(evaluator),
                                         GameProver(game), GameHeuristic(game),
                                         params, limits);
  }

  if (kind == "uci") {
    absl::StatusOr<UciSpec> uci = ParseUciSpec(name, options);
    if (!uci.ok()) return uci.status();
    if (uci->nodes == 0 && uci->movetime_ms == 0 && uci->depth == 0 &&
        !clocked) {
      return absl::InvalidArgumentError(
          "player uci: give nodes=N, movetime=MS, depth=D or a clock (tc=, "
          "--tc)");
    }
    return std::make_shared<UciFactory>(*std::move(uci), &game, context.uci);
  }

  return absl::InvalidArgumentError(
      Cat("unknown player kind '", kind,
          "' (known: random, alphabeta, policy, mcts, uci)"));
}

}  // namespace

absl::StatusOr<std::shared_ptr<PlayerFactory>> MakePlayerFactory(
    std::string_view spec, const Game& game,
    const nn::EvaluatorFactory& evaluators, const PlayerContext& context) {
  absl::StatusOr<SplitSpec> split = SplitPlayerSpec(spec);
  if (!split.ok()) return split.status();
  const bool clocked = context.match_clock || split->clock.has_value();
  absl::StatusOr<std::shared_ptr<PlayerFactory>> factory =
      MakeUnclockedFactory(*split, game, evaluators, context, clocked);
  if (factory.ok()) (*factory)->set_clock(split->clock);
  return factory;
}

}  // namespace volkhv::selfplay
