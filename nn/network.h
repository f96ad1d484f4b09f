// The policy/value network as a LibTorch module (ResNet with
// squeeze-excitation, convolutional policy head, WDL value head, optional
// moves-left head). The layers
// and the names of their tensors are specified in nn/weights_file.h; this
// module's named_parameters() and named_buffers() (BN's num_batches_tracked
// aside) are exactly NetworkTensorSpecs(architecture).
//
// Includes LibTorch: only for code that uses LibTorch (the backend, the
// trainer). Thread-safety: as any torch::nn::Module (not thread-safe to
// train; forward in eval mode under InferenceMode is safe concurrently).
#ifndef VOLKHV_NN_NETWORK_H_
#define VOLKHV_NN_NETWORK_H_

#include <torch/torch.h>

#include <functional>
#include <memory>
#include <vector>

#include "proto/network.pb.h"

namespace volkhv::nn {

// What a batch norm of the network computes in training mode, in place of
// LibTorch's BatchNorm2d (whose statistics are those of this process's
// batch): distributed training installs one whose statistics are those of
// every process's batch (training/sync_batch_norm.h). It must update the
// module's running statistics as BatchNorm2d does.
using BatchNormFunction = std::function<torch::Tensor(
    torch::nn::BatchNorm2dImpl&, const torch::Tensor&)>;
using SharedBatchNormFunction = std::shared_ptr<const BatchNormFunction>;

// bn(x), or `f`(bn, x) when `f` is set and bn is in training mode.
torch::Tensor ApplyBatchNorm(const SharedBatchNormFunction& f,
                             torch::nn::BatchNorm2d& bn,
                             const torch::Tensor& x);

// 3x3 or 1x1 convolution without bias followed by batch norm.
class ConvBnImpl : public torch::nn::Module {
 public:
  ConvBnImpl(int in, int out, int kernel);
  torch::Tensor forward(const torch::Tensor& x);  // no activation

  torch::nn::Conv2d conv{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
  SharedBatchNormFunction batch_norm;  // null: LibTorch's
};
TORCH_MODULE(ConvBn);

class SqueezeExcitationImpl : public torch::nn::Module {
 public:
  SqueezeExcitationImpl(int channels, int squeeze);
  // sigmoid(gamma) * x + beta, [gamma | beta] from the board average.
  torch::Tensor forward(const torch::Tensor& x);

  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
};
TORCH_MODULE(SqueezeExcitation);

class ResidualBlockImpl : public torch::nn::Module {
 public:
  ResidualBlockImpl(int filters, int se_channels);
  torch::Tensor forward(const torch::Tensor& x);

  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::BatchNorm2d bn1{nullptr}, bn2{nullptr};
  SqueezeExcitation se{nullptr};       // null without SE
  SharedBatchNormFunction batch_norm;  // null: LibTorch's
};
TORCH_MODULE(ResidualBlock);

// "policy": conv3x3 + BN + ReLU, conv1x1 with bias.
class PolicyHeadImpl : public torch::nn::Module {
 public:
  PolicyHeadImpl(int filters, int head_filters, int channels);
  torch::Tensor forward(const torch::Tensor& x);  // [batch, C*H*W] logits

  torch::nn::Conv2d conv1{nullptr}, conv2{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
  SharedBatchNormFunction batch_norm;  // null: LibTorch's
};
TORCH_MODULE(PolicyHead);

// The value head ("value", 3 outputs: WDL logits) and the moves-left head
// ("moves_left", 1 output z; the plies are kMovesLeftScale * softplus(z)):
// conv1x1 + BN + ReLU, linear + ReLU, linear -> `outputs`.
class DenseHeadImpl : public torch::nn::Module {
 public:
  DenseHeadImpl(int filters, int head_filters, int board_size, int hidden,
                int outputs);
  torch::Tensor forward(const torch::Tensor& x);  // [batch, outputs]

  torch::nn::Conv2d conv{nullptr};
  torch::nn::BatchNorm2d bn{nullptr};
  torch::nn::Linear fc1{nullptr}, fc2{nullptr};
  SharedBatchNormFunction batch_norm;  // null: LibTorch's
};
TORCH_MODULE(DenseHead);

struct NetworkOutput {
  torch::Tensor policy;  // [batch, policy_channels * H * W] logits
  torch::Tensor wdl;     // [batch, 3] logits (win, draw, loss)
  // [batch] expected plies to the game's end; undefined (!defined()) when
  // the net has no moves-left head.
  torch::Tensor moves_left;
};

class NetworkImpl : public torch::nn::Module {
 public:
  // `arch` must be valid (ValidateArchitecture with geometry). Parameters
  // get LibTorch's default initialisation (seed with torch::manual_seed).
  explicit NetworkImpl(const proto::Architecture& arch);

  // x: [batch, input_planes, H, W]. Call eval() for inference (BN with the
  // running statistics).
  NetworkOutput forward(const torch::Tensor& x);

  const proto::Architecture& architecture() const { return arch_; }

  // Every batch norm of the network computes with `f` in training mode
  // (empty: LibTorch's BatchNorm2d, the default). Not saved with the module.
  void SetTrainingBatchNorm(BatchNormFunction f);

  ConvBn input{nullptr};
  torch::nn::ModuleList blocks{nullptr};  // of ResidualBlock
  PolicyHead policy{nullptr};
  DenseHead value{nullptr};
  DenseHead moves_left{nullptr};  // null without the head

 private:
  proto::Architecture arch_;
};
TORCH_MODULE(Network);

}  // namespace volkhv::nn

#endif  // VOLKHV_NN_NETWORK_H_
