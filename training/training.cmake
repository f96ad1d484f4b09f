# The LibTorch trainer (`volkhv train`, the loop's training step). Included by
# the root CMakeLists.txt after selfplay/selfplay.cmake. Only trainer.cc
# includes LibTorch.
# volkhv_training_data is the LibTorch-free part (configs, symmetries, the
# dataset); the fuzz build (fuzz/) builds only that.
add_library(volkhv_training_data STATIC
  ${CMAKE_CURRENT_LIST_DIR}/training_config.cc
  ${CMAKE_CURRENT_LIST_DIR}/symmetry.cc
  ${CMAKE_CURRENT_LIST_DIR}/dataset.cc
)
target_link_libraries(volkhv_training_data PUBLIC volkhv_selfplay volkhv_proto
  volkhv_nn_core)
if(VOLKHV_FUZZ)
  return()
endif()

add_library(volkhv_training STATIC
  ${CMAKE_CURRENT_LIST_DIR}/prefetcher.cc
  ${CMAKE_CURRENT_LIST_DIR}/trainer.cc
)
target_link_libraries(volkhv_training PUBLIC volkhv_training_data
  volkhv_nn_torch volkhv_selfplay volkhv_proto Threads::Threads)
