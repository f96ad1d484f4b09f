#include "selfplay/match_tally.h"

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/str_join.h"
#include "engine/util/strings.h"

namespace volkhv::selfplay {
namespace {

// Why the games of rounds 2k-1 and 2k of a file are not a pair, or "".
std::string NotAPair(const FinishedGame& x, const FinishedGame& y) {
  if (x.first_player != y.second_player || x.second_player != y.first_player) {
    return Cat(x.first_player, " vs ", x.second_player, ", then ",
               y.first_player, " vs ", y.second_player,
               ": not the same two players with colours swapped");
  }
  if (x.start_position != y.start_position) {
    return Cat("they start from different positions (", x.start_position,
               " and ", y.start_position, ")");
  }
  return "";
}

}  // namespace

absl::StatusOr<MatchReport> TallyGames(const std::string& game,
                                       const std::vector<PlayedGames>& files,
                                       const TallyOptions& options) {
  MatchReport report;
  report.tally = true;
  report.pentanomial = options.pentanomial;
  report.sprt_params = options.sprt;
  std::map<std::string, int> player_index;
  auto index_of = [&](const std::string& name) {
    const auto [it, added] =
        player_index.emplace(name, static_cast<int>(report.players.size()));
    if (added) report.players.push_back(name);
    return it->second;
  };
  if (!options.player.empty()) index_of(options.player);
  std::map<std::pair<int, int>, int> pairing_index;  // (a, b) -> pairings[]
  bool player_played = options.player.empty();

  for (const PlayedGames& file : files) {
    std::vector<const FinishedGame*> games;
    for (const FinishedGame& g : file.games) games.push_back(&g);
    std::sort(games.begin(), games.end(),
              [](const FinishedGame* x, const FinishedGame* y) {
                return x->round < y->round;
              });
    for (size_t i = 0; i < games.size(); ++i) {
      const FinishedGame& g = *games[i];
      const std::string where = Cat(file.file, ": the game of round ", g.round);
      if (i > 0 && games[i - 1]->round == g.round) {
        return absl::InvalidArgumentError(Cat(where, " is there twice"));
      }
      if (g.first_player == g.second_player) {
        return absl::InvalidArgumentError(
            Cat(where, " has '", g.first_player, "' on both sides"));
      }
      const int first = index_of(g.first_player);
      const int second = index_of(g.second_player);
      if (first == 0 || second == 0) player_played = true;
      const std::pair<int, int> key(std::min(first, second),
                                    std::max(first, second));
      auto [it, added] =
          pairing_index.emplace(key, static_cast<int>(report.pairings.size()));
      if (added) {
        PairingStats stats;
        stats.a = key.first;
        stats.b = key.second;
        report.pairings.push_back(stats);
      }
      PairingStats& stats = report.pairings[it->second];
      const double a_score =
          first == stats.a ? g.first_score : 1 - g.first_score;
      stats.CountGame(a_score, g.first_score);
      // Round 2k closes the pair that round 2k-1 opened.
      if (g.round % 2 == 0 && i > 0 && games[i - 1]->round == g.round - 1) {
        const FinishedGame& opener = *games[i - 1];
        if (const std::string why = NotAPair(opener, g); !why.empty()) {
          return absl::InvalidArgumentError(Cat(file.file, ": rounds ",
                                                opener.round, " and ", g.round,
                                                " are not a pair: ", why));
        }
        const double opener_a_score =
            first == stats.a ? 1 - opener.first_score : opener.first_score;
        ++stats.pairs[PairIndex(opener_a_score, a_score)];
      }
      GameOutcome outcome;
      outcome.round = g.round;
      outcome.pair = (g.round - 1) / 2;
      outcome.pairing = it->second;
      outcome.first = first;
      outcome.second = second;
      outcome.first_score = g.first_score;
      outcome.plies = static_cast<int>(g.moves.size());
      outcome.termination = g.termination;
      outcome.detail = g.detail;
      outcome.resumed = true;
      SetEndFromTermination(game, &outcome);
      outcome.start_position = g.start_position;
      report.games.push_back(std::move(outcome));
    }
  }
  if (report.games.empty()) {
    return absl::InvalidArgumentError("no finished games in the game files");
  }
  if (!player_played) {
    return absl::InvalidArgumentError(Cat(
        "no game of '", options.player, "' in the game files; they hold ",
        absl::StrJoin(report.players.begin() + 1, report.players.end(), ", ")));
  }
  report.games_scheduled = static_cast<int>(report.games.size());
  report.games_resumed = report.games_scheduled;
  if (options.sprt) {
    if (report.players.size() != 2) {
      return absl::InvalidArgumentError(Cat(
          "the SPRT needs the games of exactly two players; the game "
          "files hold ",
          report.players.size(), ": ", absl::StrJoin(report.players, ", ")));
    }
    report.sprt = options.pentanomial
                      ? EvaluateSprt(*options.sprt, report.pairings[0].pairs)
                      : EvaluateSprt(*options.sprt, report.pairings[0].counts);
  }
  return report;
}

}  // namespace volkhv::selfplay
