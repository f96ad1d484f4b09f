// Tavlei rules engine (tavlei9, tavlei11) against the rules page
// (shared/docs/tavlei-rules.md): perft, every capture rule on hand-made
// positions, wins and losses, repetition, make/undo, notation.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "engine/game/game.h"
#include "engine/game/move.h"
#include "engine/game/result.h"
#include "engine/game/square.h"
#include "engine/games/games.h"
#include "engine/tavlei/module.h"
#include "engine/tavlei/tavlei_game.h"
#include "engine/tavlei/tavlei_prover.h"
#include "engine/tavlei/tavlei_state.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace volkhv {
namespace {

using ::testing::HasSubstr;

constexpr char kTavlei9Start[] =
    "3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3 a 0";
constexpr char kTavlei11Start[] =
    "3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3 a "
    "0";

std::unique_ptr<Game> NewGame(std::string_view name,
                              const GameOptions& options = {}) {
  absl::StatusOr<std::unique_ptr<Game>> game = MakeTavleiGame(name, options);
  if (!game.ok()) {
    ADD_FAILURE() << game.status();
    std::abort();
  }
  return std::move(*game);
}

std::unique_ptr<GameState> NewState(const Game& game, std::string_view text) {
  absl::StatusOr<std::unique_ptr<GameState>> state =
      game.NewStateFromText(text);
  if (!state.ok()) {
    ADD_FAILURE() << state.status();
    std::abort();
  }
  return std::move(*state);
}

std::unique_ptr<GameState> NewState(std::string_view variant,
                                    std::string_view text,
                                    const GameOptions& options = {}) {
  return NewState(*NewGame(variant, options), text);
}

// Parses and plays a move; returns its canonical text (with captures).
std::string PlayText(GameState* state, std::string_view text) {
  absl::StatusOr<Move> move = state->ParseMove(text);
  if (!move.ok()) {
    ADD_FAILURE() << move.status();
    return "";
  }
  std::string written = state->MoveText(*move);
  state->Play(*move);
  return written;
}

std::string ParseError(const GameState& state, std::string_view text) {
  absl::StatusOr<Move> move = state.ParseMove(text);
  EXPECT_FALSE(move.ok()) << text << " parsed";
  return move.ok() ? "" : std::string(move.status().message());
}

std::string PositionError(std::string_view variant, std::string_view text) {
  absl::StatusOr<std::unique_ptr<GameState>> state =
      NewGame(variant)->NewStateFromText(text);
  EXPECT_FALSE(state.ok()) << text << " parsed";
  return state.ok() ? "" : std::string(state.status().message());
}

// Moves of one piece, as "from-to" texts.
std::vector<std::string> MovesFrom(const GameState& state,
                                   std::string_view from) {
  const int width = state.Info().board_width;
  MoveList moves;
  state.LegalMoves(&moves);
  std::vector<std::string> texts;
  for (Move move : moves) {
    if (SquareName(move.from, width) == from) {
      texts.push_back(SquareName(move.from, width) + "-" +
                      SquareName(move.to, width));
    }
  }
  return texts;
}

// Position text from a piece list like "Ke5 td1 Te3", built independently of
// the engine's writer.
std::string TextFromPieces(int width, std::string_view pieces, char side) {
  std::vector<char> board(width * width, 0);
  for (size_t i = 0; i < pieces.size();) {
    if (pieces[i] == ' ') {
      ++i;
      continue;
    }
    const size_t end = std::min(pieces.find(' ', i), pieces.size());
    std::optional<int> sq =
        ParseSquare(pieces.substr(i + 1, end - i - 1), width, width);
    EXPECT_TRUE(sq.has_value()) << pieces.substr(i, end - i);
    board[*sq] = pieces[i];
    i = end;
  }
  std::string text;
  for (int rank = width - 1; rank >= 0; --rank) {
    int run = 0;
    for (int file = 0; file < width; ++file) {
      const char piece = board[rank * width + file];
      if (piece == 0) {
        ++run;
        continue;
      }
      if (run > 0) text += std::to_string(run);
      run = 0;
      text += piece;
    }
    if (run > 0) text += std::to_string(run);
    if (rank > 0) text += '/';
  }
  return text + " " + side + " 0";
}

// ---------------------------------------------------------------- the game

TEST(TavleiGameTest, InfoOfBothVariants) {
  const std::unique_ptr<Game> nine_game = NewGame("tavlei9");
  const GameInfo& nine = nine_game->Info();
  EXPECT_EQ(nine.name, "tavlei9");
  EXPECT_EQ(nine.board_width, 9);
  EXPECT_EQ(nine.board_height, 9);
  EXPECT_EQ(nine.max_stack_height, 1);
  EXPECT_EQ(nine.first_player_name, "attackers");
  EXPECT_EQ(nine.second_player_name, "defenders");
  const std::unique_ptr<Game> eleven_game = NewGame("tavlei11");
  const GameInfo& eleven = eleven_game->Info();
  EXPECT_EQ(eleven.name, "tavlei11");
  EXPECT_EQ(eleven.board_width, 11);
  EXPECT_EQ(eleven.board_height, 11);
}

TEST(TavleiGameTest, RejectsUnknownVariantAndBadOptions) {
  absl::StatusOr<std::unique_ptr<Game>> game = MakeTavleiGame("tavlei13", {});
  ASSERT_FALSE(game.ok());
  EXPECT_EQ(game.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(game.status().message(), HasSubstr("tavlei13"));

  game = MakeTavleiGame("tavlei9", {{"king_speed", 3}});
  ASSERT_FALSE(game.ok());
  EXPECT_EQ(game.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(game.status().message(), HasSubstr("king_speed"));

  game = MakeTavleiGame("tavlei11", {{"prince_max_steps", -1}});
  ASSERT_FALSE(game.ok());
  EXPECT_EQ(game.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(game.status().message(), HasSubstr("prince_max_steps"));
  EXPECT_THAT(game.status().message(), HasSubstr("-1"));

  EXPECT_TRUE(MakeTavleiGame("tavlei9", {{"prince_max_steps", 0}}).ok());
  EXPECT_TRUE(MakeTavleiGame("tavlei11", {{"prince_max_steps", 3}}).ok());
}

TEST(TavleiGameTest, StartPositionsMatchTheRulesPage) {
  // The piece lists of the rules page, placed independently of the engine.
  EXPECT_EQ(TextFromPieces(9,
                           "td1 te1 tf1 te2 ta4 ta5 ta6 tb5 ti4 ti5 ti6 th5 "
                           "td9 te9 tf9 te8 Te3 Te4 Te6 Te7 Tc5 Td5 Tf5 Tg5 "
                           "Ke5",
                           'a'),
            kTavlei9Start);
  EXPECT_EQ(TextFromPieces(11,
                           "td1 te1 tf1 tg1 th1 tf2 ta4 ta5 ta6 ta7 ta8 tb6 "
                           "tk4 tk5 tk6 tk7 tk8 tj6 td11 te11 tf11 tg11 th11 "
                           "tf10 Tf4 Te5 Tf5 Tg5 Td6 Te6 Tg6 Th6 Te7 Tf7 Tg7 "
                           "Tf8 Kf6",
                           'a'),
            kTavlei11Start);
  std::unique_ptr<GameState> nine = NewGame("tavlei9")->NewInitialState();
  EXPECT_EQ(nine->PositionText(), kTavlei9Start);
  EXPECT_EQ(nine->SideToMove(), 0);  // attackers move first
  EXPECT_EQ(nine->PliesPlayed(), 0);
  EXPECT_FALSE(nine->InCheck());
  EXPECT_EQ(nine->Result(), GameResult{});
  std::unique_ptr<GameState> eleven = NewGame("tavlei11")->NewInitialState();
  EXPECT_EQ(eleven->PositionText(), kTavlei11Start);
  EXPECT_EQ(eleven->SideToMove(), 0);
}

// ------------------------------------------------------------------ perft

// tavlei9 start, attackers to move. The four groups of attackers are
// rotations of each other, so count the south group d1 e1 f1 e2 and x4:
//   d1: west c1 b1 (a1 is an exit: prince only) = 2; north d2 d3 d4 (d5 is
//       a defender) = 3; east e1 occupied                        -> 5
//   f1: mirror of d1                                            -> 5
//   e1: boxed in by d1, f1, e2                                  -> 0
//   e2: west d2 c2 b2 a2 = 4; east f2 g2 h2 i2 = 4; north e3 is a
//       defender; south e1 occupied                              -> 8
//   group 18, four groups: perft(1) = 72.
TEST(TavleiPerftTest, Tavlei9Start) {
  std::unique_ptr<GameState> state = NewGame("tavlei9")->NewInitialState();
  EXPECT_EQ(state->Perft(0), 1u);
  EXPECT_EQ(state->Perft(1), 72u);
  EXPECT_EQ(state->Perft(2), 3944u);
  EXPECT_EQ(state->Perft(3), 285728u);
}

// tavlei11 start, attackers to move; south group d1 e1 f1 g1 h1 f2 (x4):
//   d1: west c1 b1 (a1 is a refuge) = 2; north d2 d3 d4 d5 (d6 is a
//       defender) = 4                                            -> 6
//   h1: mirror of d1                                            -> 6
//   e1: north e2 e3 e4 (e5 is a defender); d1 f1 beside        -> 3
//   g1: mirror of e1                                            -> 3
//   f1: boxed in by e1, g1, f2                                  -> 0
//   f2: west e2 d2 c2 b2 a2 = 5; east 5; north f3 (f4 defender) = 1 -> 11
//   group 29, four groups: perft(1) = 116.
TEST(TavleiPerftTest, Tavlei11Start) {
  std::unique_ptr<GameState> state = NewGame("tavlei11")->NewInitialState();
  EXPECT_EQ(state->Perft(1), 116u);
  EXPECT_EQ(state->Perft(2), 6788u);
  EXPECT_EQ(state->Perft(3), 806344u);
}

// About 0.3 s (tavlei9) and 1 s (tavlei11) in a Debug build.
TEST(TavleiPerftTest, Tavlei9StartDepthFour) {
  EXPECT_EQ(NewGame("tavlei9")->NewInitialState()->Perft(4), 15951824u);
}

TEST(TavleiPerftTest, Tavlei11StartDepthFour) {
  EXPECT_EQ(NewGame("tavlei11")->NewInitialState()->Perft(4), 50456804u);
}

// The prince cannot move before ply 4 and cannot travel more than one square
// before ply 6, so the step limit leaves the first plies unchanged.
TEST(TavleiPerftTest, PrinceMaxStepsLeavesTheOpeningAlone) {
  std::unique_ptr<GameState> state =
      NewGame("tavlei9", {{"prince_max_steps", 3}})->NewInitialState();
  EXPECT_EQ(state->Perft(1), 72u);
  EXPECT_EQ(state->Perft(2), 3944u);
  EXPECT_EQ(state->Perft(3), 285728u);
}

TEST(TavleiPerftTest, PerftOneEqualsLegalMovesInSortedOrder) {
  for (std::string_view variant : {"tavlei9", "tavlei11"}) {
    std::unique_ptr<GameState> state = NewGame(variant)->NewInitialState();
    std::mt19937 rng(7);
    for (int ply = 0; ply < 40; ++ply) {
      MoveList moves;
      state->LegalMoves(&moves);
      ASSERT_EQ(state->Perft(1), static_cast<uint64_t>(moves.size()));
      for (int i = 1; i < moves.size(); ++i) {
        const Move a = moves[i - 1];
        const Move b = moves[i];
        ASSERT_TRUE(a.from < b.from || (a.from == b.from && a.to < b.to));
        ASSERT_EQ(b.count, 1);
      }
      if (moves.empty()) break;
      state->Play(moves[rng() % moves.size()]);
    }
  }
}

// ---------------------------------------------------------------- captures

struct MoveCase {
  const char* why;
  const char* variant;
  const char* position;
  const char* move;
  const char* written;  // canonical text: shows exactly what was captured
  const char* after;    // position text after the move
};

// Custodial captures, one rule per row; `why` names the pieces that matter
// (t attacker, T defender, K prince/king).
const MoveCase kCaptureCases[] = {
    // tavlei9 ------------------------------------------------------------
    {"t b3-a3 takes T a2 against the exit a1", "tavlei9",
     "9/9/9/9/4K4/9/1t7/T8/9 a 0", "b3-a3", "b3-a3xa2",
     "9/9/9/9/4K4/9/t8/9/9 d 1"},
    {"T c3-c1 takes t b1 against the exit a1", "tavlei9",
     "9/9/9/9/4K4/9/2T6/9/1t7 d 0", "c3-c1", "c3-c1xb1",
     "9/9/9/9/4K4/9/9/9/2T6 a 1"},
    {"the prince as mover takes t b9 against the exit a9", "tavlei9",
     "1t7/9/2K6/9/9/9/9/9/9 d 0", "c7-c9", "c7-c9xb9",
     "2K6/9/9/9/9/9/9/9/9 a 1"},
    {"the prince as partner: T g4-e4 takes t d4 against K c4", "tavlei9",
     "9/9/9/9/9/2Kt2T2/9/9/9 d 0", "g4-e4", "g4-e4xd4",
     "9/9/9/9/9/2K1T4/9/9/9 a 1"},
    {"empty throne e5 is hostile to the attacker e6", "tavlei9",
     "9/9/2T6/4t4/9/9/9/7K1/9 d 0", "c7-e7", "c7-e7xe6",
     "9/9/4T4/9/9/9/9/7K1/9 a 1"},
    {"empty throne e5 is hostile to the defender e6", "tavlei9",
     "9/9/2t6/4T4/9/9/9/7K1/9 a 0", "c7-e7", "c7-e7xe6",
     "9/9/4t4/9/9/9/9/7K1/9 d 1"},
    {"throne with the prince is hostile to the attacker e6", "tavlei9",
     "9/9/2T6/4t4/4K4/9/9/9/9 d 0", "c7-e7", "c7-e7xe6",
     "9/9/4T4/9/4K4/9/9/9/9 a 1"},
    {"throne with the prince is not hostile to the defender e6", "tavlei9",
     "9/9/2t6/4T4/4K4/9/9/9/9 a 0", "c7-e7", "c7-e7",
     "9/9/4t4/4T4/4K4/9/9/9/9 d 1"},
    {"three captures at once: d7 (c7), f7 (g7), e8 (e9)", "tavlei9",
     "4t4/4T4/2tT1Tt2/4t4/9/9/9/7K1/9 a 0", "e6-e7", "e6-e7xd7/f7/e8",
     "4t4/9/2t1t1t2/9/9/9/9/7K1/9 d 1"},
    {"T d6-d3 between t c3 and t e3 is safe", "tavlei9",
     "9/9/9/3T5/9/9/2t1t4/7K1/9 d 0", "d6-d3", "d6-d3",
     "9/9/9/9/9/9/2tTt4/7K1/9 a 1"},
    {"t d6-d3 between T c3 and T e3 is safe", "tavlei9",
     "9/9/9/3t5/9/9/2T1T4/7K1/9 a 0", "d6-d3", "d6-d3",
     "9/9/9/9/9/9/2TtT4/7K1/9 d 1"},
    {"the edge is never hostile: t h2-c2 above T c1 takes nothing", "tavlei9",
     "9/9/9/9/4K4/9/9/7t1/2T6 a 0", "h2-c2", "h2-c2",
     "9/9/9/9/4K4/9/9/2t6/2T6 d 1"},
    // tavlei11 -----------------------------------------------------------
    {"t c5-c1 takes T b1 against the refuge a1", "tavlei11",
     "11/11/11/7K3/11/11/2t8/11/11/11/1T9 a 0", "c5-c1", "c5-c1xb1",
     "11/11/11/7K3/11/11/11/11/11/11/2t8 d 1"},
    {"T b3-a3 takes t a2 against the refuge a1", "tavlei11",
     "11/11/11/7K3/11/11/11/11/1T9/t10/11 d 0", "b3-a3", "b3-a3xa2",
     "11/11/11/7K3/11/11/11/11/T10/11/11 a 1"},
    {"empty throne f6 is hostile to the defender f7", "tavlei11",
     "11/1K9/11/9t1/5T5/11/11/11/11/11/11 a 0", "j8-f8", "j8-f8xf7",
     "11/1K9/11/5t5/11/11/11/11/11/11/11 d 1"},
    {"empty throne f6 is hostile to the attacker f7", "tavlei11",
     "11/1K9/11/9T1/5t5/11/11/11/11/11/11 d 0", "j8-f8", "j8-f8xf7",
     "11/1K9/11/5T5/11/11/11/11/11/11/11 a 1"},
    {"throne with the king is hostile to the attacker f7", "tavlei11",
     "11/11/11/9T1/5t5/5K5/11/11/11/11/11 d 0", "j8-f8", "j8-f8xf7",
     "11/11/11/5T5/11/5K5/11/11/11/11/11 a 1"},
    {"throne with the king is not hostile to the defender f7", "tavlei11",
     "11/11/11/9t1/5T5/5K5/11/11/11/11/11 a 0", "j8-f8", "j8-f8",
     "11/11/11/5t5/5T5/5K5/11/11/11/11/11 d 1"},
    {"the king as partner: T e9-e4 takes t d4 against K c4", "tavlei11",
     "11/11/4T6/11/11/11/11/2Kt7/11/11/11 d 0", "e9-e4", "e9-e4xd4",
     "11/11/11/11/11/11/11/2K1T6/11/11/11 a 1"},
};

TEST(TavleiCaptureTest, CustodialCaptures) {
  for (const MoveCase& c : kCaptureCases) {
    SCOPED_TRACE(c.why);
    std::unique_ptr<GameState> state = NewState(c.variant, c.position);
    EXPECT_EQ(PlayText(state.get(), c.move), c.written);
    EXPECT_EQ(state->PositionText(), c.after);
  }
}

struct KingCase {
  const char* why;
  const char* variant;
  const char* position;
  const char* move;
  bool captured;
};

const KingCase kKingCases[] = {
    // tavlei9: captured like any piece away from the throne.
    {"K c3 between t b3 and t d3", "tavlei9", "9/9/3t5/9/9/9/1tK6/9/9 a 0",
     "d7-d3", true},
    {"K a8 between t a7 and the exit a9", "tavlei9", "9/K8/1t7/9/9/9/9/9/9 a 0",
     "b7-a7", true},
    {"K c1 against the edge only", "tavlei9", "9/9/9/9/9/9/9/7t1/2K6 a 0",
     "h2-c2", false},
    // tavlei9: on the throne, four attackers.
    {"K e5 on the throne, t d5 f5 e6 and e4 arrives", "tavlei9",
     "9/9/9/4t4/3tKt3/t8/9/9/9 a 0", "a4-e4", true},
    {"K e5 on the throne, three attackers only", "tavlei9",
     "9/9/9/9/3tKt3/t8/9/9/9 a 0", "a4-e4", false},
    // tavlei9: next to the throne, the three other sides.
    {"K e6 next to the throne, t d6 f6 and e7 arrives", "tavlei9",
     "9/9/t8/3tKt3/9/9/9/9/9 a 0", "a7-e7", true},
    {"K d5 next to the throne, t c5 d4 and d6 arrives", "tavlei9",
     "9/9/9/t8/2tK5/3t5/9/9/9 a 0", "a6-d6", true},
    {"K e6 next to the throne, two in line d6 f6 do not capture", "tavlei9",
     "9/9/9/3tK4/9/9/9/5t3/9 a 0", "f2-f6", false},
    {"K e6 next to the throne, not against the empty throne", "tavlei9",
     "9/9/t8/4K4/9/9/9/9/9 a 0", "a7-e7", false},
    // tavlei11: four attackers, or three and the throne or the edge.
    {"K c3 surrounded by four", "tavlei11",
     "11/11/11/11/11/11/11/2t8/1tKt7/7t3/11 a 0", "h2-c2", true},
    {"K c3, two in line do not capture", "tavlei11",
     "11/11/11/11/11/11/11/11/1tK4t3/11/11 a 0", "h3-d3", false},
    {"K c3, three without throne or edge do not capture", "tavlei11",
     "11/11/11/11/11/11/11/2t8/1tK4t3/11/11 a 0", "h3-d3", false},
    {"K f7, three and the throne f6", "tavlei11",
     "11/11/11/9t1/4tKt4/11/11/11/11/11/11 a 0", "j8-f8", true},
    {"K f7, two and the throne do not capture", "tavlei11",
     "11/11/11/9t1/4tK5/11/11/11/11/11/11 a 0", "j8-f8", false},
    {"K c1, three and the edge", "tavlei11",
     "11/11/11/11/11/11/11/11/11/7t3/1tKt7 a 0", "h2-c2", true},
    {"K f6 on the throne, four attackers", "tavlei11",
     "11/11/11/11/5t5/4tKt4/9t1/11/11/11/11 a 0", "j5-f5", true},
    {"K f6 on the throne, three attackers only", "tavlei11",
     "11/11/11/11/11/4tKt4/9t1/11/11/11/11 a 0", "j5-f5", false},
    {"K b1 against the refuge a1 and the edge is safe", "tavlei11",
     "11/11/11/11/11/11/11/11/11/7t3/1Kt8 a 0", "h2-b2", false},
    {"K a2 against the refuge a1 and the edge is safe", "tavlei11",
     "11/11/11/11/11/11/11/11/t10/K6t3/11 a 0", "h2-b2", false},
};

TEST(TavleiCaptureTest, PrinceAndKing) {
  for (const KingCase& c : kKingCases) {
    SCOPED_TRACE(c.why);
    std::unique_ptr<GameState> state = NewState(c.variant, c.position);
    const std::string written = PlayText(state.get(), c.move);
    MoveList moves;
    state->LegalMoves(&moves);
    if (c.captured) {
      EXPECT_THAT(written, HasSubstr("x"));
      EXPECT_EQ(state->PositionText().find('K'), std::string::npos);
      // Defenders to move have lost.
      EXPECT_EQ(state->Result(),
                (GameResult{Outcome::kLoss, tavlei::kKingCaptured}));
      EXPECT_TRUE(moves.empty());
      EXPECT_EQ(state->Perft(1), 0u);
      EXPECT_EQ(state->Perft(3), 0u);
    } else {
      EXPECT_EQ(written, c.move);
      EXPECT_NE(state->PositionText().find('K'), std::string::npos);
      EXPECT_FALSE(state->Result().IsOver());
    }
  }
}

// -------------------------------------------------------- moving the pieces

TEST(TavleiMoveTest, OnlyThePrincePassesTheThroneInTavlei9) {
  // K b8, T e3, t h8; defenders to move. The throne e5 stops T e3 going
  // north after e4; west d3..a3, east f3..i3, south e2 e1.
  std::unique_ptr<GameState> state =
      NewState("tavlei9", "9/1K5t1/9/9/9/9/4T4/9/9 d 0");
  EXPECT_THAT(MovesFrom(*state, "e3"),
              ::testing::ElementsAre("e3-e1", "e3-e2", "e3-a3", "e3-b3",
                                     "e3-c3", "e3-d3", "e3-f3", "e3-g3",
                                     "e3-h3", "e3-i3", "e3-e4"));
  EXPECT_EQ(ParseError(*state, "e3-e7"),
            "illegal move e3-e7: only the prince may pass over the throne "
            "e5");
  EXPECT_EQ(ParseError(*state, "e3-e5"),
            "illegal move e3-e5: only the prince may stand on the throne e5");
  // The same for an attacker.
  state = NewState("tavlei9", "9/1K7/9/9/9/9/4t4/9/9 a 0");
  EXPECT_THAT(ParseError(*state, "e3-e8"), HasSubstr("pass over the throne"));
  // The prince passes over it and stops on it.
  state = NewState("tavlei9", "9/7t1/9/9/9/9/4K4/9/9 d 0");
  EXPECT_EQ(PlayText(state.get(), "e3-e7"), "e3-e7");
  state = NewState("tavlei9", "9/7t1/9/9/9/9/4K4/9/9 d 0");
  EXPECT_EQ(PlayText(state.get(), "e3-e5"), "e3-e5");
  // The prince leaves the throne and comes back.
  PlayText(state.get(), "h8-h7");
  PlayText(state.get(), "e5-c5");
  PlayText(state.get(), "h7-h8");
  EXPECT_EQ(PlayText(state.get(), "c5-e5"), "c5-e5");
}

TEST(TavleiMoveTest, EveryPiecePassesTheEmptyThroneInTavlei11) {
  // K b10, T f4, t j2; defenders to move. T f4 north: f5, (f6 passed, not a
  // stop), f7 f8 f9 f10 f11.
  std::unique_ptr<GameState> state =
      NewState("tavlei11", "11/1K9/11/11/11/11/11/5T5/11/9t1/11 d 0");
  const std::vector<std::string> moves = MovesFrom(*state, "f4");
  EXPECT_THAT(moves, ::testing::Contains("f4-f8"));
  EXPECT_THAT(moves, ::testing::Contains("f4-f11"));
  EXPECT_THAT(moves, ::testing::Not(::testing::Contains("f4-f6")));
  EXPECT_EQ(moves.size(), 6u /*north*/ + 3u /*south*/ + 5u + 5u);
  EXPECT_EQ(ParseError(*state, "f4-f6"),
            "illegal move f4-f6: only the king may stand on the throne f6");
  EXPECT_EQ(PlayText(state.get(), "f4-f9"), "f4-f9");
  // An attacker too.
  state = NewState("tavlei11", "11/1K9/11/11/11/11/11/5t5/11/11/11 a 0");
  EXPECT_EQ(PlayText(state.get(), "f4-f8"), "f4-f8");
  // Not over the king on the throne.
  state = NewState("tavlei11", "11/11/11/11/11/5K5/11/5t5/11/11/11 a 0");
  EXPECT_EQ(ParseError(*state, "f4-f8"),
            "illegal move f4-f8: path blocked at f6");
}

TEST(TavleiMoveTest, OnlyThePrinceStandsOnAnExit) {
  std::unique_ptr<GameState> state = NewGame("tavlei9")->NewInitialState();
  EXPECT_EQ(ParseError(*state, "d1-a1"),
            "illegal move d1-a1: only the prince may stand on the exit a1");
  state = NewGame("tavlei11")->NewInitialState();
  EXPECT_EQ(ParseError(*state, "d1-a1"),
            "illegal move d1-a1: only the king may stand on the refuge a1");
}

TEST(TavleiMoveTest, PrinceMaxSteps) {
  // K e3 alone with t h8; defenders to move. Unlimited: north e4 e5 (the
  // throne) e6 e7 e8 e9 = 6, south e2 e1 = 2, west d3..a3 = 4, east f3..i3
  // = 4: 16. At most 3 squares: north e4 e5 e6 = 3 (the throne counts as a
  // square travelled), south 2, west 3, east 3: 11.
  constexpr char kPosition[] = "9/7t1/9/9/9/9/4K4/9/9 d 0";
  EXPECT_EQ(NewState("tavlei9", kPosition)->Perft(1), 16u);
  std::unique_ptr<GameState> limited =
      NewState("tavlei9", kPosition, {{"prince_max_steps", 3}});
  EXPECT_EQ(limited->Perft(1), 11u);
  EXPECT_EQ(PlayText(limited.get(), "e3-e6"), "e3-e6");
  limited->Undo();
  EXPECT_EQ(ParseError(*limited, "e3-e7"),
            "illegal move e3-e7: the prince may move at most 3 squares "
            "(prince_max_steps)");
  // Attackers are not limited: t h8 has h9 + h7..h1 + a8..g8 + i8 = 16.
  PlayText(limited.get(), "e3-e4");
  EXPECT_EQ(limited->Perft(1), 16u);

  // tavlei11, K f4 alone with t j10. Unlimited: north f5..f11 = 7, south
  // f3 f2 f1 = 3, west e4..a4 = 5, east g4..k4 = 5: 20. At most 2: 8.
  constexpr char kEleven[] = "11/9t1/11/11/11/11/11/5K5/11/11/11 d 0";
  EXPECT_EQ(NewState("tavlei11", kEleven)->Perft(1), 20u);
  EXPECT_EQ(NewState("tavlei11", kEleven, {{"prince_max_steps", 2}})->Perft(1),
            8u);
}

// ------------------------------------------------------------ game results

// Whether the side to move has a move that ends the game in its favour, by
// playing every legal move.
bool CanWinAtOnce(GameState* state) {
  MoveList moves;
  state->LegalMoves(&moves);
  bool can_win = false;
  for (const Move move : moves) {
    state->Play(move);
    const Termination t = state->Result().termination;
    can_win |= t == tavlei::kKingEscaped || t == tavlei::kKingCaptured;
    state->Undo();
  }
  return can_win;
}

// Plays `games` random games of each Tavlei setting (tavlei9, tavlei11,
// tavlei9 with prince_max_steps 3) and calls visit(state, legal moves) at
// every position; stops at the first fatal failure.
template <typename Visit>
void ForEachRandomTavleiPosition(uint32_t seed, int games, Visit&& visit) {
  for (const auto& [variant, steps] : std::vector<std::pair<std::string, int>>{
           {"tavlei9", 0}, {"tavlei11", 0}, {"tavlei9", 3}}) {
    SCOPED_TRACE(variant + " " + std::to_string(steps));
    std::mt19937 rng(seed);
    GameOptions options;
    if (steps > 0) options["prince_max_steps"] = steps;
    const std::unique_ptr<Game> game = NewGame(variant, options);
    for (int g = 0; g < games; ++g) {
      std::unique_ptr<GameState> state = game->NewInitialState();
      while (!state->Result().IsOver() && state->PliesPlayed() < 300) {
        MoveList moves;
        state->LegalMoves(&moves);
        visit(state.get(), moves);
        if (::testing::Test::HasFatalFailure()) return;
        state->Play(moves[rng() % moves.size()]);
      }
    }
  }
}

// Whether `move` leaves the game going and every reply to it leaves the
// side to move a win as `wins(state)` judges it, by playing them all.
template <typename Wins>
bool EveryReplyLeaves(GameState* state, Move move, Wins&& wins) {
  state->Play(move);
  bool refuted = state->Result().IsOver();
  MoveList replies;
  state->LegalMoves(&replies);
  for (int i = 0; i < replies.size() && !refuted; ++i) {
    state->Play(replies[i]);
    refuted = state->Result().IsOver() || !wins(state);
    state->Undo();
  }
  state->Undo();
  return !refuted;
}

bool HasImmediateWin(GameState* state) {
  return !TavleiProver().ImmediateWin(*state).IsNull();
}

bool HasWinInOneOrThree(GameState* state) {
  return !TavleiProver().ImmediateWin(*state).IsNull() ||
         !TavleiProver().UnstoppableThreat(*state).IsNull();
}

int PrinceSquare(const GameState& state) {
  const auto* tavlei = dynamic_cast<const tavlei::TavleiState*>(&state);
  return tavlei == nullptr ? -1 : tavlei->position().king;
}

// ImmediateWin names a winning move exactly when one of the two kinds exists
// (the prince onto an exit, an attacker capturing the prince), and
// MovesAllowingQuickWin marks exactly the moves after which the opponent has
// one (1), or else an UnstoppableThreat (3, itself checked by brute force
// below); checked against playing every move in random games.
TEST(TavleiResultTest, ImmediateWinAgreesWithPlayingEveryMove) {
  int wins_seen[2] = {0, 0};
  int allowing_seen = 0;
  int allowing_threat_seen = 0;
  ForEachRandomTavleiPosition(
      11, 80, [&](GameState* state, const MoveList& moves) {
        const Move win = TavleiProver().ImmediateWin(*state);
        ASSERT_EQ(!win.IsNull(), CanWinAtOnce(state)) << state->PositionText();
        if (!win.IsNull()) {
          ASSERT_TRUE(moves.contains(win));
          ++wins_seen[state->SideToMove()];
          state->Play(win);
          ASSERT_EQ(state->Result().outcome, Outcome::kLoss);
          state->Undo();
        }
        // Every move's reply checked by brute force is slow: every 8th ply.
        if (state->PliesPlayed() % 8 != 0) return;
        std::vector<uint8_t> allows;
        const int count =
            TavleiProver().MovesAllowingQuickWin(*state, moves, false, &allows);
        std::vector<uint8_t> allows_with_threats;
        const int count_with_threats = TavleiProver().MovesAllowingQuickWin(
            *state, moves, true, &allows_with_threats);
        if (count > 0) {
          ASSERT_EQ(allows.size(), static_cast<size_t>(moves.size()));
        }
        if (count_with_threats > 0) {
          ASSERT_EQ(allows_with_threats.size(),
                    static_cast<size_t>(moves.size()));
        }
        int opponent_wins_after = 0;
        int opponent_threats_after = 0;
        for (int i = 0; i < moves.size(); ++i) {
          state->Play(moves[i]);
          const bool over = state->Result().IsOver();
          const bool opponent_wins = !over && CanWinAtOnce(state);
          const bool opponent_threatens =
              !over && !opponent_wins &&
              !TavleiProver().UnstoppableThreat(*state).IsNull();
          state->Undo();
          ASSERT_EQ(count > 0 ? allows[i] : 0, opponent_wins ? 1 : 0)
              << state->PositionText() << " " << state->MoveText(moves[i]);
          ASSERT_EQ(count_with_threats > 0 ? allows_with_threats[i] : 0,
                    opponent_wins        ? 1
                    : opponent_threatens ? 3
                                         : 0)
              << state->PositionText() << " " << state->MoveText(moves[i]);
          opponent_wins_after += opponent_wins;
          opponent_threats_after += opponent_threatens;
        }
        ASSERT_EQ(count, opponent_wins_after) << state->PositionText();
        ASSERT_EQ(count_with_threats,
                  opponent_wins_after + opponent_threats_after)
            << state->PositionText();
        allowing_seen += count;
        allowing_threat_seen += opponent_threats_after;
      });
  // Every kind came up often enough to matter.
  EXPECT_GT(wins_seen[0], 100);
  EXPECT_GT(wins_seen[1], 100);
  EXPECT_GT(allowing_seen, 200);
  EXPECT_GT(allowing_threat_seen, 50);
}

// FindUnstoppableEscape (UnstoppableThreat) finds a prince move after which
// every attacker reply leaves an escape exactly when there is one; checked
// by playing every prince move and every reply (ImmediateWin, itself
// checked above, judges each reply) in random games.
TEST(TavleiResultTest, UnstoppableThreatAgreesWithPlayingEveryReply) {
  int threats_seen = 0;
  ForEachRandomTavleiPosition(
      5, 60, [&](GameState* state, const MoveList& moves) {
        if (state->SideToMove() != 1 ||
            !TavleiProver().ImmediateWin(*state).IsNull())
          return;
        bool exists = false;
        for (const Move move : moves) {
          exists |= move.from == PrinceSquare(*state) &&
                    EveryReplyLeaves(state, move, HasImmediateWin);
        }
        const Move threat = TavleiProver().UnstoppableThreat(*state);
        ASSERT_EQ(!threat.IsNull(), exists) << state->PositionText();
        if (exists) {
          ++threats_seen;
          ASSERT_TRUE(moves.contains(threat));
          ASSERT_TRUE(EveryReplyLeaves(state, threat, HasImmediateWin))
              << state->PositionText();
        }
      });
  EXPECT_GT(threats_seen, 50);
}

// WinInFive (FindEscapeInFive) names only prince moves after which every
// attacker reply leaves him an ImmediateWin or an UnstoppableThreat, and
// finds every such move that threatens one were the attackers to pass;
// checked by playing every prince move and every reply in random games.
TEST(TavleiResultTest, WinInFiveAgreesWithPlayingEveryReply) {
  int wins_seen = 0;
  int zugzwang_only = 0;
  ForEachRandomTavleiPosition(
      7, 60, [&](GameState* state, const MoveList& moves) {
        if (state->SideToMove() != 1 || HasWinInOneOrThree(state)) return;
        bool exists = false;
        for (const Move move : moves) {
          exists |= move.from == PrinceSquare(*state) &&
                    EveryReplyLeaves(state, move, HasWinInOneOrThree);
        }
        const Move win = TavleiProver().WinInFive(*state);
        if (!win.IsNull()) {
          ASSERT_TRUE(moves.contains(win));
          ASSERT_TRUE(EveryReplyLeaves(state, win, HasWinInOneOrThree))
              << state->PositionText();
          ++wins_seen;
        } else if (exists) {
          ++zugzwang_only;
        }
      });
  EXPECT_GT(wins_seen, 30);
  EXPECT_EQ(zugzwang_only, 0);
}

TEST(TavleiResultTest, ImmediateWinOnHandMadePositions) {
  const struct {
    const char* position;
    const char* win;  // "" for none
  } kCases[] = {
      // The prince on a5: a1 is open, a9 is blocked by the attacker on a7.
      {"9/t8/9/9/K7t/9/9/9/4t4 d 0", "a5-a1"},
      // Both exits of the a-file blocked; the prince has moves but no win.
      {"9/t8/9/9/K7t/9/t8/9/4t4 d 0", ""},
      // Attackers to move where the prince could escape: not their win.
      {"9/t8/9/9/K7t/9/9/9/4t4 a 0", ""},
      // d9-d3 closes on the prince c3 against b3.
      {"3t5/9/9/9/9/9/1tK6/9/4T4 a 0", "d9-d3"},
      // The same without the attacker on b3: no capture.
      {"3t5/9/9/9/9/9/2K6/9/4T4 a 0", ""},
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.position);
    std::unique_ptr<GameState> state = NewState("tavlei9", c.position);
    MoveList moves;
    state->LegalMoves(&moves);
    const Move win = TavleiProver().ImmediateWin(*state);
    if (std::string_view(c.win).empty()) {
      EXPECT_TRUE(win.IsNull()) << state->MoveText(win);
    } else {
      ASSERT_FALSE(win.IsNull());
      EXPECT_EQ(state->MoveText(win).substr(0, 5), c.win);
    }
  }
}

// The registry hands Tavlei's prover to the search for both variants (with
// any options) and not for Tavreli; the prover has no answer for a state of
// another game, even one with a win in one.
TEST(TavleiProverTest, ServesTavleiOnly) {
  for (const char* name : {"tavlei9", "tavlei11"}) {
    absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(name);
    ASSERT_TRUE(game.ok());
    EXPECT_EQ(GameProver(**game), &TavleiProver()) << name;
  }
  absl::StatusOr<std::unique_ptr<Game>> short_prince =
      MakeGame("tavlei9", {{"prince_max_steps", 1}});
  ASSERT_TRUE(short_prince.ok());
  EXPECT_EQ(GameProver(**short_prince), &TavleiProver());
  absl::StatusOr<std::unique_ptr<Game>> tavreli = MakeGame("tavreli");
  ASSERT_TRUE(tavreli.ok());
  EXPECT_NE(GameProver(**tavreli), &TavleiProver());  // its own

  // Rh1-h8 mates.
  absl::StatusOr<std::unique_ptr<GameState>> mate =
      (*tavreli)->NewStateFromText("k7/8/1K6/8/8/8/8/7R w - - 0 1");
  ASSERT_TRUE(mate.ok());
  MoveList moves;
  (*mate)->LegalMoves(&moves);
  std::vector<uint8_t> plies;
  EXPECT_TRUE(TavleiProver().ImmediateWin(**mate).IsNull());
  EXPECT_TRUE(TavleiProver().UnstoppableThreat(**mate).IsNull());
  EXPECT_TRUE(TavleiProver().WinInFive(**mate).IsNull());
  EXPECT_EQ(TavleiProver().MovesAllowingQuickWin(**mate, moves, true, &plies),
            0);
}

// With a prince limited to one step, the open a-file is no immediate win:
// the prover reads each state's own rules.
TEST(TavleiProverTest, ReadsTheRulesOfEachState) {
  absl::StatusOr<std::unique_ptr<Game>> game =
      MakeGame("tavlei9", {{"prince_max_steps", 1}});
  ASSERT_TRUE(game.ok());
  absl::StatusOr<std::unique_ptr<GameState>> state =
      (*game)->NewStateFromText("9/t8/9/9/K7t/9/9/9/4t4 d 0");
  ASSERT_TRUE(state.ok());
  EXPECT_TRUE(TavleiProver().ImmediateWin(**state).IsNull());
  EXPECT_FALSE(
      TavleiProver()
          .ImmediateWin(*NewState("tavlei9", "9/t8/9/9/K7t/9/9/9/4t4 d 0"))
          .IsNull());
}

TEST(TavleiResultTest, PrinceReachesAnExit) {
  // K a5 runs down the a-file to the exit a1.
  std::unique_ptr<GameState> state =
      NewState("tavlei9", "9/7t1/9/9/K8/9/9/9/9 d 0");
  EXPECT_FALSE(state->Result().IsOver());
  EXPECT_EQ(PlayText(state.get(), "a5-a1"), "a5-a1");
  EXPECT_EQ(state->SideToMove(), 0);
  EXPECT_EQ(state->Result(),
            (GameResult{Outcome::kLoss, tavlei::kKingEscaped}));
  MoveList moves;
  state->LegalMoves(&moves);
  EXPECT_TRUE(moves.empty());
  EXPECT_EQ(state->Perft(2), 0u);
  EXPECT_EQ(ParseError(*state, "h8-h7"),
            "illegal move h8-h7: the game is over: the prince reached the "
            "exit a1");
  EXPECT_THAT(state->BoardDiagram(),
              HasSubstr("the prince reached the exit a1: defenders win\n"));
}

TEST(TavleiResultTest, KingReachesARefuge) {
  std::unique_ptr<GameState> state =
      NewState("tavlei11", "11/9t1/11/11/11/11/11/11/11/11/5K5 d 0");
  PlayText(state.get(), "f1-a1");
  EXPECT_EQ(state->Result(),
            (GameResult{Outcome::kLoss, tavlei::kKingEscaped}));
  EXPECT_EQ(state->Perft(1), 0u);
}

TEST(TavleiResultTest, KingAlreadyOnAnExitIsADecidedPosition) {
  // Defenders to move have won already.
  std::unique_ptr<GameState> state =
      NewState("tavlei9", "K8/9/9/9/9/9/9/9/4t4 d 0");
  EXPECT_EQ(state->Result(), (GameResult{Outcome::kWin, tavlei::kKingEscaped}));
  EXPECT_EQ(state->Perft(1), 0u);
}

TEST(TavleiResultTest, PrinceCapturedEndsTheGame) {
  // t d7-d3 closes b3-c3-d3 around the prince.
  std::unique_ptr<GameState> state =
      NewState("tavlei9", "9/9/3t5/9/9/9/1tK6/9/9 a 0");
  EXPECT_EQ(PlayText(state.get(), "d7-d3"), "d7-d3xc3");
  EXPECT_EQ(state->PositionText(), "9/9/9/9/9/9/1t1t5/9/9 d 1");
  EXPECT_EQ(state->Result(),
            (GameResult{Outcome::kLoss, tavlei::kKingCaptured}));
  EXPECT_THAT(state->BoardDiagram(),
              HasSubstr("the prince was captured: attackers win\n"));
  EXPECT_EQ(ParseError(*state, "d3-d4"),
            "illegal move d3-d4: the game is over: the prince was captured");
  state->Undo();
  EXPECT_EQ(state->Result(), GameResult{});
}

TEST(TavleiResultTest, NoLegalMoveLoses) {
  // K c1 between t b1 and t d1 (placed before: no capture); t c5-c2 shuts
  // the prince in. The edge behind him is not hostile, so he lives, but the
  // defenders have no move and lose.
  std::unique_ptr<GameState> state =
      NewState("tavlei9", "9/9/9/9/2t6/9/9/9/1tKt5 a 0");
  EXPECT_EQ(PlayText(state.get(), "c5-c2"), "c5-c2");
  EXPECT_EQ(state->Result(),
            (GameResult{Outcome::kLoss, tavlei::kNoLegalMoves}));
  EXPECT_EQ(state->Perft(1), 0u);
  // t a2 next to the exit a1 is boxed in by T a3 and T b2: the attackers to
  // move lose.
  state = NewState("tavlei9", "9/9/9/9/4K4/9/T8/tT7/9 a 0");
  EXPECT_EQ(state->Result(),
            (GameResult{Outcome::kLoss, tavlei::kNoLegalMoves}));
}

TEST(TavleiResultTest, ThirdOccurrenceIsADraw) {
  // t a2 and T i8 shuttle; the start position (attackers to move) occurs for
  // the second time after 4 plies and the third after 8.
  std::unique_ptr<GameState> state =
      NewState("tavlei9", "9/8T/9/9/4K4/9/9/t8/9 a 0");
  const uint64_t start_hash = state->Hash();
  const char* shuttle[] = {"a2-a3", "i8-i7", "a3-a2", "i7-i8"};
  for (int ply = 0; ply < 8; ++ply) {
    EXPECT_FALSE(state->Result().IsOver()) << "ply " << ply;
    PlayText(state.get(), shuttle[ply % 4]);
  }
  EXPECT_EQ(state->Hash(), start_hash);
  EXPECT_EQ(state->PositionText(), "9/8T/9/9/4K4/9/9/t8/9 a 8");
  EXPECT_EQ(state->Result(),
            (GameResult{Outcome::kDraw, Termination::kRepetition}));
  // Perft ignores history rules.
  EXPECT_GT(state->Perft(1), 0u);
  state->Undo();
  EXPECT_FALSE(state->Result().IsOver());
  // A clone keeps the history.
  PlayText(state.get(), "i7-i8");
  EXPECT_EQ(state->Clone()->Result().termination, Termination::kRepetition);
}

TEST(TavleiStateTest, HashIncludesTheSideToMove) {
  std::unique_ptr<GameState> state =
      NewState("tavlei9", "9/8T/9/9/4K4/9/9/t8/9 a 0");
  std::unique_ptr<GameState> other =
      NewState("tavlei9", "9/8T/9/9/4K4/9/9/t8/9 d 0");
  EXPECT_NE(state->Hash(), other->Hash());  // the side to move counts
}

// ------------------------------------------------------- make/undo, hashing

TEST(TavleiStateTest, UndoRestoresTextAndHash) {
  for (std::string_view variant : {"tavlei9", "tavlei11"}) {
    SCOPED_TRACE(variant);
    std::unique_ptr<Game> game = NewGame(variant);
    std::unique_ptr<GameState> state = game->NewInitialState();
    std::mt19937 rng(20240611);
    std::vector<std::string> texts;
    std::vector<uint64_t> hashes;
    int plies = 0;
    while (plies < 300) {
      MoveList moves;
      state->LegalMoves(&moves);
      if (moves.empty()) {
        // Unwind this game completely, then start another.
        while (state->PliesPlayed() > 0) {
          state->Undo();
          texts.pop_back();
          hashes.pop_back();
          ASSERT_EQ(state->PositionText(), texts.back());
          ASSERT_EQ(state->Hash(), hashes.back());
        }
        texts.clear();
        hashes.clear();
        state = game->NewInitialState();
        continue;
      }
      if (texts.empty()) {
        texts.push_back(state->PositionText());
        hashes.push_back(state->Hash());
      }
      state->Play(moves[rng() % moves.size()]);
      ++plies;
      texts.push_back(state->PositionText());
      hashes.push_back(state->Hash());
      ASSERT_EQ(state->PliesPlayed(), static_cast<int>(texts.size()) - 1);
      if (state->Result().termination != tavlei::kKingCaptured) {
        // The incremental hash equals the hash of the position read afresh.
        EXPECT_EQ(NewState(*game, texts.back())->Hash(), hashes.back());
      }
    }
    while (state->PliesPlayed() > 0) {
      state->Undo();
      texts.pop_back();
      hashes.pop_back();
      ASSERT_EQ(state->PositionText(), texts.back());
      ASSERT_EQ(state->Hash(), hashes.back());
    }
  }
}

TEST(TavleiStateTest, TranspositionsHashAlike) {
  std::unique_ptr<Game> game = NewGame("tavlei9");
  std::unique_ptr<GameState> a = game->NewInitialState();
  std::unique_ptr<GameState> b = game->NewInitialState();
  for (const char* move : {"e2-a2", "e3-c3", "e8-a8", "e7-c7"}) {
    PlayText(a.get(), move);
  }
  for (const char* move : {"e8-a8", "e7-c7", "e2-a2", "e3-c3"}) {
    PlayText(b.get(), move);
  }
  EXPECT_EQ(a->PositionText(), b->PositionText());
  EXPECT_EQ(a->Hash(), b->Hash());
  EXPECT_NE(a->Hash(), game->NewInitialState()->Hash());
}

TEST(TavleiStateTest, CloneIsIndependent) {
  std::unique_ptr<GameState> state = NewGame("tavlei11")->NewInitialState();
  PlayText(state.get(), "f2-b2");
  std::unique_ptr<GameState> copy = state->Clone();
  PlayText(copy.get(), "f4-c4");
  EXPECT_EQ(state->PliesPlayed(), 1);
  EXPECT_EQ(copy->PliesPlayed(), 2);
  EXPECT_NE(state->PositionText(), copy->PositionText());
  copy->Undo();
  EXPECT_EQ(state->PositionText(), copy->PositionText());
}

// ----------------------------------------------------------- move notation

TEST(TavleiNotationTest, WritesAndReadsMoves) {
  for (std::string_view variant : {"tavlei9", "tavlei11"}) {
    std::unique_ptr<GameState> state = NewGame(variant)->NewInitialState();
    std::mt19937 rng(99);
    const int width = state->Info().board_width;
    for (int ply = 0; ply < 120; ++ply) {
      MoveList moves;
      state->LegalMoves(&moves);
      if (moves.empty()) break;
      for (Move move : moves) {
        const std::string text = state->MoveText(move);
        absl::StatusOr<Move> parsed = state->ParseMove(text);
        ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status();
        ASSERT_EQ(*parsed, move);
        // The bare from-to form reads too.
        const std::string bare =
            SquareName(move.from, width) + "-" + SquareName(move.to, width);
        ASSERT_EQ(*state->ParseMove(bare), move) << bare;
      }
      state->Play(moves[rng() % moves.size()]);
    }
  }
}

TEST(TavleiNotationTest, LenientForms) {
  // t b3-a3 captures T a2 against the exit a1.
  std::unique_ptr<GameState> state =
      NewState("tavlei9", "9/9/9/9/4K4/9/1t7/T8/9 a 0");
  const Move expected = MakeMove(2 * 9 + 1, 2 * 9 + 0, 1);
  EXPECT_EQ(state->MoveText(expected), "b3-a3xa2");
  for (const char* text : {"b3-a3", "b3-a3xa2", "b3 - a3", "b3-a3xa2+",
                           "b3-a3!?", "b3-a3x", "b3-a3xa2 #", " b3-a3* "}) {
    absl::StatusOr<Move> move = state->ParseMove(text);
    ASSERT_TRUE(move.ok()) << text << ": " << move.status();
    EXPECT_EQ(*move, expected) << text;
  }
  // Several captures listed in any order.
  state = NewState("tavlei9", "4t4/4T4/2tT1Tt2/4t4/9/9/9/7K1/9 a 0");
  EXPECT_TRUE(state->ParseMove("e6-e7xe8/d7/f7").ok());
}

TEST(TavleiNotationTest, CaptureListMustMatch) {
  std::unique_ptr<GameState> state =
      NewState("tavlei9", "9/9/9/9/4K4/9/1t7/T8/9 a 0");
  EXPECT_EQ(ParseError(*state, "b3-a3xa4"),
            "wrong capture list in \"b3-a3xa4\": b3-a3 captures a2");
  EXPECT_EQ(ParseError(*state, "b3-a3xa2/b2"),
            "wrong capture list in \"b3-a3xa2/b2\": b3-a3 captures a2");
  EXPECT_EQ(ParseError(*state, "b3-b4xb5"),
            "wrong capture list in \"b3-b4xb5\": b3-b4 captures nothing");
  state = NewState("tavlei9", "4t4/4T4/2tT1Tt2/4t4/9/9/9/7K1/9 a 0");
  EXPECT_THAT(ParseError(*state, "e6-e7xd7/f7"), HasSubstr("d7/f7/e8"));
}

TEST(TavleiNotationTest, IllegalMovesNameTheProblem) {
  std::unique_ptr<GameState> state = NewGame("tavlei9")->NewInitialState();
  EXPECT_EQ(ParseError(*state, "d1-d6"),
            "illegal move d1-d6: path blocked at d5");
  EXPECT_EQ(ParseError(*state, "e2-e3"), "illegal move e2-e3: e3 is occupied");
  EXPECT_EQ(ParseError(*state, "e2-f3"),
            "illegal move e2-f3: not along a rank or file");
  EXPECT_EQ(ParseError(*state, "c4-c6"), "illegal move c4-c6: no piece on c4");
  EXPECT_EQ(ParseError(*state, "e3-c3"),
            "illegal move e3-c3: e3 holds a defender but the attackers are "
            "to move");
  EXPECT_EQ(ParseError(*state, "e2-e2"),
            "illegal move e2-e2: from and to are the same square");
  PlayText(state.get(), "e2-a2");
  EXPECT_EQ(ParseError(*state, "e5-e4"), "illegal move e5-e4: e4 is occupied");
  EXPECT_EQ(ParseError(*state, "a2-a3"),
            "illegal move a2-a3: a2 holds an attacker but the defenders are "
            "to move");
}

TEST(TavleiNotationTest, MalformedMoves) {
  std::unique_ptr<GameState> state = NewGame("tavlei9")->NewInitialState();
  EXPECT_EQ(ParseError(*state, "zz"),
            "malformed move \"zz\": expected <from>-<to>");
  for (const char* text : {"", "e2", "e2a2", "e2-", "e2-j2", "e2-a10", "E2-A2",
                           "e2-a2y", "e2--a2"}) {
    EXPECT_THAT(ParseError(*state, text), HasSubstr("malformed move")) << text;
  }
  EXPECT_THAT(ParseError(*state, "e2-a2xq"),
              HasSubstr("captured squares after x"));
  EXPECT_THAT(ParseError(*state, "e2-a2xa3/"),
              HasSubstr("captured squares after x"));
}

// ------------------------------------------------------ position notation

TEST(TavleiPositionTextTest, RoundTrips) {
  std::unique_ptr<Game> nine = NewGame("tavlei9");
  for (const char* text :
       {kTavlei9Start, "9/9/9/9/4K4/9/1t7/T8/9 d 17",
        "K8/9/9/9/9/9/9/9/4t4 a 3", "1ttttttt1/TTTTKTTTT/9/9/9/9/9/9/9 a 0"}) {
    EXPECT_EQ(NewState(*nine, text)->PositionText(), text);
  }
  std::unique_ptr<Game> eleven = NewGame("tavlei11");
  for (const char* text :
       {kTavlei11Start, "11/1K9/11/11/11/11/11/5T5/11/9t1/11 d 40",
        "9t1/11/11/11/11/11/11/11/11/11/1K7T1 a 1"}) {
    EXPECT_EQ(NewState(*eleven, text)->PositionText(), text);
  }
  // Extra spaces are tolerated; the writer is canonical.
  EXPECT_EQ(
      NewState(*nine, "  9/9/9/9/4K4/9/1t7/T8/9   d  7 \n")->PositionText(),
      "9/9/9/9/4K4/9/1t7/T8/9 d 7");
  // Each Play advances the ply counter and the side.
  std::unique_ptr<GameState> state = nine->NewInitialState();
  PlayText(state.get(), "e2-a2");
  EXPECT_EQ(state->PositionText(),
            "3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/t8/3ttt3 d 1");
  EXPECT_EQ(state->SideToMove(), 1);
  EXPECT_EQ(NewState(*nine, state->PositionText())->Hash(), state->Hash());
}

TEST(TavleiPositionTextTest, RejectsInvalidPositions) {
  struct Bad {
    const char* variant;
    const char* text;
    const char* message;
  };
  const Bad bad[] = {
      {"tavlei9", "3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4 a 0",
       "board: expected 9 ranks separated by '/', got 8"},
      {"tavlei9", "3ttt4/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3 a 0",
       "rank 9: expected 9 squares, got 10"},
      {"tavlei9", "3ttt3/4t4/4T4/t3T3t/ttTTKTTt/t3T3t/4T4/4t4/3ttt3 a 0",
       "rank 5: expected 9 squares, got 8"},
      {"tavlei9", "3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3txt3 a 0",
       "rank 1: unknown character 'x'"},
      {"tavlei9", "3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/0ttt6 a 0",
       "rank 1: empty run of 0 squares"},
      {"tavlei9", "3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3 w 0",
       "side: expected 'a' or 'd', got 'w'"},
      {"tavlei9", "3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3 a -1",
       "ply: expected a non-negative integer, got '-1'"},
      {"tavlei9", "3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3 a",
       "expected 3 fields <board> <side> <ply>, got 2"},
      {"tavlei9", "K8/9/9/9/4K4/9/9/9/9 a 0",
       "board: 2 princes (K), expected exactly one"},
      {"tavlei9", "9/9/9/9/9/9/9/9/4t4 a 0",
       "board: 0 princes (K), expected exactly one"},
      {"tavlei9", "9/9/9/9/4t4/9/9/9/K8 a 0",
       "board: an attacker on the throne e5"},
      {"tavlei9", "9/9/9/9/9/4K4/9/9/T8 a 0",
       "board: a defender on the exit a1"},
      {"tavlei11", "10t/11/11/11/11/5K5/11/11/11/11/11 a 0",
       "board: an attacker on the refuge k11"},
      {"tavlei11", "11/11/11/11/11/5T5/11/11/11/11/K10 d 0",
       "board: a defender on the throne f6"},
      {"tavlei11", "11/11/11/11/11/5K5/11/11/11/11/12 a 0",
       "rank 1: expected 11 squares, got 12"},
  };
  for (const Bad& b : bad) {
    EXPECT_EQ(PositionError(b.variant, b.text),
              std::string("invalid ") + b.variant + " position: " + b.message)
        << b.text;
  }
}

TEST(TavleiPositionTextTest, BoardDiagram) {
  EXPECT_EQ(NewGame("tavlei9")->NewInitialState()->BoardDiagram(),
            " 9  * . . t t t . . *\n"
            " 8  . . . . t . . . .\n"
            " 7  . . . . T . . . .\n"
            " 6  t . . . T . . . t\n"
            " 5  t t T T K T T t t\n"
            " 4  t . . . T . . . t\n"
            " 3  . . . . T . . . .\n"
            " 2  . . . . t . . . .\n"
            " 1  * . . t t t . . *\n"
            "    a b c d e f g h i\n"
            "attackers to move, ply 0\n");
  const std::string eleven =
      NewState("tavlei11", "11/1K9/11/11/11/11/11/5T5/11/9t1/11 d 4")
          ->BoardDiagram();
  EXPECT_THAT(eleven, HasSubstr("11  * . . . . . . . . . *\n"));
  EXPECT_THAT(eleven, HasSubstr(" 6  . . . . . + . . . . .\n"));
  EXPECT_THAT(eleven, HasSubstr("    a b c d e f g h i j k\n"));
  EXPECT_THAT(eleven, HasSubstr("defenders to move, ply 4\n"));
}

// ParseMove's legality check and the move generator agree on every from-to
// pair of a few played-out positions.
TEST(TavleiNotationTest, ParseMoveAgreesWithLegalMoves) {
  for (std::string_view variant : {"tavlei9", "tavlei11"}) {
    std::unique_ptr<GameState> state =
        NewGame(variant, {{"prince_max_steps", 4}})->NewInitialState();
    const int width = state->Info().board_width;
    std::mt19937 rng(5);
    for (int ply = 0; ply < 60; ++ply) {
      MoveList moves;
      state->LegalMoves(&moves);
      if (ply % 6 == 0) {
        for (int from = 0; from < width * width; ++from) {
          for (int to = 0; to < width * width; ++to) {
            const std::string text =
                SquareName(from, width) + "-" + SquareName(to, width);
            ASSERT_EQ(state->ParseMove(text).ok(),
                      moves.contains(MakeMove(from, to, 1)))
                << text << " in " << state->PositionText();
          }
        }
      }
      if (moves.empty()) break;
      state->Play(moves[rng() % moves.size()]);
    }
  }
}

}  // namespace
}  // namespace volkhv
