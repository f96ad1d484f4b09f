// The AVX2 build of the direct kernels (nn/eigen_kernels.inc). This file
// alone is compiled with -mavx2 -mfma (nn/CMakeLists.txt); its code runs only
// after nn/eigen_backend.cc has checked that the CPU has them.
#define VOLKHV_EIGEN_KERNELS_AVX2
#define VOLKHV_EIGEN_KERNELS_NAMESPACE avx2
#include "nn/eigen_kernels.inc"

namespace volkhv::nn::eigen_kernels {

const KernelTable* Avx2Kernels() { return &avx2::kTable; }

}  // namespace volkhv::nn::eigen_kernels
