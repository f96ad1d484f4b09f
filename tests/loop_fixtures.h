// The loop tests' tiny run: a config that plays, trains and evaluates a
// generation in seconds, shared by tests/loop_test.cc and
// tests/workers_test.cc.
#ifndef VOLKHV_TESTS_LOOP_FIXTURES_H_
#define VOLKHV_TESTS_LOOP_FIXTURES_H_

#include <string>

namespace volkhv::testing {

// A loop config (proto/loop_config.proto, text format) of `generations`
// generations of tavlei9 with a 1-block, 8-filter net: `games` self-play
// games of at most 50 plies at 8 visits (4 cheap), `games_per_file` to a
// record file, 8 training steps, 2 evaluation games. Top-level fields may
// be appended to the text.
inline std::string TinyLoopConfig(int generations, int games = 4,
                                  int games_per_file = 2) {
  return R"(game: "tavlei9"
generations: )" +
         std::to_string(generations) +
         R"(
network {
  architecture { blocks: 1 filters: 8 se_ratio: 4 policy_head_filters: 8
                 value_head_filters: 2 value_hidden: 8 }
  seed: 3
}
selfplay {
  games: )" +
         std::to_string(games) +
         " parallel_games: 2 visits: 8 cheap_visits: 4 full_search_prob: 0.5\n"
         "  max_plies: 50 games_per_file: " +
         std::to_string(games_per_file) + R"( minibatch: 2
}
training {
  batch_size: 16 steps: 8 learning_rate: 0.01 window_min_positions: 1000
  validation_fraction: 0.25 validation_positions: 16 validation_interval: 8
  checkpoint_interval: 4 log_interval: 4
}
evaluator { threads: 1 max_batch: 16 cache_entries: 0 }
evaluation { games: 2 visits: 4 concurrency: 2 max_plies: 50 }
)";
}

}  // namespace volkhv::testing

#endif  // VOLKHV_TESTS_LOOP_FIXTURES_H_
