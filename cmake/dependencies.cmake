# Every outside package the build uses, found once here so that their
# imported targets are visible to every folder's CMakeLists.txt. All come
# from Debian (scripts/install-deps.sh). The fuzz build (VOLKHV_FUZZ) needs
# no LibTorch, Eigen or cpp-httplib.

# Header folders searched before every dependency's, as system headers: a
# prefix build's own (scripts/cuda-build.sh), whose protobuf headers must
# win over the older ones in PyTorch's include folder.
set(VOLKHV_INCLUDE_FIRST "" CACHE STRING
  "header folders searched before every dependency's (a ;-list)")
if(VOLKHV_INCLUDE_FIRST)
  include_directories(BEFORE SYSTEM ${VOLKHV_INCLUDE_FIRST})
endif()
find_package(absl REQUIRED)
find_package(Threads REQUIRED)
find_package(Protobuf REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
if(VOLKHV_FUZZ)
  return()
endif()

# LibTorch: the system's (Debian's CPU-only libtorch-dev) unless
# VOLKHV_TORCH_PREFIX names another's CMake prefix, e.g. PyTorch's
# `python3 -c 'import torch; print(torch.utils.cmake_prefix_path)'`
# (scripts/cuda-build.sh). Torch_DIR and CMAKE_PREFIX_PATH work as usual.
set(VOLKHV_TORCH_PREFIX "" CACHE PATH
  "LibTorch's CMake prefix (empty: found as usual)")
if(VOLKHV_TORCH_PREFIX)
  list(PREPEND CMAKE_PREFIX_PATH "${VOLKHV_TORCH_PREFIX}")
endif()
find_package(Torch REQUIRED)
# Abseil and protobuf come from Debian, built with the new libstdc++ ABI;
# a LibTorch built with the old one cannot be linked with them.
if(TORCH_CXX_FLAGS MATCHES "_GLIBCXX_USE_CXX11_ABI=0")
  message(FATAL_ERROR "Volkhv: the LibTorch at ${Torch_DIR} uses the old "
    "C++ ABI (_GLIBCXX_USE_CXX11_ABI=0); Abseil and protobuf use the new "
    "one. Use a LibTorch built with the C++11 ABI.")
endif()
if(TORCH_CUDA_LIBRARIES)
  set(VOLKHV_TORCH_CUDA on)
else()
  set(VOLKHV_TORCH_CUDA off)
endif()
message(STATUS "Volkhv: LibTorch ${Torch_VERSION} at ${Torch_DIR}, CUDA "
  "${VOLKHV_TORCH_CUDA}")


# Gloo's headers (Debian's libgloo-dev): c10d's ProcessGroupGloo, whose
# code is in libtorch_cpu, includes them. Without them `volkhv train
# --world-size N` (training/process_group.cc) says that this build cannot
# train across processes; everything else builds as before.
find_path(VOLKHV_GLOO_INCLUDE_DIR gloo/context.h HINTS ${TORCH_INCLUDE_DIRS})
find_library(VOLKHV_GLOO_LIBRARY gloo)
if(VOLKHV_GLOO_INCLUDE_DIR AND VOLKHV_GLOO_LIBRARY AND
   EXISTS "${VOLKHV_GLOO_INCLUDE_DIR}/gloo/context.h")
  set(VOLKHV_HAVE_GLOO on)
else()
  set(VOLKHV_HAVE_GLOO off)
endif()
message(STATUS "Volkhv: Gloo for training across processes: "
  "${VOLKHV_HAVE_GLOO}")

find_package(Eigen3 3.3 REQUIRED NO_MODULE)

# Debian builds cpp-httplib as a library (libcpp-httplib.so) whose header
# must see the same feature macros (OpenSSL, zlib, brotli): pkg-config has
# them.
find_package(PkgConfig REQUIRED)
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)
