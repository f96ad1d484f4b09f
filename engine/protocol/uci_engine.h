// The UCI-style text protocol of `volkhv engine`: commands in, replies out,
// one line each. The search runs on its own thread (and its helpers, with
// Threads, the search_threads parameter, above 1) and Run reads input on a
// thread of its own (as lc0 does), so `stop`, `ponderhit`, `isready` and
// `quit` are answered at once while it thinks, even behind a command that
// waits for a limited search to end. A library class (no CLI): tests drive
// it with string streams, the CLI with stdin/stdout.
//
// Commands (one per line; malformed ones get `info string error ...` and the
// engine keeps running):
//   uci                      id lines, one `option` line per option, uciok
//   isready                  loads the net if needed, then readyok
//   ucinewgame               forgets the search tree
//   setoption name X [value Y]   (Threads is the search_threads parameter;
//                            the alpha-beta player says it has one thread)
//   position startpos [moves M1 M2 ...]
//   position tfen TEXT [moves M1 M2 ...]   (`fen` is accepted too; TEXT is
//                            the game's one-line notation, read up to `moves`)
//                            A rejected position leaves none: `go` and `d`
//                            answer an error until a position is accepted.
//   go [nodes N] [visits N] [movetime MS] [wtime MS btime MS winc MS binc MS
//      movestogo N] [depth N] [mate N] [searchmoves M1 M2 ...] [ponder]
//      [infinite]             (no limit at all: infinite)
//   ponderhit                the pondered move was played: the `go ponder`
//                            search goes on as a normal one with its limits
//   stop                     ends the search; bestmove follows
//   quit                     stops any search and ends Run
//   d                        the board and the position text, as info strings
// Replies: `info depth D seldepth S [multipv K] nodes N nps X time T
// [hashfull H] score cp C|mate M wdl W D L pv M1 M2 ...` (hashfull: per
// mille of the tree's memory cap, when one is set; WDL per mille, from the
// side to move's view) at least once a second and once at the end of a
// search, then `bestmove M [ponder P]` (P: the expected reply, the second
// move of M's PV, when the tree has one), or `bestmove (none)` when the game
// is over. A proven result is `score mate M` (moves, negative when losing).
// `nodes` counts the playouts of this `go`; `go nodes N` limits them, `go
// visits N` limits the root's visits including those kept from the previous
// search. MCTS has no fixed depth: `go depth N` ends the search once the
// reported depth (the mean depth of this search's playouts) reaches N; `go
// mate N` ends it once the root is proven won in at most N moves (alone it
// searches until then, or until `stop`). `go searchmoves` searches only the
// moves listed (the tree is grown afresh when the list changes). Successive
// `position`+`go` commands of one game reuse the search tree.
//
// With `alphabeta` set in the options the engine plays the alpha-beta
// baseline (engine/search/alphabeta.h) instead: no net, no search options;
// `go depth N` (at most 60), `movetime`, clocks and `nodes` are its limits
// (`mate N`: depth 2N - 1; `visits` counts as nodes), a bare `go` uses the
// spec's own limits, `infinite` and `ponder` search to depth 60 and wait;
// one `info` line with depth, nodes, score and pv ends each search;
// `searchmoves` is refused.
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
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/game/game.h"
#include "engine/game/heuristic.h"
#include "engine/games/games.h"
#include "engine/search/alphabeta.h"
#include "engine/search/search.h"
#include "engine/search/search_params.h"
#include "engine/search/search_result.h"
#include "engine/search/time_manager.h"
#include "nn/evaluator.h"

namespace volkhv::protocol {

// "net 'X': <message>" for a factory error, or just the message when it
// names the net already.
std::string EvaluatorError(const std::string& net, const absl::Status& status);

// The alpha-beta baseline as the engine's player (`volkhv engine --player
// alphabeta:depth=N`).
struct AlphaBetaEngineOptions {
  std::string name;                // the spec, shown in `id name`
  search::AlphaBetaLimits limits;  // of a bare `go`
  search::AlphaBetaOptions options;
};

struct UciEngineOptions {
  std::string game{DefaultGameName()};  // a registered game
  // Options of any registered game (UCI options named after them); the game
  // gets those it knows.
  GameOptions game_options;
  // The net (UCI WeightsFile, or its older name Net), asked of the factory.
  std::string net = "random";
  // UCI's Backend and NNCacheSize: the front end's evaluator settings, and
  // how to make the factory for other values of them (its settings with
  // those two changed; nn::MakeEvaluatorFactory of a changed
  // proto::EvaluatorConfig in the CLI). Without it the two options are not
  // offered.
  std::string backend = "auto";
  int nn_cache_entries = 1 << 18;
  std::function<nn::EvaluatorFactory(const std::string& backend,
                                     int cache_entries)>
      factory_for;
  search::SearchParams params;
  uint64_t seed = 1;
  int multipv = 1;  // info lines per report, one per top move
  // How often a running search reports (`info` lines).
  int64_t progress_interval_ms = 1000;
  // Longer command lines are answered with an error and skipped.
  size_t max_line_bytes = 1 << 20;
  // Set: the engine plays the alpha-beta baseline instead of MCTS.
  std::optional<AlphaBetaEngineOptions> alphabeta;
};

class UciEngine {
 public:
  // `out` must outlive the engine; whole lines are written to it under a
  // mutex and flushed. `factory` makes the evaluator of the net option for
  // the game (nn/evaluator.h; a net for another game is an error naming
  // both); it is called on the thread feeding commands.
  UciEngine(UciEngineOptions options, nn::EvaluatorFactory factory,
            std::ostream* out);
  // Stops a running search and waits for it.
  ~UciEngine();
  UciEngine(const UciEngine&) = delete;
  UciEngine& operator=(const UciEngine&) = delete;

