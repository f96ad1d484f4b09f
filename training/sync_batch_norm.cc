#include "training/sync_batch_norm.h"

#include <cstdint>

namespace volkhv::training {
namespace {

// y = the sum of x over the ranks; the gradient of x is the sum of y's
// gradients over the ranks (each rank's loss depends on every rank's x).
class AllReduceSum : public torch::autograd::Function<AllReduceSum> {
 public:
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx,
                               const torch::Tensor& x, int64_t group) {
    ctx->saved_data["group"] = group;
    torch::Tensor y = x.detach().clone().contiguous();
    reinterpret_cast<ProcessGroup*>(group)->AllReduceSumOrThrow(y);
    return y;
  }

  static torch::autograd::variable_list backward(
      torch::autograd::AutogradContext* ctx,
      torch::autograd::variable_list grads) {
    auto* group =
        reinterpret_cast<ProcessGroup*>(ctx->saved_data["group"].toInt());
    torch::Tensor g = grads[0].detach().clone().contiguous();
    group->AllReduceSumOrThrow(g);
    return {g, torch::Tensor()};
  }
};

torch::Tensor Forward(ProcessGroup* group, torch::nn::BatchNorm2dImpl& bn,
                      const torch::Tensor& input) {
  // In float32 also under bf16 autocast, as LibTorch's kernel computes.
  const torch::Tensor x = input.scalar_type() == torch::kFloat32
                              ? input
                              : input.to(torch::kFloat32);
  const int64_t channels = x.size(1);
  const int64_t local = x.numel() / channels;
  const int64_t count = local * group->world_size();
  const auto handle = reinterpret_cast<int64_t>(group);
  const std::vector<int64_t> per_channel = {1, channels, 1, 1};
  torch::Tensor mean = AllReduceSum::apply(x.sum({0, 2, 3}), handle) /
                       static_cast<double>(count);
  torch::Tensor centred = x - mean.view(per_channel);
  torch::Tensor var =
      AllReduceSum::apply(centred.square().sum({0, 2, 3}), handle) /
      static_cast<double>(count);
  torch::Tensor y =
      centred * torch::rsqrt(var + bn.options.eps()).view(per_channel);
  y = y * bn.weight.view(per_channel) + bn.bias.view(per_channel);

  torch::NoGradGuard no_grad;
  double factor = 0;
  bn.num_batches_tracked += 1;
  if (bn.options.momentum().has_value()) {
    factor = *bn.options.momentum();
  } else {
    factor = 1.0 / bn.num_batches_tracked.item<double>();
  }
  const double unbiased =
      count > 1 ? static_cast<double>(count) / static_cast<double>(count - 1)
                : 1.0;
  bn.running_mean.mul_(1 - factor).add_(mean.detach(), factor);
  bn.running_var.mul_(1 - factor).add_(var.detach() * unbiased, factor);
  return y.scalar_type() == input.scalar_type() ? y : y.to(input.scalar_type());
}

}  // namespace

nn::BatchNormFunction SyncBatchNorm(ProcessGroup* group) {
  return [group](torch::nn::BatchNorm2dImpl& bn, const torch::Tensor& x) {
    return Forward(group, bn, x);
  };
}

}  // namespace volkhv::training
