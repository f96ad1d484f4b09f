#!/usr/bin/env bash
# Builds Volkhv with CUDA against PyTorch's LibTorch on a machine that has
# CUDA, a C++ compiler, CMake, ninja and a python3 with PyTorch, but none of
# our Debian packages (the project's GPU machine: no network, no apt).
#
#   bash scripts/cuda-build.sh fetch   # here: Debian 12 with its mirror
#   bash scripts/cuda-build.sh build   # there, in a copy of the tree with
#                                      # .cuda-deps/ beside the sources
#
# fetch: `apt-get download`s into .cuda-deps/debs/ (git-ignored) the Debian
#   packages the build needs besides LibTorch: Abseil, protobuf (headers,
#   libraries, protoc), Eigen, nlohmann-json, GoogleTest/GMock, with the
#   runtime libraries among their dependencies that a non-Debian image may
#   lack (libabsl20220623, libprotobuf32, libprotobuf-lite32, libprotoc32),
#   and cpp-httplib (the web board's server) with what its header and
#   pkg-config file need (OpenSSL, brotli, zlib headers; libssl3,
#   libbrotli1). Their other dependencies (libc6, libstdc++6, libgcc-s1,
#   zlib1g) are in every glibc image; pkg-config and googletest (the
#   sources) are not needed to build. About 12 MB.
# build: unpacks every .deb with `dpkg -x` into build-cuda/deps-root (never
#   into /), configures build-cuda/ (Release) with that prefix and the LibTorch
#   of `python3 -c 'import torch; print(torch.utils.cmake_prefix_path)'`,
#   builds, and runs ctest (VOLKHV_CUDA_CTEST=0 skips it).
#
# The C++ ABI: Debian's Abseil and protobuf use libstdc++'s new (C++11)
# ABI, so the LibTorch must too. build checks PyTorch's
# torch._C._GLIBCXX_USE_CXX11_ABI (true for PyTorch >= 2.7's Linux wheels)
# and stops with one line if it is false; CMake checks TORCH_CXX_FLAGS
# again (cmake/dependencies.cmake).
#
# Environment: PYTHON (default python3); TORCH_PREFIX (LibTorch's CMake
# prefix instead of asking Python; e.g. Debian's CPU LibTorch,
# /usr/lib/x86_64-linux-gnu/cmake/Torch, for a dry run without CUDA);
# BUILD_DIR (default build-cuda); JOBS (default nproc); CUDA_ARCH
# (default 90, Hopper); VOLKHV_CUDA_CTEST=0 (no ctest); KEEP_GOING=1 (build
# every target that can be built past a failed one, then fail).
set -euo pipefail
cd "$(dirname "$0")/.."
here="$(pwd)"
deps="$here/.cuda-deps"

packages=(
  libabsl-dev libabsl20220623
  libprotobuf-dev libprotobuf32 libprotobuf-lite32 libprotoc32
  protobuf-compiler
  libeigen3-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev
  libcpp-httplib-dev libcpp-httplib0.11
  libssl-dev libssl3 libbrotli-dev libbrotli1 zlib1g-dev
)

die() {
  echo "cuda-build: $*" >&2
  exit 1
}

fetch() {
  command -v apt-get >/dev/null || die "fetch needs apt-get (Debian 12)"
  rm -rf "$deps/debs"
  mkdir -p "$deps/debs"
  (cd "$deps/debs" && apt-get download "${packages[@]}")
  local count bytes
  count=$(find "$deps/debs" -name '*.deb' | wc -l)
  [ "$count" -eq "${#packages[@]}" ] ||
    die "downloaded $count packages, expected ${#packages[@]}"
  bytes=$(du -sb "$deps" | cut -f1)
  echo "cuda-build: $count packages in $deps/debs," \
    "$((bytes / 1024)) KiB in $deps (the device tool carries 64 MiB)"
}

