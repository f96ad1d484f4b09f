#include "selfplay/engine_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

#include "engine/util/strings.h"

extern char** environ;

namespace volkhv::selfplay {
namespace {

constexpr size_t kMaxLineBytes = 1 << 20;

std::string DescribeStatus(int status) {
  if (WIFEXITED(status)) return Cat("exited with status ", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return Cat("killed by signal ", WTERMSIG(status));
  return "ended";
}

}  // namespace

EngineProcess::~EngineProcess() {
  if (running()) Stop(std::chrono::milliseconds(1000));
  if (fd_ >= 0) close(fd_);
}

absl::Status EngineProcess::Start(const std::vector<std::string>& argv) {
  if (argv.empty() || argv[0].empty()) {
    return absl::InvalidArgumentError("engine: no command");
  }
  int fds[2];
  // Close-on-exec, so that no other engine started meanwhile holds this
  // one's end open (its exit must read as end of file here).
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
    return absl::InternalError(
        Cat("engine ", argv[0], ": socketpair: ", std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null",
                                   O_WRONLY, 0);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGPIPE);
  sigaddset(&defaults, SIGTERM);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP |
                                      POSIX_SPAWN_SETSIGDEF |
                                      POSIX_SPAWN_SETSIGMASK);
  std::vector<std::string> copy = argv;
  std::vector<char*> args;
  for (std::string& a : copy) args.push_back(a.data());
  args.push_back(nullptr);
  pid_t pid = -1;
  const int error =
      posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(fds[1]);
  if (error != 0) {
    close(fds[0]);
    return absl::InvalidArgumentError(
        Cat("engine ", argv[0], ": cannot start: ", std::strerror(error)));
  }
  pid_ = pid;
  fd_ = fds[0];
  buffer_.clear();
  return absl::OkStatus();
}

bool EngineProcess::WriteLine(const std::string& line) {
  if (fd_ < 0) return false;
  const std::string text = line + "\n";
  size_t done = 0;
  while (done < text.size()) {
    // MSG_NOSIGNAL: a child that is gone is an error here, not a SIGPIPE.
    const ssize_t n =
        send(fd_, text.data() + done, text.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

EngineProcess::Read EngineProcess::ReadLine(
    std::chrono::steady_clock::time_point deadline,
    const std::atomic<bool>* cancel, std::string* line) {
  while (true) {
    if (const size_t eol = buffer_.find('\n'); eol != std::string::npos) {
      *line = buffer_.substr(0, eol);
      if (!line->empty() && line->back() == '\r') line->pop_back();
      buffer_.erase(0, eol + 1);
      return Read::kLine;
    }
    if (buffer_.size() >= kMaxLineBytes) {
      *line = buffer_.substr(0, kMaxLineBytes);
      buffer_.erase(0, kMaxLineBytes);
      return Read::kLine;
    }
    if (fd_ < 0) return Read::kClosed;
    if (cancel != nullptr && cancel->load()) return Read::kCancelled;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return Read::kTimeout;
    const int64_t wait_ms = std::clamp<int64_t>(
        std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count(), 1,
        50);
    pollfd p{fd_, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(wait_ms));
    if (ready < 0 && errno != EINTR) return Read::kClosed;
    if (ready <= 0) continue;
    char chunk[4096];
    const ssize_t n = recv(fd_, chunk, sizeof chunk, 0);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) {
      if (!buffer_.empty()) {  // a last line without its end
        *line = buffer_;
        buffer_.clear();
        return Read::kLine;
      }
      return Read::kClosed;
    }
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

std::string EngineProcess::Reap(bool block) {
  if (pid_ <= 0) return "";
  int status = 0;
  pid_t r;
  do {
    r = waitpid(pid_, &status, block ? 0 : WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r == 0) return "";
  pid_ = -1;
  if (fd_ >= 0) {
    close(fd_);
    fd_ = -1;
  }
  return r < 0 ? std::string("ended") : DescribeStatus(status);
}

std::string EngineProcess::Kill() {
  if (pid_ <= 0) return "";
  if (std::string how = Reap(false); !how.empty()) return how;
  kill(-pid_, SIGKILL);  // its process group: what it started, too
  kill(pid_, SIGKILL);
  return Reap(true);
}

std::string EngineProcess::Stop(std::chrono::milliseconds grace) {
  if (pid_ <= 0) return "";
  WriteLine("quit");
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (std::chrono::steady_clock::now() < deadline) {
    if (std::string how = Reap(false); !how.empty()) return how;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return Kill();
}

}  // namespace volkhv::selfplay
