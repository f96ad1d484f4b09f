// The one place where search defaults are set, each next to its help text.
#include "engine/search/search_params.h"

#include <charconv>
#include <variant>

#include "engine/util/parse_number.h"
#include "engine/util/strings.h"

namespace volkhv::search {
namespace {

using Field = std::variant<double SearchParams::*, int SearchParams::*,
                           bool SearchParams::*>;

struct Row {
  std::string_view name;
  Field field;
  double default_value;
  double min;
  double max;
  std::string_view help;
};

// PUCT constants follow lc0's defaults; noise follows KataGo's total
// concentration (alpha * moves ~ 10). Keep this the only list of defaults.
const Row kRows[] = {
    {"cpuct_init", &SearchParams::cpuct_init, 1.745, 0, 100,
     "PUCT exploration constant at low visit counts"},
    {"cpuct_base", &SearchParams::cpuct_base, 38739, 1, 1e9,
     "visit scale of the logarithmic growth of cpuct"},
    {"cpuct_factor", &SearchParams::cpuct_factor, 3.894, 0, 100,
     "weight of the logarithmic growth of cpuct"},
    {"fpu_reduction", &SearchParams::fpu_reduction, 0.330, -2, 2,
     "unvisited children count as Q(parent) minus this times "
     "sqrt(visited policy mass)"},
    {"fpu_reduction_at_root", &SearchParams::fpu_reduction_at_root, 0.330, -2,
     2, "the same reduction at the root"},
    {"policy_softmax_temp", &SearchParams::policy_softmax_temp, 1.0, 0.01, 100,
     "priors are raised to 1/T and renormalised at expansion"},
    {"root_noise", &SearchParams::root_noise, 0, 0, 1,
     "mix Dirichlet noise into the root priors (self-play)"},
    {"dirichlet_alpha_factor", &SearchParams::dirichlet_alpha_factor, 10.0,
     0.001, 1000, "Dirichlet alpha = this / number of legal moves"},
    {"dirichlet_epsilon", &SearchParams::dirichlet_epsilon, 0.25, 0, 1,
     "weight of the noise in the root priors"},
    {"forced_playouts_k", &SearchParams::forced_playouts_k, 0, 0, 100,
     "forced root playouts: a visited root child gets at least "
     "sqrt(k * prior * child visits) visits (self-play; 0 = off)"},
    {"gumbel", &SearchParams::gumbel, 0, 0, 1,
     "Gumbel AlphaZero search: Gumbel-top-k and Sequential Halving at the "
     "root, the improved-policy rule below it (0 = PUCT)"},
    {"gumbel_considered", &SearchParams::gumbel_considered, 16, 1, 1152,
     "Gumbel: root moves sampled for Sequential Halving"},
    {"gumbel_c_visit", &SearchParams::gumbel_c_visit, 50, 0, 1e6,
     "Gumbel: sigma(q) = (c_visit + max visits) * c_scale * q"},
    {"gumbel_c_scale", &SearchParams::gumbel_c_scale, 0.1, 0, 100,
     "Gumbel: the scale of sigma(q), q rescaled to [0, 1]"},
    {"gumbel_noise", &SearchParams::gumbel_noise, 0, 0, 1,
     "Gumbel: sample the root's Gumbel noise (self-play; 0 = deterministic)"},
    {"gumbel_budget", &SearchParams::gumbel_budget, 800, 1, 1 << 24,
     "Gumbel: the simulations Sequential Halving plans for when a search "
     "has no visit or node limit"},
    {"two_fold_draws", &SearchParams::two_fold_draws, 1, 0, 1,
     "a position repeating an earlier one of the game scores as a draw in "
     "the search"},
    {"immediate_wins", &SearchParams::immediate_wins, 1, 0, 1,
     "a position whose side to move can win at once (where the game can "
     "tell cheaply) is scored as won without evaluating it"},
    {"avoid_immediate_losses", &SearchParams::avoid_immediate_losses, 1, 0, 1,
     "at expansion, a move after which the opponent can win at once is a "
     "proven loss with prior 0"},
    {"avoid_unstoppable_threats", &SearchParams::avoid_unstoppable_threats, 1,
     0, 1,
     "with avoid_immediate_losses: also a move after which the opponent has "
     "a threat of an immediate win that no reply stops"},
    {"unstoppable_threats", &SearchParams::unstoppable_threats, 1, 0, 1,
     "a position whose side to move has a threat of an immediate win that "
     "no reply stops (where the game can tell cheaply) is scored as won"},
    {"wins_in_five", &SearchParams::wins_in_five, 1, 0, 1,
     "with unstoppable_threats: a position whose side to move has a move "
     "after which every reply allows an immediate win or an unstoppable "
     "threat (where the game can tell cheaply) is scored as won"},
    {"draw_score", &SearchParams::draw_score, 0, -1, 1,
     "value of a draw to the side to move at the root, in W-L units "
     "(negative: play for a win)"},
    {"draw_score_opponent", &SearchParams::draw_score_opponent, 0, -1, 1,
     "value of a draw to the root's opponent, as the search assumes it"},
    {"mlh_slope", &SearchParams::mlh_slope, 0, 0, 1,
     "moves left: Q bonus per ply a child is shorter (winning) or longer "
     "(losing) than its parent's mean, with a net that has a moves-left "
     "head (lc0 uses 0.0027; 0 = off)"},
    {"mlh_cap", &SearchParams::mlh_cap, 0.0345, 0, 1,
     "moves left: the largest bonus, in W-L units"},
    {"mlh_q_threshold", &SearchParams::mlh_q_threshold, 0.8, 0, 0.99,
     "moves left: the bonus acts above this |Q| and grows linearly to 1"},
    {"leaf_quiescence_weight", &SearchParams::leaf_quiescence_weight, 0.5, 0, 1,
     "share of a new leaf's value taken from the game's alpha-beta "
     "quiescence (captures resolved) instead of the network (0 = off)"},
    {"leaf_quiescence_scale", &SearchParams::leaf_quiescence_scale, 300, 1, 1e5,
     "centipawns of quiescence score that map to tanh(1) = 0.76 in W - L"},
    {"leaf_quiescence_plies", &SearchParams::leaf_quiescence_plies, 3, 0, 64,
     "the leaves' quiescence searches noisy moves this many plies deep"},
    {"leaf_quiescence_recaptures", &SearchParams::leaf_quiescence_recaptures, 8,
     0, 64,
     "past leaf_quiescence_plies, recaptures on the square of the last "
     "capture this many plies more"},
    {"leaf_quiescence_prior", &SearchParams::leaf_quiescence_prior, 0.5, 0, 1,
     "share of a new leaf's priors moved to the move its quiescence is best "
     "with, a capture or an evasion (0 = off)"},
    {"leaf_search_depth", &SearchParams::leaf_search_depth, -1, -1, 4,
     "with leaf_quiescence_weight: full-width alpha-beta plies searched "
     "before the leaves' quiescence (0 = quiescence only, -1 = the game's "
     "choice: 1 in Tavreli and Tavlei 9x9, 0 in Tavlei 11x11)"},
    {"root_search_depth", &SearchParams::root_search_depth, -1, -1, 8,
     "with leaf_quiescence_weight: an alpha-beta search of the root this "
     "many plies deep raises its best move's prior by root_search_prior "
     "(0 = off, -1 = the game's choice: 4 in Tavreli, 3 in Tavlei)"},
    {"root_search_prior", &SearchParams::root_search_prior, -1, -1, 1,
     "with root_search_depth: share of the root's priors moved to the root "
     "search's best move (-1 = leaf_quiescence_prior)"},
    {"root_veto_margin", &SearchParams::root_veto_margin, 0, 0, 100000,
     "with root_search_depth: the tree's move is played only if an "
     "alpha-beta search of it one ply shallower scores within this many "
     "centipawns of the root search's best, else the next-ranked move that "
     "does, or the root search's move (0 = off)"},
    {"minimax_weight", &SearchParams::minimax_weight, 0, 0, 1,
     "PUCT: share of a visited child's Q taken from the minimax of the leaf "
     "values below it instead of their mean (implicit minimax backups; "
     "0 = off)"},
    {"minibatch_size", &SearchParams::minibatch_size, 32, 1, 4096,
     "leaves gathered per evaluator call"},
    {"max_collisions", &SearchParams::max_collisions, 32, 0, 1 << 20,
     "selections reaching a leaf already in flight before a minibatch is "
     "sent early"},
    {"minibatch_root_fraction", &SearchParams::minibatch_root_fraction, 0.25, 0,
     1,
     "a minibatch gathers at most this fraction of the root's visits so far "
     "(at least 1; 0 = always minibatch_size)"},
    {"virtual_loss", &SearchParams::virtual_loss, 1.0, 0, 10,
     "an in-flight visit counts as this many losses while pending"},
    {"ram_limit_mb", &SearchParams::ram_limit_mb, 0, 0, 1 << 24,
     "tree memory cap in MiB (0 = none); the search returns when reached"},
    {"search_threads", &SearchParams::search_threads, 1, 1, 256,
     "threads growing one tree (virtual loss, one lock; more than 1 is not "
     "deterministic)"},
};

std::string FormatNumber(double value) {
  char buffer[64];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, ec == std::errc() ? end : buffer);
}

std::string_view TypeName(const Field& field) {
  if (std::holds_alternative<double SearchParams::*>(field)) return "double";
  if (std::holds_alternative<int SearchParams::*>(field)) return "int";
  return "bool";
}

std::string DefaultText(const Row& row) {
  if (std::holds_alternative<bool SearchParams::*>(row.field)) {
    return row.default_value != 0 ? "true" : "false";
  }
  return FormatNumber(row.default_value);
}

const Row* FindRow(std::string_view name) {
  for (const Row& row : kRows) {
    if (row.name == name) return &row;
  }
  return nullptr;
}

bool ParseBool(std::string_view text, bool* value) {
  if (text == "true" || text == "1" || text == "on" || text == "yes") {
    *value = true;
    return true;
  }
  if (text == "false" || text == "0" || text == "off" || text == "no") {
    *value = false;
    return true;
  }
  return false;
}

}  // namespace

