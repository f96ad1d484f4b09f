// engine/util/: number parsing, SplitMix64, time stamps.
#include <atomic>
#include <cstdint>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "engine/util/camel_case.h"
#include "engine/util/parse_number.h"
#include "engine/util/random.h"
#include "engine/util/thread_pool.h"
#include "engine/util/time.h"
#include "gtest/gtest.h"

namespace volkhv {
namespace {

TEST(ParseNumberTest, IntegersAreDigitsWithAnOptionalMinus) {
  EXPECT_EQ(ToInt<int>("42"), 42);
  EXPECT_EQ(ToInt<int>("-7"), -7);
  EXPECT_EQ(ToInt<int>("2147483647"), 2147483647);
  EXPECT_EQ(ToInt<uint64_t>("18446744073709551615"), UINT64_MAX);
  for (const char* bad : {"", " 1", "1 ", "+1", "1x", "0x10", "1.0", "--1"}) {
    EXPECT_FALSE(ToInt<int>(bad).has_value()) << "'" << bad << "'";
  }
  EXPECT_FALSE(ToInt<int>("2147483648").has_value());
  EXPECT_FALSE(ToInt<uint8_t>("256").has_value());
  EXPECT_FALSE(ToInt<uint64_t>("-1").has_value());
}

TEST(ParseNumberTest, ErrorsNameTheFieldTheTextAndTheRange) {
  EXPECT_EQ(*ParseInt<int>("5", "depth", 0, 20), 5);
  EXPECT_EQ(ParseInt<int>("21", "option '--depth'", 0, 20).status().message(),
            "option '--depth': '21' is not an integer in [0, 20]");
  EXPECT_EQ(ParseInt<int64_t>("x", "steps").status().message(),
            "steps: 'x' is not an integer");
  EXPECT_EQ(ParseInt<uint64_t>("-1", "seed").status().message(),
            "seed: '-1' is not a non-negative integer");
  EXPECT_EQ(ParseInt<int>("a\nb", "n", 0, 1).status().message(),
            "n: 'a\\nb' is not an integer in [0, 1]");
}

TEST(ParseNumberTest, DoublesAreFiniteDecimals) {
  EXPECT_EQ(ToDouble("0.25"), 0.25);
  EXPECT_EQ(ToDouble("-1e3"), -1000.0);
  for (const char* bad : {"", " 1", "1 ", "inf", "nan", "1e999", "1,5"}) {
    EXPECT_FALSE(ToDouble(bad).has_value()) << "'" << bad << "'";
  }
  EXPECT_EQ(*ParseDouble("1.5", "cpuct", 0, 10), 1.5);
  EXPECT_FALSE(ParseDouble("11", "cpuct", 0, 10).ok());
}

TEST(StringsTest, CamelCaseIsHowUciNamesTheGameOptions) {
  EXPECT_EQ(CamelCase("prince_max_steps"), "PrinceMaxSteps");
  EXPECT_EQ(CamelCase("threads"), "Threads");
  EXPECT_EQ(CamelCase("a__b_"), "AB");
  EXPECT_EQ(CamelCase(""), "");
}

TEST(SplitMix64Test, MatchesTheReferenceSequence) {
  // The first outputs of SplitMix64 seeded with 0 (Vigna's splitmix64.c).
  uint64_t state = 0;
  EXPECT_EQ(SplitMix64Next(state), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(SplitMix64Next(state), 0x6E789E6AA1B965F4ull);
  EXPECT_EQ(SplitMix64(0), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(SplitMix64Mix(kSplitMix64Increment), 0xE220A8397B1DCDAFull);
}

// Each of a job's tasks runs once, task i on thread i (0 the caller's),
// and Run returns only when all have; the pool runs job after job.
TEST(ThreadPoolTest, RunsEveryTaskOnceOnItsOwnThreadThenReturns) {
  ThreadPool pool(3);
  ASSERT_EQ(pool.size(), 3);
  struct Job {
    std::atomic<int> runs[3] = {0, 0, 0};
    std::thread::id ids[3];
  };
  for (int round = 0; round < 50; ++round) {
    Job job;
    const int tasks = 1 + round % 3;
    pool.Run(
        tasks,
        [](void* context, int i) {
          Job* job = static_cast<Job*>(context);
          job->ids[i] = std::this_thread::get_id();
          job->runs[i].fetch_add(1);
        },
        &job);
    std::set<std::thread::id> threads;
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(job.runs[i].load(), i < tasks ? 1 : 0) << round << " " << i;
      if (i < tasks) threads.insert(job.ids[i]);
    }
    EXPECT_EQ(threads.size(), static_cast<size_t>(tasks));
    EXPECT_EQ(job.ids[0], std::this_thread::get_id());
  }
}

TEST(TimeTest, TimestampsAreUtcToTheSecond) {
  EXPECT_TRUE(std::regex_match(
      UtcTimestamp(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)")));
  EXPECT_TRUE(
      std::regex_match(CompactUtcTimestamp(), std::regex(R"(\d{8}T\d{6}Z)")));
}

}  // namespace
}  // namespace volkhv