  // Makes the game and the evaluator (or the alpha-beta player) now rather
  // than at the first isready or go, so that a bad game, a missing net or a
  // net for another game is an error before `uci` is answered (the factory's
  // error). Call before Run, on the thread that will feed commands.
  absl::Status Load();

  // Reads commands until `quit` or the end of `in`. At the end of input a
  // running limited search is finished, an infinite (or pondering) one
  // stopped (its bestmove is still written). Returns 0. Lines are read on a
  // thread of their own: a command that waits for a running limited search
  // (position, go, setoption, ucinewgame, d) waits, but `stop`, `ponderhit`,
  // `quit` and `isready` received meanwhile are handled at once. After
  // `quit` the reader is joined, except on std::cin, where it may be blocked
  // and is left behind.
  int Run(std::istream& in);

  // Handles one command line; returns false after `quit`. One thread at a
  // time feeds commands (the engine's own search thread aside).
  bool Handle(std::string_view line);

  // Blocks until no search is running (an infinite or pondering one runs
  // until `stop`, a pondering one also until `ponderhit` and its limits).
  void WaitForSearch();

  // The `option` lines `uci` prints.
  std::vector<std::string> OptionLines() const;

 private:
  // What a `go` asked for, parsed.
  struct Go {
    search::TimeControl control;
    std::vector<std::string> searchmoves;
    bool ponder = false;
  };

  void Send(const std::string& line);
  void Error(std::string_view what);

  // Waits for a limited search; stops an infinite or pondering one first.
  void FinishSearch();
  void StopSearch();
  void JoinSearch();

  void CommandUci();
  void CommandIsReady();
  void CommandNewGame();
  void CommandSetOption(const std::vector<std::string_view>& tokens);
  void CommandPosition(const std::vector<std::string_view>& tokens);
  void CommandGo(const std::vector<std::string_view>& tokens);
  void CommandPonderHit();
  void CommandShow();

  // Reads the parameters of `go`; errors are reported (nothing returned).
  std::optional<Go> ParseGo(const std::vector<std::string_view>& tokens);
  // Makes the game (after a change of Game or a game option) and resets the
  // position to its start. Errors are reported.
  bool MakeCurrentGame();
  // The game, then the evaluator and the Search (or the alpha-beta search)
  // when missing.
  absl::Status Prepare();
  // Prepare(), its error reported.
  bool EnsureSearch();
  // Replaces the evaluator by the one for these settings (a Net,
  // WeightsFile, Backend or NNCacheSize option: the factory, or for another
  // backend or cache size options_.factory_for's); refused (reported, the
  // old evaluator and factory kept) when that fails. The tree is forgotten.
  void ChangeEvaluator(std::string_view option, const std::string& net,
                       const std::string& backend, int cache_entries);
  bool alphabeta() const { return options_.alphabeta.has_value(); }
  // The position `position` set (start_ after moves_).
  std::unique_ptr<GameState> CurrentState() const;
  // Starts the search thread running `body`; false (reported) if it cannot.
  bool StartThread(std::function<void()> body);

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

  // The MCTS search thread: with `ponder`, an infinite search until
  // `ponderhit` or `stop`, then (after ponderhit) one with `limits`.
  void SearchThread(search::SearchLimits limits, bool ponder);
  void SendReport(const search::SearchResult& result);
  // The alpha-beta search thread, likewise.
  void AlphaBetaThread(std::unique_ptr<GameState> root,
                       search::AlphaBetaLimits limits, bool infinite,
                       bool ponder);
  // Sleeps until `flag` is set.
  static void WaitFor(const std::atomic<bool>& flag);

  nn::EvaluatorFactory factory_;  // replaced by Backend and NNCacheSize
  std::ostream* const out_;
  std::mutex out_mu_;

  UciEngineOptions options_;
  std::unique_ptr<Game> game_;
  std::unique_ptr<GameState> start_;
  std::vector<Move> moves_;
  // False after a rejected `position` (until one is accepted, the game
  // changes or ucinewgame).
  bool has_position_ = true;
  // Declared before search_: the Search points at it.
  std::shared_ptr<nn::Evaluator> evaluator_;
  std::unique_ptr<search::Search> search_;
  // The alpha-beta player's (declared before the search that points at it).
  std::unique_ptr<Heuristic> heuristic_;
  std::unique_ptr<search::AlphaBetaSearch> alphabeta_;

  std::thread thread_;
  std::atomic<bool> stop_{false};         // ends the search (stop, quit)
  std::atomic<bool> ponder_stop_{false};  // ends pondering (also ponderhit)
  std::atomic<bool> searching_{false};    // the search thread has not ended
  std::shared_ptr<Input> input_;          // while Run runs
  // Of the running search, on the thread feeding commands: infinite (or
  // pondering) searches are stopped by the next position, go, ...; pondering
  // until ponderhit, which makes infinite_ after_ponderhit_infinite_.
  bool infinite_ = false;
  bool pondering_ = false;
  bool after_ponderhit_infinite_ = false;
};

}  // namespace volkhv::protocol

#endif  // VOLKHV_ENGINE_PROTOCOL_UCI_ENGINE_H_
