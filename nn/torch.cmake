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
  nn/checked_file.cc
  nn/text_proto.cc
  nn/weights_file.cc
)
target_link_libraries(volkhv_nn_weights PUBLIC volkhv_nn_core volkhv_proto)

# The fuzz build (VOLKHV_FUZZ, fuzz/) has no LibTorch.
if(VOLKHV_FUZZ)
  return()
endif()
find_package(Torch REQUIRED)

add_library(volkhv_nn_torch STATIC
  nn/network.cc
  nn/torch_weights.cc
  nn/torch_backend.cc
)
target_link_libraries(volkhv_nn_torch PUBLIC volkhv_nn_core volkhv_proto
  volkhv_nn_weights ${TORCH_LIBRARIES})
