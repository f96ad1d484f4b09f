#include "engine/tavreli/tavreli_game.h"

#include "engine/game/square.h"
#include "engine/tavreli/module.h"
#include "engine/tavreli/movegen.h"
#include "engine/tavreli/notation.h"
#include "engine/tavreli/tfen.h"
#include "engine/util/strings.h"

namespace volkhv::tavreli {
namespace {

const GameInfo& TavreliInfo() {
  static const GameInfo* const info =
      new GameInfo{"tavreli", 8, 8, kMaxStackHeight, "white", "black"};
  return *info;
}

class TavreliGame final : public Game {
 public:
  const GameInfo& Info() const override { return TavreliInfo(); }
  std::unique_ptr<GameState> NewInitialState() const override {
    return std::make_unique<TavreliState>(&TavreliInfo(),
                                          *ParseTfen(kStartTfen));
  }
  absl::StatusOr<std::unique_ptr<GameState>> NewStateFromText(
      std::string_view text) const override {
    absl::StatusOr<Position> pos = ParseTfen(text);
    if (!pos.ok()) return pos.status();
    return std::make_unique<TavreliState>(&TavreliInfo(), *pos);
  }
};

// One square of the diagram: the top piece and, for a stack, its height.
std::string Cell(const Position& pos, int square) {
  if (pos.Empty(square)) return ".";
  std::string cell = PieceToken(pos.Top(square), false);
  if (pos.Height(square) > 1) Append(&cell, "^", pos.Height(square));
  return cell;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Game>> MakeTavreliGame(
    const GameOptions& options) {
  if (!options.empty()) {
    return absl::InvalidArgumentError(
        Cat("tavreli has no option '", options.begin()->first, "'"));
  }
  return std::make_unique<TavreliGame>();
}

TavreliState::TavreliState(const GameInfo* info, const Position& start)
    : info_(info) {
  history_.reserve(256);
  history_.push_back(start);
}

std::unique_ptr<GameState> TavreliState::Clone() const {
  return std::make_unique<TavreliState>(*this);
}

void TavreliState::LegalMoves(MoveList* moves) const {
  GenerateLegalMoves(current(), moves);
}

void TavreliState::Play(Move move) {
  history_.push_back(history_.back());
  history_.back().Apply(move);
}

void TavreliState::Undo() {
  if (history_.size() > 1) history_.pop_back();
}

int TavreliState::Occurrences() const {
  // Sides alternate, so only every other earlier position can be the same.
  // Captures and pawn moves do not bound the scan: a capturer may leave its
  // victim again, and a piece may carry a pawn back inside its unit.
  const uint64_t hash = current().Hash();
  int count = 0;
  for (int i = static_cast<int>(history_.size()) - 1; i >= 0; i -= 2) {
    count += history_[i].Hash() == hash;
  }
  return count;
}

GameResult TavreliState::Result() const {
  const Position& pos = current();
  if (!HasLegalMove(pos)) {
    return pos.InCheck() ? GameResult{Outcome::kLoss, kCheckmate}
                         : GameResult{Outcome::kDraw, kStalemate};
  }
  if (pos.HalfmoveClock() >= 100) {
    return {Outcome::kDraw, kFiftyMoves};
  }
  if (Occurrences() >= 3) return {Outcome::kDraw, Termination::kRepetition};
  return {};
}

std::string TavreliState::PositionText() const { return ToTfen(current()); }

std::string TavreliState::MoveText(Move move) const {
  return MoveToString(current(), move);
}

absl::StatusOr<Move> TavreliState::ParseMove(std::string_view text) const {
  return tavreli::ParseMove(current(), text);
}

std::string TavreliState::BoardDiagram() const {
  const Position& pos = current();
  std::string out;
  for (int rank = 7; rank >= 0; --rank) {
    Append(&out, rank + 1, " ");
    for (int file = 0; file < 8; ++file) {
      std::string cell = Cell(pos, MakeSquare(file, rank));
      cell.resize(6, ' ');
      out += cell;
    }
    out += '\n';
  }
  out += "  a     b     c     d     e     f     g     h\n";
  std::string stacks;
  for (int s = 0; s < 64; ++s) {
    if (pos.Height(s) < 2) continue;
    Piece pieces[kMaxStackHeight];
    bool moved[kMaxStackHeight];
    const int h = pos.StackBottomToTop(s, pieces, moved);
    Append(&stacks, "  ", SquareName(s, 8), ": ");
    for (int i = 0; i < h; ++i) {
      Append(&stacks, i ? " " : "",
             PieceToken(pieces[i],
                        IsPawn(pieces[i]) && moved[i] &&
                            RankOf(s) == SecondRank(ColorOf(pieces[i]))));
    }
    stacks += '\n';
  }
  if (!stacks.empty()) {
    out += "Stacks, bottom to top (x^n on the board: n pieces topped by x):\n" +
           stacks;
  }
  return out;
}

uint64_t TavreliState::Perft(int depth) const {
  return tavreli::Perft(current(), depth);
}

}  // namespace volkhv::tavreli
