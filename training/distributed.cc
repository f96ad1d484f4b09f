#include "training/distributed.h"

#include "engine/util/parse_number.h"
#include "engine/util/strings.h"

namespace volkhv::training {
namespace {

constexpr int kMaxTimeoutSeconds = 86400;

// The flag's text if given, else the variable's value, else "". `source`
// names where it came from, for errors.
std::string Pick(const std::string& flag_text, std::string_view flag,
                 const char* variable,
                 const std::function<const char*(const char*)>& getenv,
                 std::string* source) {
  if (!flag_text.empty()) {
    *source = std::string(flag);
    return flag_text;
  }
  const char* value = getenv ? getenv(variable) : nullptr;
  *source = Cat("environment variable ", variable);
  return value == nullptr ? std::string() : std::string(value);
}

}  // namespace

absl::Status ParseHostPort(std::string_view text, std::string_view what,
                           std::string* host, int* port) {
  const std::string shown = OneLine(text);
  auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(
        Cat(what, ": expected ADDR:PORT (e.g. 10.0.0.1:29500), got '", shown,
            "': ", why));
  };
  std::string_view address, port_text;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string_view::npos) return bad("no ']' after '['");
    address = text.substr(1, close - 1);
    if (close + 1 >= text.size() || text[close + 1] != ':') {
      return bad("no ':PORT' after ']'");
    }
    port_text = text.substr(close + 2);
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return bad("no ':PORT'");
    address = text.substr(0, colon);
    port_text = text.substr(colon + 1);
    if (address.find(':') != std::string_view::npos) {
      return bad("an IPv6 address goes in brackets, [ADDR]:PORT");
    }
  }
  if (address.empty()) return bad("the address is empty");
  for (const char c : address) {
    if (c <= ' ' || c == '/' || c == '[' || c == ']' || c > '~') {
      return bad("the address holds a character no host name has");
    }
  }
  const std::optional<int> value = ToInt<int>(port_text);
  if (!value || *value < 1 || *value > 65535) {
    return bad("the port is not an integer in [1, 65535]");
  }
  *host = std::string(address);
  *port = *value;
  return absl::OkStatus();
}

absl::Status CheckDistributedOptions(const DistributedOptions& o) {
  if (o.world_size < 1 || o.world_size > kMaxWorldSize) {
    return absl::InvalidArgumentError(Cat(
        "world size ", o.world_size, " is not in [1, ", kMaxWorldSize, "]"));
  }
  if (o.rank < 0 || o.rank >= o.world_size) {
    return absl::InvalidArgumentError(Cat("rank ", o.rank, " is not in [0, ",
                                          o.world_size - 1, "] (world size ",
                                          o.world_size, ")"));
  }
  if (o.timeout_seconds < 1 || o.timeout_seconds > kMaxTimeoutSeconds) {
    return absl::InvalidArgumentError(
        Cat("distributed timeout ", o.timeout_seconds, " s is not in [1, ",
            kMaxTimeoutSeconds, "]"));
  }
  if (o.backend != "gloo" && o.backend != "nccl") {
    return absl::InvalidArgumentError(Cat("distributed backend '",
                                          OneLine(o.backend),
                                          "': expected gloo or nccl"));
  }
  if (o.enabled() &&
      (o.master_host.empty() || o.master_port < 1 || o.master_port > 65535)) {
    return absl::InvalidArgumentError(
        Cat("world size ", o.world_size,
            " needs the master's address and port (1..65535)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<DistributedOptions> ResolveDistributedOptions(
    const DistributedFlags& flags,
    const std::function<const char*(const char*)>& getenv) {
  DistributedOptions o;
  std::string source;
  const std::string world =
      Pick(flags.world_size, "--world-size", "WORLD_SIZE", getenv, &source);
  if (!world.empty()) {
    absl::StatusOr<int> n = ParseInt<int>(world, source, 1, kMaxWorldSize);
    if (!n.ok()) return n.status();
    o.world_size = *n;
  }
  const std::string world_source = source;
  const std::string rank = Pick(flags.rank, "--rank", "RANK", getenv, &source);
  if (!rank.empty()) {
    absl::StatusOr<int> r = ParseInt<int>(rank, source, 0, kMaxWorldSize - 1);
    if (!r.ok()) return r.status();
    o.rank = *r;
    if (o.rank >= o.world_size) {
      return absl::InvalidArgumentError(
          Cat(source, ": rank ", o.rank, " is not below the world size ",
              o.world_size, world.empty() ? "" : Cat(" (", world_source, ")"),
              "; ranks are 0..", o.world_size - 1));
    }
  }
  if (!flags.master.empty()) {
    if (absl::Status s = ParseHostPort(flags.master, "--master", &o.master_host,
                                       &o.master_port);
        !s.ok()) {
      return s;
    }
  } else if (o.world_size > 1) {
    const char* address = getenv ? getenv("MASTER_ADDR") : nullptr;
    const char* port = getenv ? getenv("MASTER_PORT") : nullptr;
    if (address == nullptr || *address == '\0' || port == nullptr ||
        *port == '\0') {
      return absl::InvalidArgumentError(
          Cat("--master ADDR:PORT (or the environment variables MASTER_ADDR "
              "and MASTER_PORT) is required with world size ",
              o.world_size));
    }
    const std::string address_text(address);
    const bool ipv6 = address_text.find(':') != std::string::npos &&
                      address_text.front() != '[';
    if (absl::Status s = ParseHostPort(
            Cat(ipv6 ? "[" : "", address_text, ipv6 ? "]" : "", ":", port),
            "MASTER_ADDR:MASTER_PORT", &o.master_host, &o.master_port);
        !s.ok()) {
      return s;
    }
  }
  if (!flags.timeout_s.empty()) {
    absl::StatusOr<int> t = ParseInt<int>(flags.timeout_s, "--dist-timeout-s",
                                          1, kMaxTimeoutSeconds);
    if (!t.ok()) return t.status();
    o.timeout_seconds = *t;
  }
  if (!flags.backend.empty()) {
    if (flags.backend != "gloo" && flags.backend != "nccl") {
      return absl::InvalidArgumentError(
          Cat("--dist-backend: expected gloo or nccl, got '",
              OneLine(flags.backend), "'"));
    }
    o.backend = flags.backend;
  }
  if (absl::Status s = CheckDistributedOptions(o); !s.ok()) return s;
  return o;
}

}  // namespace volkhv::training
