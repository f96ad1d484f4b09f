// An outside engine as a child process spoken to by lines over a socket pair
// (its stdin and stdout; its stderr goes to /dev/null), for the match's
// `uci:` players. The child runs in its own process group (a Ctrl-C at the
// terminal reaches the match, which ends its engines itself) and is always
// reaped: the destructor asks it to quit, and kills it when it does not.
#ifndef VOLKHV_SELFPLAY_ENGINE_PROCESS_H_
#define VOLKHV_SELFPLAY_ENGINE_PROCESS_H_

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace volkhv::selfplay {

// One child process. Not thread-safe (one game's thread).
class EngineProcess {
 public:
  EngineProcess() = default;
  ~EngineProcess();
  EngineProcess(const EngineProcess&) = delete;
  EngineProcess& operator=(const EngineProcess&) = delete;

  // Starts `argv` (argv[0] a path, or a name looked up in PATH). Errors: no
  // such program, no process.
  absl::Status Start(const std::vector<std::string>& argv);
  bool running() const { return pid_ > 0; }

  // Sends `line` and a newline; false when the engine is gone.
  bool WriteLine(const std::string& line);

  enum class Read { kLine, kTimeout, kClosed, kCancelled };
  // The next line (without its end) into *line, waiting until `deadline`;
  // kClosed when the engine closed its output (it exited), kCancelled when
  // *cancel became true (checked every 50 ms). Lines longer than 1 MB are
  // cut there.
  Read ReadLine(std::chrono::steady_clock::time_point deadline,
                const std::atomic<bool>* cancel, std::string* line);

  // Kills the child and its process group (SIGKILL) and reaps it; "" if none
  // was running, else how it ended ("exited with status 3", "killed by signal
  // 11").
  std::string Kill();
  // Sends `quit`, waits up to `grace` for the child to exit, kills it if it
  // has not; returns how it ended, as Kill.
  std::string Stop(std::chrono::milliseconds grace);

 private:
  // Reaps the child if it has exited (or waits when `block`); "" when it is
  // still running.
  std::string Reap(bool block);

  pid_t pid_ = -1;
  int fd_ = -1;
  std::string buffer_;
};

}  // namespace volkhv::selfplay

#endif  // VOLKHV_SELFPLAY_ENGINE_PROCESS_H_
