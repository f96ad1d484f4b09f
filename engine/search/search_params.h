// Every tunable of the MCTS search in one struct. The defaults and help texts
// live in one table (search_params.cc) so front ends can expose them as
// options (`setoption name X value Y`) without repeating them.
#ifndef VOLKHV_ENGINE_SEARCH_SEARCH_PARAMS_H_
#define VOLKHV_ENGINE_SEARCH_SEARCH_PARAMS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace volkhv::search {

// Plain data; copy freely. The constructor sets the defaults of
// SearchParamTable(). Thread-compatible (no shared state).
struct SearchParams {
  SearchParams();

  // PUCT exploration: cpuct(N) = cpuct_init + cpuct_factor *
  // log((N + cpuct_base) / cpuct_base), N = parent visits.
  double cpuct_init;
  double cpuct_base;
  double cpuct_factor;
  // First-play urgency: an unvisited child counts as Q(parent) -
  // reduction * sqrt(sum of the priors of the visited children).
  double fpu_reduction;
  double fpu_reduction_at_root;
  // Priors become p^(1/T), renormalised, when a node is expanded.
  double policy_softmax_temp;
  // Dirichlet noise on the root priors (self-play): alpha =
  // dirichlet_alpha_factor / number of legal moves, mixed with weight
  // dirichlet_epsilon.
  bool root_noise;
  double dirichlet_alpha_factor;
  double dirichlet_epsilon;
  // Forced playouts at the root (KataGo, self-play): a root child that has
  // been visited, is not proven, and has fewer visits than
  // sqrt(forced_playouts_k * prior * total visits of the root's children) is
  // selected before any other. 0 = off. See Search::PrunedRootVisits for
  // taking the forced visits out of a training target again.
  double forced_playouts_k;
  // Gumbel AlphaZero (engine/search/gumbel_select.h) instead of PUCT: at the
  // root, Gumbel-top-k of gumbel_considered moves and Sequential Halving
  // over the Run's visit budget (gumbel_budget when the Run has no visit or
  // node limit); below it, the deterministic improved-policy rule. sigma(q)
  // = (gumbel_c_visit + max visits) * gumbel_c_scale * q. gumbel_noise
  // samples the Gumbel noise (self-play); without it the choice is
  // deterministic. Dirichlet noise and forced playouts are not used.
  bool gumbel;
  int gumbel_considered;
  double gumbel_c_visit;
  double gumbel_c_scale;
  bool gumbel_noise;
  int gumbel_budget;
  // A position that repeats an earlier one of the game (below the root) is
  // scored as a draw, as lc0's TwoFoldDraws: a side that can repeat once
  // can repeat again, and the search sees a shuffle for what it is at once
  // instead of three plies later.
  bool two_fold_draws;
  // A new leaf whose side to move has a move that wins at once
  // (Prover::ImmediateWin) is a proven win in one ply, not evaluated: the
  // winning move is found however small its prior (a tafl prince on an open
  // line to an exit) and the solver builds on it. This and the four options
  // below act only when the search has a Prover (engine/game/prover.h).
  bool immediate_wins;
  // At each expansion, a move after which the opponent has such a win is a
  // proven loss (its child proven won for the opponent, its prior 0); when
  // every move is, the node is a proven loss without evaluation. Two-ply
  // tactics cost no visits: an attacker move that opens a line for the
  // prince is never searched.
  bool avoid_immediate_losses;
  // With avoid_immediate_losses: a move after which the opponent has an
  // unstoppable threat (see unstoppable_threats) is a proven loss in four
  // plies the same way. Tactics four plies deep cost no visits: in Tavlei an
  // attacker move that lets the prince open two lines is never searched.
  bool avoid_unstoppable_threats;
  // A new leaf whose side to move has a move that no reply can stop from
  // becoming an immediate win (Prover::UnstoppableThreat: in Tavlei a
  // prince move that opens escapes the attackers cannot all close) is a
  // proven win in three plies, not evaluated.
  bool unstoppable_threats;
  // With unstoppable_threats: a new leaf whose side to move has a move
  // after which every reply allows an immediate win or an unstoppable
  // threat (Prover::WinInFive: in Tavlei a prince move that makes two
  // threats or one the attackers cannot parry in time) is a proven win in
  // five plies, not evaluated.
  bool wins_in_five;
  // What a draw (proven, or the network's draw probability) is worth in
  // selection and move choice, in W - L units: draw_score to the side to
  // move at the root, draw_score_opponent to the other side (lc0's
  // DrawScoreSidetomove / DrawScoreOpponent). Both 0: draws count as half a
  // point. Both negative: each side plays for a win (self-play contempt);
  // draw_score = -draw_score_opponent < 0: contempt against a weaker
  // opponent. Reported WDL and Q stay the unadjusted expectations.
  double draw_score;
  double draw_score_opponent;
  // Moves left (lc0's MLH), with a net that has a moves-left head
  // (nn::Evaluation::moves_left): PUCT adds to the Q of a visited child
  //   clamp(mlh_slope * (M(child) - M(node)), -mlh_cap, mlh_cap)
  //   * (Q > 0 ? -1 : 1) * max(0, |Q| - mlh_q_threshold) / (1 - threshold)
  // where M is a node's mean plies to the end (Node::m) and Q the child's
  // utility for the node's side to move: a side that wins prefers the
  // shorter way, one that loses the longer. mlh_slope 0 (the default) and
  // a net without the head leave the search as it was.
  double mlh_slope;
  double mlh_cap;
  double mlh_q_threshold;
  // Captures resolved at the leaves, as AlphaGo mixed its value network
  // with rollouts: a new leaf's W - L becomes
  //   (1 - w) * (W - L) + w * tanh(q / leaf_quiescence_scale)
  // and its D (1 - w) * D, where w = leaf_quiescence_weight and q is the
  // leaf's alpha-beta quiescence score for its side to move (the game's
  // Heuristic, AlphaBetaSearch::QuiescenceScore). A net that does not yet
  // see material sees pieces that hang. Acts only when the search has a
  // heuristic (Search::SetHeuristic). Play's default is 0.5; self-play
  // (SelfplaySearchParams) uses 0 unless its config sets it.
  double leaf_quiescence_weight;
  double leaf_quiescence_scale;
  // How many plies of noisy moves the leaves' quiescence searches (the
  // alphabeta: player searches 8, which made the search 8 times slower in
  // a Tavreli middlegame), and past them how many more plies of recaptures
  // on the square of the last capture only: an exchange seen to its end
  // along one narrow line (docs/search.md, "Captures at the leaves").
  int leaf_quiescence_plies;
  int leaf_quiescence_recaptures;
  // With leaf_quiescence_weight: when a new leaf's quiescence is best with a
  // capture (or an evasion), that move's prior becomes
  //   (1 - share) * prior + share
  // and every other's (1 - share) * prior, share = leaf_quiescence_prior.
  // With weak priors PUCT spreads a node's visits over every reply, and the
  // node's value is their average: a capture that loses a piece to a plain
  // recapture looks good, because most of the replies searched are not the
  // recapture. The raised prior makes the recapture the reply searched first
  // and most.
  double leaf_quiescence_prior;
  // With leaf_quiescence_weight: a new leaf's score comes from an
  // alpha-beta search this many full-width plies deep (and the quiescence
  // above at its horizon) instead of the quiescence alone, as MCTS-minimax
  // hybrids do (Baier and Winands 2015). A threat one quiet move away, which
  // averaging over weak priors misses, shows in the leaf's value; a leaf
  // costs about as many quiescence searches as it has moves. -1 (play's
  // default): the game's choice, Heuristic::LeafSearchDepth (what won at
  // equal time: docs/search.md). Self-play (SelfplaySearchParams) uses 0
  // unless its config sets it. 0: quiescence only.
  int leaf_search_depth;
  // With leaf_quiescence_weight: once per root, an alpha-beta search of the
  // root this many plies deep (the leaves' quiescence at its horizon, at
  // most a quarter of a timed search's time) raises its best move's prior
  // as a leaf's search does (root_search_prior). The net's priors are
  // weakest where a tactic decides; the tree then searches the move that
  // alpha-beta finds first. -1 (play's default): the game's choice,
  // Heuristic::RootSearchDepth. Self-play uses 0 unless its config sets it.
  // 0: off.
  int root_search_depth;
  // With root_search_depth: the share of the root's priors that its own
  // search's best move takes, as leaf_quiescence_prior is a leaf's share.
  // -1 (the default): leaf_quiescence_prior. Neither 0.3 nor 0.8 beat it
  // (docs/results.md, "The root search's share of the priors").
  double root_search_prior;
  // With root_search_depth: after the tree's search, the move it ranks
  // first is played only if an alpha-beta search of the position after it,
  // one ply shallower than the root's own search (so the same depth seen
  // from the root), scores within this many centipawns of the root
  // search's best move; otherwise the next of the tree's three best-ranked
  // visited moves that does, the root search's own move (never checked)
  // ending that list and played if none above it passes. The tree's
  // averages keep a move that loses material to one reply looking good
  // while most replies searched are not that reply; the check lets through
  // no move that its few plies see losing this much. A timed Run keeps a
  // tenth of its time for the checks. 0: off.
  int root_veto_margin;
  // PUCT selection scores a visited child by (1 - w) Q + w M, w this
  // weight, where M is the minimax of the leaf values in the child's subtree
  // (Node::minimax; "implicit minimax backups", Lanctot et al. 2014). The
  // mean Q keeps a move that allows a refutation looking good while most of
  // the replies searched are not the refutation; M drops as soon as the
  // refutation's leaf is valued. Gumbel selection and the move chosen (by
  // visits) are unchanged. 0: the mean alone.
  double minimax_weight;
  // Leaves gathered per Evaluator::Evaluate call, and how many selections
  // that hit a leaf already in flight end the gathering early.
  int minibatch_size;
  int max_collisions;
  // A minibatch gathers at most this fraction of the root's visits so far
  // (at least one): in a small tree a large minibatch's virtual loss
  // flattens the search (a proven draw soaks up the visits its pending
  // siblings are denied). 0 = minibatch_size from the first batch on.
  double minibatch_root_fraction;
  // An in-flight visit counts as this many losses in Q while it is pending.
  double virtual_loss;
  // Tree memory cap in MiB (nodes and edges); 0 = none. When reached the
  // tree stops growing and the search returns.
  double ram_limit_mb;
  // Threads that grow one tree in Search::Run (search.h says how); 1: the
  // calling thread alone, deterministic with a fixed seed.
  int search_threads;
};

// One row of the table: what a front end needs to show and set an option.
struct SearchParamInfo {
  std::string_view name;  // as accepted by SetSearchParam
  std::string_view type;  // "double", "int" or "bool"
  std::string_view help;
  std::string default_value;  // text, parseable by SetSearchParam
  double min = 0;
  double max = 0;
};

// All parameters, in declaration order. Thread-safe (immutable).
const std::vector<SearchParamInfo>& SearchParamTable();

// Sets one parameter from text ("1.5", "32", "true"/"false"/"1"/"0").
// Unknown names and malformed or out-of-range values are InvalidArgument
// errors naming the parameter; *params is unchanged on error.
absl::Status SetSearchParam(SearchParams* params, std::string_view name,
                            std::string_view value);
// The current value as text, or NotFound for an unknown name.
absl::StatusOr<std::string> GetSearchParam(const SearchParams& params,
                                           std::string_view name);

}  // namespace volkhv::search

#endif  // VOLKHV_ENGINE_SEARCH_SEARCH_PARAMS_H_
