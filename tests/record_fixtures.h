// Game records for the record tests (tests/records_test.cc,
// tests/relabel_test.cc): legal games of chosen moves with fixed targets.
#ifndef VOLKHV_TESTS_RECORD_FIXTURES_H_
#define VOLKHV_TESTS_RECORD_FIXTURES_H_

#include <algorithm>
#include <memory>
#include <string>

#include "engine/game/result.h"
#include "engine/games/games.h"
#include "engine/records/vrec_io.h"
#include "proto/game_record.pb.h"

namespace volkhv::testing {

// A legal game of `plies` plies (fewer if it ends first): at ply i the
// legal move number (stride * i + offset) modulo their count. Each ply
// records three moves with 10, 11 and 12 visits and the root WDL
// 0.5/0.2/0.3; the game is a draw by the maximum length.
inline proto::GameRecord PlayedRecord(const std::string& game_name, int plies,
                                      int stride = 1, int offset = 0) {
  auto game = MakeGame(game_name);
  std::unique_ptr<GameState> state = (*game)->NewInitialState();
  proto::GameRecord record;
  record.set_game(game_name);
  record.set_start_position(state->PositionText());
  MoveList moves;
  for (int i = 0; i < plies && !state->Result().IsOver(); ++i) {
    state->LegalMoves(&moves);
    const Move m = moves[(stride * i + offset) % moves.size()];
    proto::PlyRecord* ply = record.add_plies();
    ply->set_move(PackMove(m));
    ply->set_move_text(state->MoveText(m));
    for (int j = 0; j < std::min(3, moves.size()); ++j) {
      proto::MoveVisits* v = ply->add_visits();
      v->set_move(PackMove(moves[j]));
      v->set_visits(10 + j);
    }
    for (float x : {0.5f, 0.2f, 0.3f}) ply->add_root_wdl(x);
    state->Play(m);
  }
  record.set_winner(proto::GameRecord::DRAW);
  record.set_termination(TerminationCode(Termination::kMaxLength));
  return record;
}

}  // namespace volkhv::testing

#endif  // VOLKHV_TESTS_RECORD_FIXTURES_H_