build() {
  local debs=("$deps"/debs/*.deb)
  [ -e "${debs[0]}" ] || die "no .deb in $deps/debs: run 'fetch' first"
  local build_dir="${BUILD_DIR:-build-cuda}"
  # The prefix lives in the build folder, so that .cuda-deps holds only
  # the .debs (what travels to the GPU machine).
  mkdir -p "$build_dir"
  local root
  root="$(cd "$build_dir" && pwd)/deps-root"
  rm -rf "$root"
  mkdir -p "$root"
  for deb in "${debs[@]}"; do
    if command -v dpkg >/dev/null; then
      dpkg -x "$deb" "$root"
    else  # an image without dpkg: a .deb is an ar archive
      local member
      member="$(ar t "$deb" | grep '^data\.tar')"
      ar p "$deb" "$member" | tar -xa -C "$root" 2>/dev/null ||
        ar p "$deb" "$member" | tar -xJ -C "$root"
    fi
  done
  local arch
  arch="$(gcc -print-multiarch 2>/dev/null || true)"
  [ -n "$arch" ] || arch="x86_64-linux-gnu"
  local lib="$root/usr/lib/$arch"
  [ -d "$lib" ] || die "$lib missing after unpacking (multiarch $arch?)"
  # protoc runs from the prefix; its libraries too.
  export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  "$root/usr/bin/protoc" --version >/dev/null ||
    die "protoc from $root does not run"

  local python="${PYTHON:-python3}"
  local torch_prefix="${TORCH_PREFIX:-}"
  if [ -z "$torch_prefix" ]; then
    torch_prefix="$("$python" -c \
      'import torch; print(torch.utils.cmake_prefix_path)')" ||
      die "$python cannot import torch (set TORCH_PREFIX)"
    local abi
    abi="$("$python" -c \
      'import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))')"
    [ "$abi" = 1 ] || die "this PyTorch's LibTorch uses the old C++ ABI" \
      "(torch._C._GLIBCXX_USE_CXX11_ABI is False); Debian's Abseil and" \
      "protobuf need the new one: use a PyTorch >= 2.7 wheel or a" \
      "cxx11-abi LibTorch"
    "$python" -c 'import torch; print("cuda-build: PyTorch", torch.__version__,
      "CUDA", torch.version.cuda, "GPU", torch.cuda.is_available(),
      "C++11 ABI", torch._C._GLIBCXX_USE_CXX11_ABI)'
  fi
  echo "cuda-build: LibTorch prefix $torch_prefix"
  local torch_include
  for torch_include in "$torch_prefix/../../include" \
    "$torch_prefix/../../../include"; do
    if [ -d "$torch_include/google/protobuf" ]; then
      echo "cuda-build: note: $torch_include holds protobuf headers;" \
        "ours ($root/usr/include) come first on the include path"
    fi
  done

  # PyTorch's CMake config enables CUDA: it needs nvcc.
  if ! command -v nvcc >/dev/null; then
    for dir in /usr/local/cuda/bin /usr/local/cuda-*/bin; do
      if [ -x "$dir/nvcc" ]; then
        export PATH="$dir:$PATH"
        break
      fi
    done
  fi
  command -v nvcc >/dev/null && echo "cuda-build: $(nvcc --version | tail -1)"
  echo "cuda-build: $(c++ --version | head -1), $(cmake --version | head -1)"

  local cuda_arch="${CUDA_ARCH:-90}"
  export TORCH_CUDA_ARCH_LIST="${TORCH_CUDA_ARCH_LIST:-${cuda_arch%?}.${cuda_arch: -1}}"
  # The prefix's headers come before PyTorch's (its include folder holds
  # protobuf headers of another version): VOLKHV_INCLUDE_FIRST. <cstdint>
  # first, a precaution: GCC 13 no longer includes it through the other
  # headers that Abseil 20220623 relies on. pkg-config (cpp-httplib's
  # flags) reads the prefix's .pc files alone, their /usr paths moved into
  # the prefix.
  export PKG_CONFIG_LIBDIR="$lib/pkgconfig:$root/usr/share/pkgconfig"
  export PKG_CONFIG_SYSROOT_DIR="$root"
  local log="$build_dir/configure.log"
  # --no-as-needed: keep libtorch_cuda linked though no symbol of ours
  # names it (else LibTorch sees no CUDA at run time). --disable-new-dtags:
  # an RPATH (not RUNPATH) to the prefix, which the loader also searches for
  # the libraries our libraries need (libabsl_strings needs libabsl_base),
  # so the binaries run without LD_LIBRARY_PATH.
  cmake -S . -B "$build_dir" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DVOLKHV_TORCH_PREFIX="$torch_prefix" \
    -DCMAKE_PREFIX_PATH="$root/usr" \
    -DCMAKE_LIBRARY_ARCHITECTURE="$arch" \
    -Dabsl_DIR="$lib/cmake/absl" \
    -DGTest_DIR="$lib/cmake/GTest" \
    -DEigen3_DIR="$root/usr/share/eigen3/cmake" \
    -Dnlohmann_json_DIR="$root/usr/share/cmake/nlohmann_json" \
    -DProtobuf_INCLUDE_DIR="$root/usr/include" \
    -DProtobuf_LIBRARY="$lib/libprotobuf.so" \
    -DProtobuf_LITE_LIBRARY="$lib/libprotobuf-lite.so" \
    -DProtobuf_PROTOC_LIBRARY="$lib/libprotoc.so" \
    -DProtobuf_PROTOC_EXECUTABLE="$root/usr/bin/protoc" \
    -DCMAKE_CUDA_ARCHITECTURES="$cuda_arch" \
    -DCMAKE_CXX_FLAGS="-include cstdint" \
    -DVOLKHV_INCLUDE_FIRST="$root/usr/include;$root/usr/include/$arch" \
    -DCMAKE_EXE_LINKER_FLAGS="-Wl,--no-as-needed -Wl,--disable-new-dtags" \
    >"$log" 2>&1 || {
    tail -n 60 "$log" >&2
    die "CMake failed; the whole log is $log"
  }
  grep -E "^-- (Volkhv|Found Protobuf|Caffe2: CUDA|Found CUDA)" "$log" || true
  # The binary first, so that a build cut short by a time box still leaves
  # it; then the rest (the tests), going on past a failed file
  # (KEEP_GOING=1) so that one failure leaves every other target built.
  local keep_going=()
  [ "${KEEP_GOING:-0}" = 1 ] && keep_going=(-- -k 0)
  cmake --build "$build_dir" -j"${JOBS:-$(nproc)}" --target volkhv \
    "${keep_going[@]}"
  echo "cuda-build: built $build_dir/volkhv"
  cmake --build "$build_dir" -j"${JOBS:-$(nproc)}" "${keep_going[@]}"
  echo "cuda-build: built everything in $build_dir"
  if [ "${VOLKHV_CUDA_CTEST:-1}" != 0 ]; then
    ctest --test-dir "$build_dir" -j"${JOBS:-$(nproc)}" --output-on-failure
  fi
}

case "${1:-}" in
  fetch) fetch ;;
  build) build ;;
  *)
    echo "usage: bash scripts/cuda-build.sh fetch|build" >&2
    exit 2
    ;;
esac
