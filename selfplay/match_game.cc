#include "selfplay/match_game.h"

#include <chrono>
#include <string>
#include <utility>

#include "engine/games/games.h"
#include "engine/util/strings.h"
#include "selfplay/adjudication.h"
#include "selfplay/game_clock.h"

namespace volkhv::selfplay {

absl::StatusOr<std::unique_ptr<GameState>> StartState(const Game& game,
                                                      const Opening& opening) {
  std::unique_ptr<GameState> state;
  if (opening.position.empty()) {
    state = game.NewInitialState();
  } else {
    absl::StatusOr<std::unique_ptr<GameState>> parsed =
        game.NewStateFromText(opening.position);
    if (!parsed.ok()) return parsed.status();
    state = *std::move(parsed);
  }
  return state;
}

PlayedGame PlayGame(const Game& game, const Opening& opening,
                    search::Player* first, search::Player* second,
                    const std::optional<ClockSpec> clocks[2],
                    const MatchOptions& options,
                    const std::function<bool()>& halted) {
  PlayedGame played;
  GameFileRecord& record = played.record;
  std::unique_ptr<GameState> state = *StartState(game, opening);
  record.start_position = state->PositionText();
  record.second_to_move = state->SideToMove() == 1;
  GameOutcome& outcome = played.outcome;
  outcome.start_position = record.start_position;
  for (const std::string& text : opening.moves) {
    const Move m = *state->ParseMove(text);
    record.moves.push_back(state->MoveText(m));
    record.comments.emplace_back();
    outcome.moves.push_back(m);
    state->Play(m);
  }
  outcome.opening_plies = static_cast<int>(outcome.moves.size());
  // Clocks by player (0: the first); the sides to move follow the
  // position, which may start with the second player to move.
  std::optional<GameClock> clock[2];
  for (int p = 0; p < 2; ++p) {
    if (clocks[p]) clock[p].emplace(*clocks[p], options.time_margin_ms);
  }
  first->NewGame();
  second->NewGame();

  const Adjudication& adj = options.adjudication;
  Adjudicator adjudicator(adj);
  double first_score = 0.5;
  std::string termination;
  MoveList legal;
  // The player to move loses (a time forfeit or a failure).
  auto lose = [&](int mover, GameOutcome::End end, std::string name,
                  std::string detail) {
    first_score = mover == 0 ? 0 : 1;
    termination = std::move(name);
    outcome.detail = std::move(detail);
    outcome.end = end;
  };
  while (true) {
    const GameResult result = state->Result();
    if (result.IsOver()) {
      const int mover = state->SideToMove();
      if (result.outcome == Outcome::kWin) {
        first_score = mover == 0 ? 1 : 0;
      } else if (result.outcome == Outcome::kLoss) {
        first_score = mover == 0 ? 0 : 1;
      }
      termination = TerminationName(state->Info().name, result.termination);
      outcome.rules_termination = result.termination;
      break;
    }
    if (adj.max_plies > 0 && state->PliesPlayed() >= adj.max_plies) {
      termination = Cat("adjudication: ", adj.max_plies, " plies");
      outcome.end = GameOutcome::End::kMaxPlies;
      break;
    }
    if (halted()) {
      played.aborted = true;
      return played;
    }
    const int mover = state->SideToMove();
    search::Player* player = mover == 0 ? first : second;
    int64_t deadline_ms = 0;
    if (clock[mover]) {
      search::TimeControl control;
      for (int p = 0; p < 2; ++p) {
        if (!clock[p]) continue;
        control.time_left_ms[p] = clock[p]->time_left_ms();
        control.increment_ms[p] = clock[p]->increment_ms();
      }
      control.moves_to_go = clock[mover]->moves_to_go();
      deadline_ms = clock[mover]->deadline_ms();
      player->SetClock(control);
    }
    const auto start = std::chrono::steady_clock::now();
    const Move m = player->ChooseMove(*state);
    const int64_t elapsed_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::steady_clock::now() - start)
            .count();
    const std::string failure = player->LastFailure();
    if (!failure.empty() && halted()) {
      played.aborted = true;
      return played;
    }
    if (clock[mover]) {
      const int64_t left = clock[mover]->time_left_ms();
      if (!clock[mover]->Charge(elapsed_ms)) {
        lose(mover, GameOutcome::End::kTimeForfeit,
             TerminationName(state->Info().name, Termination::kTimeForfeit),
             Cat(player->Name(), " took ",
                 elapsed_ms >= deadline_ms ? Cat("more than ", deadline_ms)
                                           : Cat(elapsed_ms),
                 " ms with ", left, " ms left (margin ", options.time_margin_ms,
                 " ms)"));
        break;
      }
    }
    if (!failure.empty()) {
      lose(mover, GameOutcome::End::kForfeit,
           Cat("forfeit by ", player->Name()), failure);
      break;
    }
    legal.clear();
    state->LegalMoves(&legal);
    if (!legal.contains(m)) {
      first_score = mover == 0 ? 0 : 1;
      termination = Cat("illegal move by ", player->Name());
      outcome.end = GameOutcome::End::kIllegalMove;
      break;
    }
    const std::optional<search::PlayerEval> eval = player->LastEval();
    record.moves.push_back(state->MoveText(m));
    record.comments.push_back(options.comments && eval ? eval->Comment()
                                                       : std::string());
    outcome.moves.push_back(m);
    outcome.evals.push_back(eval);
    state->Play(m);
    if (std::optional<Verdict> verdict =
            adjudicator.AfterMove(mover, eval, state->PliesPlayed())) {
      first_score = verdict->first_score;
      switch (verdict->kind) {
        case Verdict::Kind::kScore:
          termination = Cat("adjudication: ", verdict->detail);
          outcome.end = GameOutcome::End::kScore;
          break;
        case Verdict::Kind::kDraw:
          termination =
              TerminationName(state->Info().name, Termination::kAdjudication);
          outcome.detail = verdict->detail;
          outcome.end = GameOutcome::End::kDraw;
          break;
        case Verdict::Kind::kResign:
          termination =
              TerminationName(state->Info().name, Termination::kResignation);
          outcome.detail = Cat(player->Name(), " resigns: ", verdict->detail);
          outcome.end = GameOutcome::End::kResignation;
          break;
      }
      break;
    }
  }
  record.result = ResultText(first_score);
  record.termination = termination;
  if (!outcome.detail.empty()) {
    record.extra_tags.emplace_back("TerminationDetails", outcome.detail);
  }
  outcome.first_score = first_score;
  outcome.plies = static_cast<int>(record.moves.size());
  outcome.termination = termination;
  outcome.move_texts = record.moves;
  return played;
}

}  // namespace volkhv::selfplay
