// The UCI-style text protocol of `volkhv engine`: commands in, replies out,
// one line each. The search runs on its own thread and Run reads input on a
// thread of its own (as lc0 does), so `stop`, `isready` and `quit` are
// answered at once while it thinks, even behind a command that waits for a
// limited search to end. A library class (no CLI): tests drive
// it with string streams, the CLI with stdin/stdout.
//
// Commands (one per line; malformed ones get `info string error ...` and the
// engine keeps running):
//   uci                      id lines, one `option` line per option, uciok
//   isready                  loads the net if needed, then readyok
//   ucinewgame               forgets the search tree
//   setoption name X [value Y]
//   position startpos [moves M1 M2 ...]
//   position tfen TEXT [moves M1 M2 ...]   (`fen` is accepted too; TEXT is
//                            the game's one-line notation, read up to `moves`)
//   go [nodes N] [visits N] [movetime MS] [wtime MS btime MS winc MS binc MS
//      movestogo N] [infinite]   (no limit at all: infinite)
//   stop                     ends the search; bestmove follows
//   quit                     stops any search and ends Run
//   d                        the board and the position text, as info strings
// Replies: `info depth D seldepth S [multipv K] nodes N nps X time T
// [hashfull H] score cp C|mate M wdl W D L pv M1 M2 ...` (hashfull: per
// mille of the tree's memory cap, when one is set; WDL per mille, from the
// side to move's view) at least once a second and once at the end of a
// search, then `bestmove M`, or `bestmove (none)` when the game is over. A
// proven result is `score mate M` (moves, negative when losing). `nodes` counts
// the playouts of this `go`; `go nodes N` limits them, `go visits N` limits
// the root's visits including those kept from the previous search.
// Successive `position`+`go` commands of one game reuse the search tree.
#ifndef VOLKHV_ENGINE_PROTOCOL_UCI_ENGINE_H_
#define VOLKHV_ENGINE_PROTOCOL_UCI_ENGINE_H_

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <istream>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/game/game.h"
#include "engine/games/games.h"
#include "engine/search/search.h"
#include "engine/search/search_params.h"
#include "engine/search/search_result.h"
#include "nn/evaluator.h"

namespace volkhv::protocol {

// "net 'X': <message>" for a factory error, or just the message when it
// names the net already.
std::string EvaluatorError(const std::string& net, const absl::Status& status);

struct UciEngineOptions {
  std::string game{DefaultGameName()};  // a registered game
  // Options of any registered game (UCI options named after them); the game
  // gets those it knows.
  GameOptions game_options;
  std::string net = "random";
  search::SearchParams params;
  uint64_t seed = 1;
  int multipv = 1;  // info lines per report, one per top move
  // How often a running search reports (`info` lines).
  int64_t progress_interval_ms = 1000;
  // Longer command lines are answered with an error and skipped.
  size_t max_line_bytes = 1 << 20;
};

class UciEngine {
 public:
  // `out` must outlive the engine; whole lines are written to it under a
  // mutex and flushed.
  // `factory` makes the evaluator of the net option for the game
  // (nn/evaluator.h); it is called on the thread feeding commands.
  UciEngine(UciEngineOptions options, nn::EvaluatorFactory factory,
            std::ostream* out);
  // Stops a running search and waits for it.
  ~UciEngine();
  UciEngine(const UciEngine&) = delete;
  UciEngine& operator=(const UciEngine&) = delete;

  // Reads commands until `quit` or the end of `in`. At the end of input a
  // running limited search is finished, an infinite one stopped (its
  // bestmove is still written). Returns 0. Lines are read on a thread of
  // their own: a command that waits for a running limited search (position,
  // go, setoption, ucinewgame, d) waits, but `stop`, `quit` and `isready`
  // received meanwhile are handled at once. After `quit` the reader is
  // joined, except on std::cin, where it may be blocked and is left behind.
  int Run(std::istream& in);

  // Handles one command line; returns false after `quit`. One thread at a
  // time feeds commands (the engine's own search thread aside).
  bool Handle(std::string_view line);

  // Blocks until no search is running (an infinite one runs until `stop`).
  void WaitForSearch();

  // The `option` lines `uci` prints.
  std::vector<std::string> OptionLines() const;

 private:
  void Send(const std::string& line);
  void Error(std::string_view what);

  // Waits for a limited search; stops an infinite one first.
  void FinishSearch();
  void StopSearch();

  void CommandUci();
  void CommandIsReady();
  void CommandNewGame();
  void CommandSetOption(const std::vector<std::string_view>& tokens);
  void CommandPosition(const std::vector<std::string_view>& tokens);
  void CommandGo(const std::vector<std::string_view>& tokens);
  void CommandShow();

  // Makes the game (after a change of Game or a game option) and resets the
  // position to its start. Errors are reported.
  bool MakeCurrentGame();
  // Makes the evaluator and the Search when missing. Errors are reported.
  bool EnsureSearch();

  // Input read by Run's reader thread; shared with it, since on std::cin it
  // may outlive Run.
  struct Input {
    std::mutex mu;
    std::condition_variable cv;  // a line came, the input ended, or the
                                 // search ended
    std::deque<std::string> lines;
    bool ended = false;
    bool quit = false;  // Run is done: the reader stops after its line
  };
  // Takes the next command Run should handle now (waiting for one).
  // Returns false at the end of input.
  bool NextCommand(Input& input, std::string* line);

  void SearchThread(search::SearchLimits limits);
  void SendReport(const search::SearchResult& result);

  const nn::EvaluatorFactory factory_;
  std::ostream* const out_;
  std::mutex out_mu_;

  UciEngineOptions options_;
  std::unique_ptr<Game> game_;
  std::unique_ptr<GameState> start_;
  std::vector<Move> moves_;
  // Declared before search_: the Search points at it.
  std::shared_ptr<nn::Evaluator> evaluator_;
  std::unique_ptr<search::Search> search_;

  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> searching_{false};  // the search thread has not ended
  std::shared_ptr<Input> input_;        // while Run runs
  bool infinite_ = false;               // of the running search
};

}  // namespace volkhv::protocol

#endif  // VOLKHV_ENGINE_PROTOCOL_UCI_ENGINE_H_
