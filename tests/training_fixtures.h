// Training fixtures shared by tests/training_test.cc and
// tests/distributed_training_test.cc: a tiny random net and synthetic game
// records whose targets a net can learn.
#ifndef VOLKHV_TESTS_TRAINING_FIXTURES_H_
#define VOLKHV_TESTS_TRAINING_FIXTURES_H_

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "engine/game/encoder.h"
#include "engine/games/games.h"
#include "engine/records/vrec_io.h"
#include "engine/util/strings.h"
#include "gtest/gtest.h"
#include "nn/torch_weights.h"
#include "nn/weights_file.h"
#include "proto/game_record.pb.h"
#include "tests/game_fixtures.h"

namespace volkhv::testing {

// Writes a tiny random net (2 blocks x 16 filters) for `game_name`, with a
// moves-left head of that many filters (and 32 hidden units) when
// `moves_left_filters` is not 0 (the file's name then says so).
inline std::string WriteTinyNet(const std::string& dir,
                                const std::string& game_name,
                                int generation = 0,
                                int moves_left_filters = 0) {
  std::unique_ptr<Game> game = NewGame(game_name);
  std::unique_ptr<Encoder> encoder = EncoderFor(*game);
  proto::NetworkFile h;
  h.set_format_version(nn::kNetworkFileFormatVersion);
  h.set_game(game_name);
  h.set_input_format_version(encoder->FormatVersion());
  h.mutable_encoder()->set_stack_layers(EncoderOptions{}.stack_layers);
  proto::Architecture* a = h.mutable_architecture();
  a->set_blocks(2);
  a->set_filters(16);
  a->set_se_ratio(4);
  a->set_policy_head_filters(16);
  a->set_value_head_filters(4);
  a->set_value_hidden(32);
  if (moves_left_filters > 0) {
    a->set_moves_left_head_filters(moves_left_filters);
    a->set_moves_left_hidden(32);
  }
  nn::SetGeometry(*encoder, a);
  h.mutable_provenance()->set_generation(generation);
  h.mutable_provenance()->set_training_steps(0);
  h.mutable_provenance()->set_training_positions(0);
  absl::StatusOr<nn::NetworkWeights> w = nn::RandomNetworkWeights(h, 7);
  EXPECT_TRUE(w.ok()) << w.status();
  const std::string path =
      Cat(dir, "/net-", game_name, moves_left_filters > 0 ? "-moves-left" : "",
          ".net");
  EXPECT_TRUE(nn::WriteNetworkWeights(*w, path).ok());
  return path;
}

struct SyntheticOptions {
  int games = 8;
  int max_plies = 30;
  uint32_t seed = 1;
  proto::GameRecord::Winner winner = proto::GameRecord::FIRST_PLAYER;
  std::string tag = "synthetic";  // GameRecord.created prefix
  bool cheap_odd_plies = false;   // odd plies: full_search = false
};

// Random games whose visit distributions always prefer the first legal move
// (90 visits; 10 for the second), with a fixed result.
inline std::vector<proto::GameRecord> SyntheticGames(
    const std::string& game_name, const SyntheticOptions& o) {
  std::unique_ptr<Game> game = NewGame(game_name);
  std::mt19937 rng(o.seed);
  std::vector<proto::GameRecord> games;
  for (int g = 0; g < o.games; ++g) {
    proto::GameRecord record;
    record.set_game(game_name);
    record.set_winner(o.winner);
    record.set_created(Cat(o.tag, "-", g));
    std::unique_ptr<GameState> state = game->NewInitialState();
    MoveList legal;
    for (int p = 0; p < o.max_plies && !state->Result().IsOver(); ++p) {
      state->LegalMoves(&legal);
      if (legal.empty()) break;
      proto::PlyRecord* ply = record.add_plies();
      const Move move = legal[rng() % legal.size()];
      ply->set_move(PackMove(move));
      ply->set_move_text(state->MoveText(move));
      proto::MoveVisits* v = ply->add_visits();
      v->set_move(PackMove(legal[0]));
      v->set_visits(90);
      if (legal.size() > 1) {
        v = ply->add_visits();
        v->set_move(PackMove(legal[1]));
        v->set_visits(10);
      }
      ply->set_full_search(!(o.cheap_odd_plies && p % 2 == 1));
      state->Play(move);
    }
    games.push_back(std::move(record));
  }
  return games;
}

inline void WriteRecords(const std::string& path,
                         const std::vector<proto::GameRecord>& games) {
  absl::Status s = WriteGameRecords(path, games);
  ASSERT_TRUE(s.ok()) << s;
}

}  // namespace volkhv::testing

#endif  // VOLKHV_TESTS_TRAINING_FIXTURES_H_
