// Batch norm over the batches of every rank of a process group (PyTorch's
// SyncBatchNorm, for CPU tensors): in training mode the mean and the
// (biased) variance that normalise, and the running statistics, are those
// of the global batch, the union of the ranks' equal-sized batches, as one
// process training on the whole batch computes them. The backward pass
// sums the statistics' gradients over the ranks, so that the ranks'
// parameter gradients, averaged, are the whole batch's.
//
// Per layer and step it makes two all-reduces of C values forward (the
// sum, then the centred sum of squares) and two backward. Numerically it
// differs from LibTorch's batch norm kernel in rounding only (see
// docs/training.md for the measured difference).
//
// Includes LibTorch. Thread-safety: as the process group (one thread).
#ifndef VOLKHV_TRAINING_SYNC_BATCH_NORM_H_
#define VOLKHV_TRAINING_SYNC_BATCH_NORM_H_

#include <torch/torch.h>

#include "nn/network.h"
#include "training/process_group.h"

namespace volkhv::training {

// The batch norm function of nn::NetworkImpl::SetTrainingBatchNorm that
// synchronises over `group` (which must outlive the function's use). The
// input is [N, C, H, W] with the same N on every rank; the module must
// have affine parameters and track running statistics (the network's do).
// Errors of the collectives are thrown (c10::Error or std::exception).
nn::BatchNormFunction SyncBatchNorm(ProcessGroup* group);

}  // namespace volkhv::training

#endif  // VOLKHV_TRAINING_SYNC_BATCH_NORM_H_
