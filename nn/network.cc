#include "nn/network.h"

#include "nn/weights_file.h"

namespace volkhv::nn {
namespace {

torch::nn::Conv2d Conv(int in, int out, int kernel, bool bias) {
  return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, kernel)
                               .stride(1)
                               .padding(kernel / 2)
                               .bias(bias));
}

torch::nn::BatchNorm2d BatchNorm(int channels) {
  return torch::nn::BatchNorm2d(
      torch::nn::BatchNorm2dOptions(channels).eps(kBatchNormEpsilon));
}

}  // namespace

torch::Tensor ApplyBatchNorm(const SharedBatchNormFunction& f,
                             torch::nn::BatchNorm2d& bn,
                             const torch::Tensor& x) {
  if (f && bn->is_training()) return (*f)(*bn, x);
  return bn(x);
}

ConvBnImpl::ConvBnImpl(int in, int out, int kernel) {
  conv = register_module("conv", Conv(in, out, kernel, /*bias=*/false));
  bn = register_module("bn", BatchNorm(out));
}

torch::Tensor ConvBnImpl::forward(const torch::Tensor& x) {
  return ApplyBatchNorm(batch_norm, bn, conv(x));
}

SqueezeExcitationImpl::SqueezeExcitationImpl(int channels, int squeeze) {
  fc1 = register_module("fc1", torch::nn::Linear(channels, squeeze));
  fc2 = register_module("fc2", torch::nn::Linear(squeeze, 2 * channels));
}

torch::Tensor SqueezeExcitationImpl::forward(const torch::Tensor& x) {
  const int64_t batch = x.size(0), channels = x.size(1);
  torch::Tensor g = x.mean({2, 3});
  torch::Tensor z = fc2(torch::relu(fc1(g)));
  std::vector<torch::Tensor> parts = z.chunk(2, 1);
  torch::Tensor gamma = parts[0].sigmoid().view({batch, channels, 1, 1});
  torch::Tensor beta = parts[1].reshape({batch, channels, 1, 1});
  return x * gamma + beta;
}

ResidualBlockImpl::ResidualBlockImpl(int filters, int se_channels) {
  conv1 = register_module("conv1", Conv(filters, filters, 3, false));
  bn1 = register_module("bn1", BatchNorm(filters));
  conv2 = register_module("conv2", Conv(filters, filters, 3, false));
  bn2 = register_module("bn2", BatchNorm(filters));
  if (se_channels > 0) {
    se = register_module("se", SqueezeExcitation(filters, se_channels));
  }
}

torch::Tensor ResidualBlockImpl::forward(const torch::Tensor& x) {
  torch::Tensor y = torch::relu(ApplyBatchNorm(batch_norm, bn1, conv1(x)));
  y = ApplyBatchNorm(batch_norm, bn2, conv2(y));
  if (se) y = se(y);
  return torch::relu(y + x);
}

PolicyHeadImpl::PolicyHeadImpl(int filters, int head_filters, int channels) {
  conv1 = register_module("conv1", Conv(filters, head_filters, 3, false));
  bn = register_module("bn", BatchNorm(head_filters));
  conv2 = register_module("conv2", Conv(head_filters, channels, 1, true));
}

torch::Tensor PolicyHeadImpl::forward(const torch::Tensor& x) {
  return conv2(torch::relu(ApplyBatchNorm(batch_norm, bn, conv1(x))))
      .flatten(1);
}

DenseHeadImpl::DenseHeadImpl(int filters, int head_filters, int board_size,
                             int hidden, int outputs) {
  conv = register_module("conv", Conv(filters, head_filters, 1, false));
  bn = register_module("bn", BatchNorm(head_filters));
  fc1 = register_module("fc1",
                        torch::nn::Linear(head_filters * board_size, hidden));
  fc2 = register_module("fc2", torch::nn::Linear(hidden, outputs));
}

torch::Tensor DenseHeadImpl::forward(const torch::Tensor& x) {
  torch::Tensor v =
      torch::relu(ApplyBatchNorm(batch_norm, bn, conv(x))).flatten(1);
  return fc2(torch::relu(fc1(v)));
}

NetworkImpl::NetworkImpl(const proto::Architecture& arch) : arch_(arch) {
  const int f = arch.filters();
  input = register_module("input", ConvBn(arch.input_planes(), f, 3));
  blocks = register_module("blocks", torch::nn::ModuleList());
  for (int i = 0; i < arch.blocks(); ++i) {
    blocks->push_back(ResidualBlock(f, SeChannels(arch)));
  }
  policy = register_module(
      "policy", PolicyHead(f, PolicyHeadFilters(arch), arch.policy_channels()));
  value = register_module(
      "value",
      DenseHead(f, arch.value_head_filters(),
                arch.board_height() * arch.board_width(), arch.value_hidden(),
                /*outputs=*/3));
  if (HasMovesLeftHead(arch)) {
    moves_left = register_module(
        "moves_left", DenseHead(f, arch.moves_left_head_filters(),
                                arch.board_height() * arch.board_width(),
                                arch.moves_left_hidden(), /*outputs=*/1));
  }
}

NetworkOutput NetworkImpl::forward(const torch::Tensor& x) {
  torch::Tensor t = torch::relu(input(x));
  for (const auto& block : *blocks) {
    t = block->as<ResidualBlock>()->forward(t);
  }
  NetworkOutput out{policy(t), value(t)};
  if (moves_left) {
    out.moves_left =
        kMovesLeftScale * torch::softplus(moves_left(t)).flatten();  // plies
  }
  return out;
}

void NetworkImpl::SetTrainingBatchNorm(BatchNormFunction f) {
  SharedBatchNormFunction shared;
  if (f) shared = std::make_shared<const BatchNormFunction>(std::move(f));
  input->batch_norm = shared;
  for (const auto& block : *blocks) {
    block->as<ResidualBlock>()->batch_norm = shared;
  }
  policy->batch_norm = shared;
  value->batch_norm = shared;
  if (moves_left) moves_left->batch_norm = shared;
}

}  // namespace volkhv::nn
