// Nim's rules and notation (module.h).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "engine/util/random.h"
#include "engine/util/strings.h"
#include "tests/nim/module.h"

namespace volkhv::nim {
namespace {

class NimState final : public GameState {
 public:
  NimState(std::shared_ptr<const GameInfo> info, int pile, int side)
      : info_(std::move(info)), pile_(pile), side_(side) {}

  const GameInfo& Info() const override { return *info_; }
  std::unique_ptr<GameState> Clone() const override {
    return std::make_unique<NimState>(*this);
  }
  int SideToMove() const override { return side_; }
  int PliesPlayed() const override { return static_cast<int>(taken_.size()); }
  void LegalMoves(MoveList* moves) const override {
    moves->clear();
    for (int take = 1; take <= kMaxTake && take <= pile_; ++take) {
      moves->push_back(MakeMove(pile_, pile_ - take, 1));
    }
  }
  void Play(Move move) override {
    taken_.push_back(move.from - move.to);
    pile_ = move.to;
    side_ ^= 1;
  }
  void Undo() override {
    pile_ += taken_.back();
    taken_.pop_back();
    side_ ^= 1;
  }
  GameResult Result() const override {
    if (pile_ > 0) return {};
    return {Outcome::kLoss, kLastStoneTaken};
  }
  bool InCheck() const override { return false; }
  // The pile only shrinks: no position comes back.
  int Occurrences() const override { return 1; }
  uint64_t Hash() const override {
    return SplitMix64Mix(uint64_t(pile_) * 2 + side_ + kSplitMix64Increment);
  }
  std::string PositionText() const override { return Cat(pile_, " ", side_); }
  std::string MoveText(Move move) const override {
    return Cat(move.from - move.to);
  }
  absl::StatusOr<Move> ParseMove(std::string_view text) const override {
    int take = 0;
    if (!absl::SimpleAtoi(std::string(Trim(text)), &take) || take < 1 ||
        take > kMaxTake || take > pile_) {
      return absl::InvalidArgumentError(
          Cat("nim: '", text, "' is not a legal move (take 1 to ",
              std::min(kMaxTake, pile_), " stones)"));
    }
    return MakeMove(pile_, pile_ - take, 1);
  }
  std::string BoardDiagram() const override {
    return Cat(
        "pile ", pile_, ", ",
        side_ == 0 ? info_->first_player_name : info_->second_player_name,
        " to move\n");
  }
  int PiecesOn(int square) const override { return square == pile_ ? 1 : 0; }
  uint64_t Perft(int depth) const override {
    if (depth == 0) return 1;
    MoveList moves;
    LegalMoves(&moves);
    if (depth == 1) return moves.size();
    uint64_t leaves = 0;
    NimState child = *this;
    for (Move move : moves) {
      child.Play(move);
      leaves += child.Perft(depth - 1);
      child.Undo();
    }
    return leaves;
  }

 private:
  // Shared with the game: a state may outlive the game that made it.
  std::shared_ptr<const GameInfo> info_;
  int pile_;
  int side_;
  std::vector<int> taken_;  // stones taken by each ply played
};

class NimGame final : public Game {
 public:
  explicit NimGame(int stones) {
    auto info = std::make_shared<GameInfo>();
    info->name = "nim";
    info->board_width = stones + 1;
    info->board_height = 1;
    info->first_player_name = "first";
    info->second_player_name = "second";
    info_ = std::move(info);
  }
  const GameInfo& Info() const override { return *info_; }
  std::unique_ptr<GameState> NewInitialState() const override {
    return std::make_unique<NimState>(info_, info_->board_width - 1, 0);
  }
  absl::StatusOr<std::unique_ptr<GameState>> NewStateFromText(
      std::string_view text) const override {
    const std::vector<std::string_view> fields = Split(text, " ", true);
    int pile = -1, side = -1;
    if (fields.size() != 2 ||
        !absl::SimpleAtoi(std::string(fields[0]), &pile) ||
        !absl::SimpleAtoi(std::string(fields[1]), &side) || pile < 0 ||
        pile >= info_->board_width || (side != 0 && side != 1)) {
      return absl::InvalidArgumentError(
          Cat("nim position '", text, "': expected '<pile 0..",
              info_->board_width - 1, "> <side 0|1>'"));
    }
    return std::make_unique<NimState>(info_, pile, side);
  }

 private:
  std::shared_ptr<const GameInfo> info_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Game>> MakeNimGame(const GameOptions& options) {
  int stones = 10;
  for (const auto& [name, value] : options) {
    if (name != "stones") {
      return absl::InvalidArgumentError(
          Cat("nim: unknown game option '", name, "' (known: stones)"));
    }
    if (value < 1 || value > 20) {
      return absl::InvalidArgumentError(
          Cat("nim: stones must be in [1, 20], got ", value));
    }
    stones = value;
  }
  return std::make_unique<NimGame>(stones);
}

}  // namespace volkhv::nim
