# The Eigen CPU inference backend (volkhv_nn_eigen): no LibTorch.
#
# The library is built for the toolchain's baseline (any x86-64 CPU). On
# x86-64, the direct kernels are also built with AVX2+FMA and with AVX-512F,
# each in its own file with its own flags; nn/eigen_backend.cc runs them
# only on CPUs that have those instructions (nn/eigen_kernels.h says why
# those files include no standard header).
find_package(Eigen3 3.3 REQUIRED NO_MODULE)

add_library(volkhv_nn_eigen STATIC
  nn/eigen_backend.cc
)
target_link_libraries(volkhv_nn_eigen PUBLIC volkhv_nn_weights Eigen3::Eigen
  Threads::Threads)

include(CheckCXXCompilerFlag)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  check_cxx_compiler_flag("-mavx2 -mfma" VOLKHV_CXX_HAS_AVX2)
  check_cxx_compiler_flag("-mavx512f -mavx2 -mfma" VOLKHV_CXX_HAS_AVX512)
  if(VOLKHV_CXX_HAS_AVX2)
    target_sources(volkhv_nn_eigen PRIVATE nn/eigen_kernels_avx2.cc)
    set_source_files_properties(nn/eigen_kernels_avx2.cc PROPERTIES
      COMPILE_OPTIONS "-mavx2;-mfma")
    target_compile_definitions(volkhv_nn_eigen PRIVATE
      VOLKHV_EIGEN_HAVE_AVX2)
  endif()
  if(VOLKHV_CXX_HAS_AVX512)
    target_sources(volkhv_nn_eigen PRIVATE nn/eigen_kernels_avx512.cc)
    set_source_files_properties(nn/eigen_kernels_avx512.cc PROPERTIES
      COMPILE_OPTIONS "-mavx512f;-mavx2;-mfma")
    target_compile_definitions(volkhv_nn_eigen PRIVATE
      VOLKHV_EIGEN_HAVE_AVX512)
  endif()
endif()
