// `volkhv records show FILE`, `volkhv records stats DIR|FILE` and
// `volkhv records relabel IN OUT` (value targets from alpha-beta).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>

#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "cli/game_setup.h"
#include "engine/records/game_file_writer.h"
#include "engine/records/vrec_io.h"
#include "engine/util/strings.h"
#include "selfplay/relabel.h"

namespace volkhv::cli {
namespace {

std::string ResultOf(const proto::GameRecord& record) {
  switch (record.winner()) {
    case proto::GameRecord::FIRST_PLAYER:
      return "1-0";
    case proto::GameRecord::SECOND_PLAYER:
      return "0-1";
    case proto::GameRecord::DRAW:
      return "1/2-1/2";
    default:
      return "*";
  }
}

// "{W 0.41 D 0.33 L 0.26, 200 visits, full}"
std::string PlyComment(const proto::PlyRecord& ply) {
  if (ply.root_wdl_size() != 3) return "";
  return absl::StrFormat("W %.2f D %.2f L %.2f, %d visits%s", ply.root_wdl(0),
                         ply.root_wdl(1), ply.root_wdl(2), ply.root_visits(),
                         ply.full_search() ? "" : ", cheap");
}

GameFileRecord ToGameFile(const proto::GameRecord& record,
                          const GameState& start, bool comments) {
  GameFileRecord out;
  out.event = record.engine().empty() ? "volkhv" : record.engine();
  out.game = record.game();
  out.variant =
      record.game_options().empty() ? "standard" : record.game_options();
  out.first_title = SideTitle(start.Info().first_player_name);
  out.second_title = SideTitle(start.Info().second_player_name);
  out.first_player = out.second_player =
      Cat("volkhv generation ", record.net_generation());
  out.result = ResultOf(record);
  out.termination = TerminationNameOf(record);
  out.start_position = start.PositionText();
  out.second_to_move = start.SideToMove() == 1;
  for (const proto::PlyRecord& ply : record.plies()) {
    out.moves.push_back(ply.move_text());
    out.comments.push_back(comments ? PlyComment(ply) : "");
  }
  if (!record.created().empty()) {
    out.date = record.created().substr(0, 10);
    for (char& c : out.date) {
      if (c == '-') c = '.';
    }
  }
  return out;
}

int Show(const std::vector<std::string>& args) {
  std::vector<OptionSpec> specs = {
      {"index", "N", "", "show only game N (1-based)"},
      {"evals", "", "", "add each ply's root WDL and visits as comments"},
      {"help", "", "", "print this help"}};
  absl::StatusOr<CommandLine> cl = CommandLine::Parse(args, specs, 1);
  if (!cl.ok()) return Fail("records show", cl.status(), kExitUsage);
  if (cl->Flag("help") || cl->positional().size() != 1) {
    std::cout << "usage: volkhv records show FILE [--index N] [--evals]\n"
              << OptionsHelp(specs);
    return cl->Flag("help") ? kExitOk : kExitUsage;
  }
  absl::StatusOr<std::vector<proto::GameRecord>> games =
      ReadGameRecords(cl->positional()[0]);
  if (!games.ok())
    return Fail("records show", games.status(), kExitInvalidInput);
  int first = 0;
  int last = static_cast<int>(games->size());
  if (cl->Given("index")) {
    absl::StatusOr<int> index =
        cl->GetInt("index", 1, std::max<int>(1, games->size()));
    if (!index.ok()) return Fail("records show", index.status(), kExitUsage);
    first = *index - 1;
    last = *index;
  }
  for (int i = first; i < last && i < static_cast<int>(games->size()); ++i) {
    absl::StatusOr<std::unique_ptr<GameState>> start =
        RecordStartState((*games)[i]);
    if (!start.ok()) {
      return Fail("records show",
                  absl::InvalidArgumentError(
                      Cat("game ", i + 1, ": ", start.status().message())),
                  kExitInvalidInput);
    }
    std::cout << FormatGameFile(
        ToGameFile((*games)[i], **start, cl->Flag("evals")));
  }
  return kExitOk;
}

int Stats(const std::vector<std::string>& args) {
  std::vector<OptionSpec> specs = {{"help", "", "", "print this help"}};
  absl::StatusOr<CommandLine> cl = CommandLine::Parse(args, specs, 1);
  if (!cl.ok()) return Fail("records stats", cl.status(), kExitUsage);
  if (cl->Flag("help") || cl->positional().size() != 1) {
    std::cout << "usage: volkhv records stats DIR|FILE\n" << OptionsHelp(specs);
    return cl->Flag("help") ? kExitOk : kExitUsage;
  }
  // A directory of record files (a run's games/), or one file (`match
  // --records-out`).
  const std::string& path = cl->positional()[0];
  absl::StatusOr<DirectoryRead> read;
  if (std::error_code error; std::filesystem::is_directory(path, error)) {
    read = ReadRecordDirectory(
        path, [](const std::string& warning) { std::cerr << warning << "\n"; });
  } else if (absl::StatusOr<std::vector<proto::GameRecord>> games =
                 ReadGameRecords(path);
             games.ok()) {
    read = DirectoryRead{*std::move(games), 1, 0};
  } else {
    read = games.status();
  }
  if (!read.ok())
    return Fail("records stats", read.status(), kExitInvalidInput);
  std::map<std::string, int> games_by_kind, results, terminations;
  std::map<int, int64_t> heights;  // stack height -> stacks seen
  int64_t plies = 0, full_plies = 0, bad_games = 0;
  // How well the recorded root values predict the games' results.
  int64_t valued = 0;
  double squared_error = 0, cross_entropy = 0;
  for (const proto::GameRecord& g : read->games) {
    ++games_by_kind[g.game()];
    ++results[std::string(WinnerName(g.winner()))];
    ++terminations[TerminationNameOf(g)];
    plies += g.plies_size();
    for (const proto::PlyRecord& p : g.plies()) full_plies += p.full_search();
    const absl::Status replay =
        ReplayRecord(g, [&](const GameState& state, int ply) {
          if (ply < g.plies_size() && g.plies(ply).full_search() &&
              g.plies(ply).root_wdl_size() == 3 &&
              g.winner() != proto::GameRecord::UNDECIDED) {
            const proto::PlyRecord& p = g.plies(ply);
            const int z = g.winner() == proto::GameRecord::DRAW ? 0
                          : (g.winner() == proto::GameRecord::FIRST_PLAYER) ==
                                  (state.SideToMove() == 0)
                              ? 1
                              : -1;
            const double q = p.root_wdl(0) - p.root_wdl(2);
            squared_error += (q - z) * (q - z);
            cross_entropy -=
                std::log(std::max(1e-6f, p.root_wdl(z == 1   ? 0
                                                    : z == 0 ? 1
                                                             : 2)));
            ++valued;
          }
          const GameInfo& info = state.Info();
          for (int s = 0; s < info.board_width * info.board_height; ++s) {
            if (const int h = state.PiecesOn(s)) ++heights[h];
          }
        });
    if (!replay.ok()) ++bad_games;
  }
  const size_t n = read->games.size();
  std::cout << "files: " << read->files_read << " read, " << read->files_skipped
            << " skipped\n"
            << "games: " << n;
  for (const auto& [kind, count] : games_by_kind) {
    std::cout << " (" << kind << " " << count << ")";
  }
  std::cout << "\nplies: " << plies
            << absl::StrFormat(" (%.1f per game, %.1f%% full searches)\n",
                               n ? static_cast<double>(plies) / n : 0.0,
                               plies ? 100.0 * full_plies / plies : 0.0)
            << "results:";
  for (const auto& [name, count] : results) {
    std::cout << absl::StrFormat(" %s %d (%.1f%%)", name, count,
                                 100.0 * count / std::max<size_t>(n, 1));
  }
  std::cout << "\nendings:";
  for (const auto& [name, count] : terminations) {
    std::cout << " " << name << " " << count << ";";
  }
  if (valued) {
    std::cout << absl::StrFormat(
        "\nroot values against the results (%d full searches): W - L mean "
        "squared error %.4f, WDL cross-entropy %.4f",
        valued, squared_error / valued, cross_entropy / valued);
  }
  int64_t stacks = 0;
  for (const auto& [h, count] : heights) stacks += count;
  std::cout << "\nstack heights over all positions (height: share of "
               "occupied squares):\n";
  for (const auto& [h, count] : heights) {
    std::cout << absl::StrFormat("  %2d: %8.4f%%\n", h,
                                 100.0 * count / std::max<int64_t>(stacks, 1));
  }
  if (bad_games) {
    std::cout << "games that do not replay legally: " << bad_games << "\n";
  }
  return bad_games ? kExitInvalidInput : kExitOk;
}

constexpr char kRelabelUsage[] =
    "usage: volkhv records relabel IN OUT [--depth D] [--scale CP] [--mix M] "
    "[--policy-mix P] [--threads N]\n";

int Relabel(const std::vector<std::string>& args) {
  std::vector<OptionSpec> specs = {
      {"depth", "D", "3", "alpha-beta plies searched per position, [1, 16]"},
      {"scale", "CP", "300",
       "centipawns that map to tanh(1) = 0.76 in W - L (the search's "
       "leaf_quiescence_scale)"},
      {"mix", "M", "1",
       "share of the new root WDL taken from alpha-beta; the rest keeps the "
       "recorded search's, [0, 1] (0: values stay as they are)"},
      {"policy-mix", "P", "0",
       "share of the policy target given to alpha-beta's best move; the rest "
       "keeps the recorded target, [0, 1)"},
      {"hash", "MB", "16", "transposition table per thread"},
      {"qdepth", "N", "8", "quiescence plies past the horizon"},
      {"threads", "N", "1", "files relabelled at once"},
      {"help", "", "", "print this help"}};
  absl::StatusOr<CommandLine> cl = CommandLine::Parse(args, specs, 2);
  if (!cl.ok()) return Fail("records relabel", cl.status(), kExitUsage);
  if (cl->Flag("help") || cl->positional().size() != 2) {
    std::cout << kRelabelUsage
              << "Gives every training position of the record files in IN "
                 "(a directory or one file)\nthe score of an alpha-beta "
                 "search as its root WDL, which `volkhv train` blends\nwith "
                 "the result by search_value_weight; writes the files under "
                 "the same names\nto OUT, and with --policy-mix gives the "
                 "search's best move a share of\nthe policy target. Files "
                 "already in OUT are skipped, so running it again\ncontinues.\n"
              << OptionsHelp(specs);
    return cl->Flag("help") ? kExitOk : kExitUsage;
  }
  selfplay::RelabelOptions options;
  absl::StatusOr<int> depth = cl->GetInt("depth", 1, 16);
  absl::StatusOr<double> scale = cl->GetDouble("scale", 1, 1e5);
  absl::StatusOr<double> mix = cl->GetDouble("mix", 0, 1);
  absl::StatusOr<double> policy_mix = cl->GetDouble("policy-mix", 0, 1);
  absl::StatusOr<int> hash = cl->GetInt("hash", 1, 4096);
  absl::StatusOr<int> qdepth = cl->GetInt("qdepth", 0, 64);
  absl::StatusOr<int> threads = cl->GetInt("threads", 1, 256);
  for (const absl::Status& s :
       {depth.status(), scale.status(), mix.status(), policy_mix.status(),
        hash.status(), qdepth.status(), threads.status()}) {
    if (!s.ok()) return Fail("records relabel", s, kExitUsage);
  }
  options.depth = *depth;
  options.scale = *scale;
  options.mix = *mix;
  options.policy_mix = *policy_mix;
  options.search.hash_mb = *hash;
  options.search.quiescence_plies = *qdepth;
  if (absl::Status s = options.Validate(); !s.ok()) {
    return Fail("records relabel", s, kExitUsage);
  }
  const auto start = std::chrono::steady_clock::now();
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         start)
        .count();
  };
  absl::StatusOr<selfplay::RelabelCounts> total = selfplay::RelabelRecords(
      options, cl->positional()[0], cl->positional()[1], *threads,
      [&](const std::string& file, const selfplay::RelabelCounts& counts) {
        std::cerr << absl::StrFormat(
            "%s: %d games, %d positions, %d proven (%.0f s)\n", file,
            counts.games, counts.positions, counts.proven, seconds());
      });
  if (!total.ok()) {
    return Fail("records relabel", total.status(), kExitInvalidInput);
  }
  std::cout << absl::StrFormat(
      "relabelled %d games, %d positions (%d proven), %.0f nodes a position, "
      "%.1f s; %s%s\n",
      total->games, total->positions, total->proven,
      total->positions ? static_cast<double>(total->nodes) / total->positions
                       : 0.0,
      seconds(), options.mix > 0 ? options.Summary() : "",
      options.policy_mix > 0
          ? Cat(options.mix > 0 ? "; " : "", options.PolicySummary())
          : "");
  return kExitOk;
}

}  // namespace

int RunRecords(const std::vector<std::string>& args) {
  const std::vector<std::string> rest(args.begin() + (args.empty() ? 0 : 1),
                                      args.end());
  if (!args.empty() && args[0] == "show") return Show(rest);
  if (!args.empty() && args[0] == "stats") return Stats(rest);
  if (!args.empty() && args[0] == "relabel") return Relabel(rest);
  std::cerr << "usage: volkhv records show FILE [--index N] [--evals]\n"
               "       volkhv records stats DIR|FILE\n"
               "       volkhv records relabel IN OUT [--depth D] [--scale CP] "
               "[--mix M] [--policy-mix P] [--threads N]\n";
  return args.size() == 1 && args[0] == "--help" ? kExitOk : kExitUsage;
}

}  // namespace volkhv::cli