SearchParams::SearchParams() {
  for (const Row& row : kRows) {
    std::visit(
        [&](auto member) {
          using T = std::remove_reference_t<decltype(this->*member)>;
          this->*member = static_cast<T>(row.default_value);
        },
        row.field);
  }
}

const std::vector<SearchParamInfo>& SearchParamTable() {
  static const std::vector<SearchParamInfo>* const table = [] {
    auto* rows = new std::vector<SearchParamInfo>;
    for (const Row& row : kRows) {
      rows->push_back({row.name, TypeName(row.field), row.help,
                       DefaultText(row), row.min, row.max});
    }
    return rows;
  }();
  return *table;
}

absl::Status SetSearchParam(SearchParams* params, std::string_view name,
                            std::string_view value) {
  const Row* row = FindRow(name);
  if (row == nullptr) {
    return absl::InvalidArgumentError(
        Cat("unknown search parameter '", name, "'"));
  }
  value = Trim(value);
  auto range_error = [&] {
    return absl::InvalidArgumentError(
        Cat("search parameter '", name, "': '", value, "' is not a valid ",
            TypeName(row->field), " in [", FormatNumber(row->min), ", ",
            FormatNumber(row->max), "]"));
  };
  if (auto* member = std::get_if<bool SearchParams::*>(&row->field)) {
    bool b = false;
    if (!ParseBool(value, &b)) {
      return absl::InvalidArgumentError(Cat("search parameter '", name, "': '",
                                            value, "' is not true or false"));
    }
    params->*(*member) = b;
  } else if (auto* member = std::get_if<int SearchParams::*>(&row->field)) {
    const std::optional<int> i = ToInt<int>(value);
    if (!i || *i < row->min || *i > row->max) return range_error();
    params->*(*member) = *i;
  } else {
    const std::optional<double> d = ToDouble(value);
    if (!d || *d < row->min || *d > row->max) return range_error();
    params->*std::get<double SearchParams::*>(row->field) = *d;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> GetSearchParam(const SearchParams& params,
                                           std::string_view name) {
  const Row* row = FindRow(name);
  if (row == nullptr) {
    return absl::NotFoundError(Cat("unknown search parameter '", name, "'"));
  }
  return std::visit(
      [&](auto member) -> std::string {
        const auto value = params.*member;
        if constexpr (std::is_same_v<decltype(value), const bool>) {
          return value ? "true" : "false";
        } else {
          return FormatNumber(static_cast<double>(value));
        }
      },
      row->field);
}

}  // namespace volkhv::search
