# Sanitizer builds; included by the root CMakeLists.txt before any target.
#
# VOLKHV_FUZZ: the libFuzzer harnesses of fuzz/ and the LibTorch-free
# libraries they test, instrumented for libFuzzer's coverage and built with
# AddressSanitizer and UndefinedBehaviorSanitizer (clang only). The engine,
# LibTorch and the tests are not built. scripts/fuzz.sh configures it.
#
# VOLKHV_SANITIZE: everything (LibTorch code and the tests included) with
# AddressSanitizer and UndefinedBehaviorSanitizer, for
# `scripts/fuzz.sh --sanitize-tests`.
#
# VOLKHV_TSAN: everything with ThreadSanitizer, for
# `scripts/fuzz.sh --thread-tests` (the multi-threaded search's suite).
#
# Undefined behaviour stops the program (-fno-sanitize-recover), so that
# the fuzzer and ctest see it as a crash.
option(VOLKHV_FUZZ
  "Build the libFuzzer harnesses of fuzz/ (clang, ASan, UBSan), no engine" OFF)
option(VOLKHV_SANITIZE
  "Build the engine and the tests with ASan and UBSan" OFF)
option(VOLKHV_TSAN "Build the engine and the tests with ThreadSanitizer" OFF)

set(VOLKHV_SANITIZER_FLAGS -fsanitize=address,undefined
  -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
if(VOLKHV_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "VOLKHV_FUZZ needs clang (libFuzzer): configure with "
      "CXX=clang++ (Debian: apt-get install clang libclang-rt-14-dev)")
  endif()
  # -O1 with assertions on (the build type is Debug): fast enough for
  # thousands of inputs a second, and every assert() checked.
  add_compile_options(${VOLKHV_SANITIZER_FLAGS} -fsanitize=fuzzer-no-link
    -O1 -g)
  add_link_options(-fsanitize=address,undefined)
elseif(VOLKHV_SANITIZE)
  add_compile_options(${VOLKHV_SANITIZER_FLAGS} -g)
  add_link_options(-fsanitize=address,undefined)
elseif(VOLKHV_TSAN)
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=thread)
endif()
