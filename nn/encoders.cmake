# Input encoders and policy maps (no LibTorch).
target_sources(volkhv_nn_core PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/encoder.cc
  ${CMAKE_CURRENT_LIST_DIR}/tavreli_encoder.cc
  ${CMAKE_CURRENT_LIST_DIR}/tavreli_policy_map.cc
  ${CMAKE_CURRENT_LIST_DIR}/tavlei_encoder.cc
  ${CMAKE_CURRENT_LIST_DIR}/tavlei_policy_map.cc
)
