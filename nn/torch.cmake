# Protobuf schemas (volkhv_proto), weight files without LibTorch
# (volkhv_nn_weights, usable by LibTorch-free backends), and the LibTorch
# network and backend (volkhv_nn_torch).
find_package(Protobuf REQUIRED)

# Generated code lands in ${CMAKE_BINARY_DIR}/proto/*.pb.{h,cc}, included as
# "proto/network.pb.h".
file(GLOB VOLKHV_PROTO_FILES CONFIGURE_DEPENDS
  ${CMAKE_SOURCE_DIR}/proto/*.proto)
add_library(volkhv_proto STATIC ${VOLKHV_PROTO_FILES})
protobuf_generate(TARGET volkhv_proto LANGUAGE cpp
  IMPORT_DIRS ${CMAKE_SOURCE_DIR}
  PROTOC_OUT_DIR ${CMAKE_BINARY_DIR})
target_include_directories(volkhv_proto PUBLIC ${CMAKE_BINARY_DIR})
target_link_libraries(volkhv_proto PUBLIC protobuf::libprotobuf)
# Generated code trips some of our warnings.
target_compile_options(volkhv_proto PRIVATE -Wno-unused-parameter)

add_library(volkhv_nn_weights STATIC
  nn/text_proto.cc
  nn/weights_file.cc
)
target_link_libraries(volkhv_nn_weights PUBLIC volkhv_nn_core volkhv_proto)

# The fuzz build (VOLKHV_FUZZ, fuzz/) has no LibTorch.
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

add_library(volkhv_nn_torch STATIC
  nn/network.cc
  nn/torch_weights.cc
  nn/torch_backend.cc
)
target_link_libraries(volkhv_nn_torch PUBLIC volkhv_nn_core volkhv_proto
  volkhv_nn_weights ${TORCH_LIBRARIES})
