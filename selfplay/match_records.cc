#include "selfplay/match_records.h"

#include <string>

#include "absl/status/status.h"
#include "engine/game/result.h"
#include "engine/records/vrec_io.h"
#include "engine/search/centipawns.h"
#include "engine/util/strings.h"
#include "engine/util/time.h"

namespace volkhv::selfplay {
namespace {

int TerminationCodeOf(const GameOutcome& g) {
  switch (g.end) {
    case GameOutcome::End::kRules:
      return TerminationCode(g.rules_termination);
    case GameOutcome::End::kMaxPlies:
      return TerminationCode(Termination::kMaxLength);
    case GameOutcome::End::kScore:
    case GameOutcome::End::kResignation:
      return TerminationCode(Termination::kResignation);
    case GameOutcome::End::kIllegalMove:
      return TerminationCode(Termination::kNone);
    case GameOutcome::End::kTimeForfeit:
      return TerminationCode(Termination::kTimeForfeit);
    case GameOutcome::End::kForfeit:
    case GameOutcome::End::kDraw:
      return TerminationCode(Termination::kAdjudication);
  }
  return TerminationCode(Termination::kNone);
}

// The expected result W - L of an evaluation, for the side that moved.
double EvalQ(const search::PlayerEval& eval) {
  if (eval.mate_plies != 0) return eval.mate_plies > 0 ? 1.0 : -1.0;
  return search::QFromCentipawns(eval.score_cp);
}

}  // namespace

absl::StatusOr<MatchRecordTargets> ParseMatchRecordTargets(
    std::string_view text) {
  if (text == "none") return MatchRecordTargets::kNone;
  if (text == "played") return MatchRecordTargets::kPlayed;
  return absl::InvalidArgumentError(
      Cat("'", text, "' is not a kind of record target (none, played)"));
}

std::vector<proto::GameRecord> MatchRecords(const MatchReport& report,
                                            const Game& game,
                                            const MatchOptions& options,
                                            MatchRecordTargets targets) {
  std::vector<proto::GameRecord> records;
  const std::string created = UtcTimestamp();
  for (const GameOutcome& g : report.games) {
    proto::GameRecord& r = records.emplace_back();
    r.set_game(game.Info().name);
    if (options.variant != "standard") r.set_game_options(options.variant);
    r.set_start_position(g.start_position);
    const bool trained = targets == MatchRecordTargets::kPlayed && !g.resumed;
    for (size_t i = 0; i < g.moves.size(); ++i) {
      proto::PlyRecord* ply = r.add_plies();
      const uint32_t move = PackMove(g.moves[i]);
      ply->set_move(move);
      ply->set_move_text(g.move_texts[i]);
      const int own = static_cast<int>(i) - g.opening_plies;
      if (!trained || own < 0) {
        ply->set_full_search(false);  // not a training target
        continue;
      }
      ply->set_full_search(true);
      proto::MoveVisits* target = ply->add_visits();
      target->set_move(move);
      target->set_visits(1);
      ply->set_best_move(move);
      ply->set_root_visits(1);
      if (own < static_cast<int>(g.evals.size()) && g.evals[own]) {
        const double q = EvalQ(*g.evals[own]);
        ply->add_root_wdl(static_cast<float>((1 + q) / 2));
        ply->add_root_wdl(0);
        ply->add_root_wdl(static_cast<float>((1 - q) / 2));
      }
    }
    r.set_winner(g.first_score > 0.75   ? proto::GameRecord::FIRST_PLAYER
                 : g.first_score < 0.25 ? proto::GameRecord::SECOND_PLAYER
                                        : proto::GameRecord::DRAW);
    r.set_termination(TerminationCodeOf(g));
    r.set_net_generation(-1);
    r.set_engine(Cat("volkhv match: ", report.players[g.first], " vs ",
                     report.players[g.second]));
    r.set_created(created);
  }
  return records;
}

}  // namespace volkhv::selfplay
